// "Did you mean": the known name closest to a mistyped command or flag, for the CLI's messages.
// Closeness is the optimal-string-alignment distance (insertions, deletions, substitutions and
// swaps of two neighbours, each 1), so `strat` is one edit from `start` and `--sekret` from `--secret`.

/** The edits between `a` and `b` (each of the four kinds costs 1). */
function editDistance(a: string, b: string): number {
  // Rows i-2, i-1 and i of the table, over b's prefixes.
  let before = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      row.push(d);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length];
}

/**
 * The candidate closest to `typed` if it is near enough to be a typo (a third of the name's letters,
 * leading dashes aside, at least one), else undefined. Ties go to the first candidate.
 */
function closest(typed: string, candidates: readonly string[]): string | undefined {
  const bare = (s: string) => s.replace(/^-+/, '').toLowerCase();
  const word = bare(typed);
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    const d = editDistance(word, bare(c));
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** ` Did you mean '<closest>'?`, or '' when nothing is close: appended to an "Unknown …" message. */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  const near = closest(typed, candidates);
  return near === undefined ? '' : ` Did you mean '${near}'?`;
}

/** `Unknown option '<arg>'.`, with the closest of `flags` if one is near. `arg` may be `--name=value`. */
export function unknownOption(arg: string, flags: readonly string[]): string {
  const name = arg.startsWith('--') && arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
  return `Unknown option '${arg}'.${didYouMean(name, flags)}`;
}
