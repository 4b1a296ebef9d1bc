// `npm run torture`: evidence under hostile conditions, runnable by anyone. Each part starts real
// Flora processes on temporary data directories and prints one row of the table at the end;
// failures print the seed and the shortest reproduction found. Exit code 1 when any part failed.
//
//   npm run torture -- [--part hostile] [--seconds 60] [--clients 16] [--seed N]

import { runHostile, summarize, type HostileReport } from './hostile';

export const PARTS = ['hostile'] as const;
type Part = (typeof PARTS)[number];

export interface TortureOptions {
  parts: Part[];
  seconds: number;
  clients: number;
  seed: number;
}

/** RSS a default server may reach under hostile load, and how far above idle it may stay after it. */
export const RSS_BOUND_MB = 1024;
export const RSS_AFTER_SLACK_MB = 256;

export function parseArgs(argv: readonly string[]): TortureOptions {
  const opts: TortureOptions = { parts: [...PARTS], seconds: 60, clients: 16, seed: Date.now() % 1_000_000 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--part') {
      if (!(PARTS as readonly string[]).includes(value)) throw new Error(`unknown part '${value}' (parts: ${PARTS.join(', ')})`);
      opts.parts = [value as Part];
    } else if (flag === '--seconds' || flag === '--clients' || flag === '--seed') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < (flag === '--seed' ? 0 : 1)) throw new Error(`${flag} must be a positive integer`);
      opts[flag.slice(2) as 'seconds' | 'clients' | 'seed'] = n;
    } else throw new Error(`unknown option '${flag}'`);
  }
  return opts;
}

/** What a hostile run must show: no 5xx, no hang, no crash, memory bounded and given back. */
export function hostileVerdict(r: HostileReport): string[] {
  const problems: string[] = [];
  if (r.errors5xx) problems.push(`${r.errors5xx} responses >= 500`);
  if (r.hangs) problems.push(`${r.hangs} hangs`);
  if (r.crashes) problems.push(`${r.crashes} crashes`);
  if (r.rssPeak > RSS_BOUND_MB * 1048576) problems.push(`RSS peaked at ${(r.rssPeak / 1048576).toFixed(0)} MB (bound ${RSS_BOUND_MB} MB)`);
  if (!r.crashes && r.rssAfter > r.rssIdle + RSS_AFTER_SLACK_MB * 1048576)
    problems.push(`RSS stayed at ${(r.rssAfter / 1048576).toFixed(0)} MB after the load (idle ${(r.rssIdle / 1048576).toFixed(0)} MB)`);
  return problems;
}

function table(rows: Record<string, string>[]): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padEnd(width[i])).join(' | ') + ' |';
  return [line(cols), line(width.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => r[c] ?? '')))].join('\n');
}

async function main(): Promise<number> {
  let opts: TortureOptions;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`torture: ${(e as Error).message}\n`);
    return 2;
  }
  const rows: Record<string, string>[] = [];
  const details: string[] = [];
  let failed = false;
  for (const part of opts.parts) {
    process.stdout.write(`== ${part}\n`);
    const report = await runHostile({ ...opts, log: (l) => process.stdout.write(l + '\n') });
    const d = summarize(report);
    const problems = hostileVerdict(report);
    rows.push({ ...d.row, verdict: problems.length ? 'FAIL' : 'pass' });
    details.push(...d.details, ...problems.map((p) => `FAIL ${part} (seed ${opts.seed}): ${p}`));
    failed ||= problems.length > 0;
  }
  process.stdout.write('\n' + table(rows) + '\n\n' + details.join('\n') + '\n');
  return failed ? 1 : 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`torture: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
