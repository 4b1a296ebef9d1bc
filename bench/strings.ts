// `npm run build && node dist/bench/strings.js`: worst cases of the string and regex functions,
// the current code against the approach it replaced (inlined here), in-process, one run each.
// Each old case is sized to finish in seconds; the new code runs on inputs 10–100 times larger.

import '../src/fql/functions';
import { RE2JS } from 're2js';
import { Budget, DEFAULT_LIMITS } from '../src/model/budget';
import type { EvalContext } from '../src/fql/context';
import { casefold, titlecase } from '../src/fql/functions/strings';
import { Searcher } from '../src/fql/functions/text';
import { RegexMatcher, compileJavaRegex } from '../src/regex/re2';

const ctx = { budget: new Budget(DEFAULT_LIMITS, Date.now() + 3_600_000) } as unknown as EvalContext;

async function time(label: string, f: () => unknown): Promise<void> {
  ctx.budget.startAttempt();
  const t = performance.now();
  await f();
  console.log(`${label.padEnd(64)} ${(performance.now() - t).toFixed(1).padStart(9)} ms`);
}

const WORDS = new Intl.Segmenter('und', { granularity: 'word' });
function oldTitlecase(s: string): number {
  let n = 0;
  for (const { segment } of WORDS.segment(s)) n += segment.length; // the segmentation alone
  return n;
}

async function main(): Promise<void> {
  console.log('ReDoS: (a+)+$ on n a\'s and a "!"');
  for (const n of [22, 24, 26]) await time(`  JS RegExp (old), n = ${n}`, () => /(a+)+$/.test('a'.repeat(n) + '!'));
  for (const n of [28, 100_000]) await time(`  RE2 (re2js), n = ${n}`, () => compileJavaRegex('(a+)+$').re.test('a'.repeat(n) + '!'));

  const text = 'lorem ipsum dolor sit amet, consectetur adipiscing elit 12345 '.repeat(170); // ~10 KB
  const rx = compileJavaRegex('(\\w+)\\s');
  await time('re2js compile of (\\w+)\\s (uncached, 1000×)', () => {
    for (let i = 0; i < 1000; i++) RE2JS.compile(`(\\w+)\\s${i}?`);
  });
  await time('re2js test on 10 KB (1000×)', () => {
    for (let i = 0; i < 1000; i++) rx.re.test(text);
  });
  await time('re2js all matches with groups on 10 KB (100×)', () => {
    for (let i = 0; i < 100; i++) {
      const m = new RegexMatcher(rx, text);
      for (let from = 0; m.find(from); from = m.end) m.group(1);
    }
  });

  console.log('TitleCase of "word " × n');
  for (const n of [10_000, 20_000]) await time(`  whole-text segmentation (old), n = ${n}`, () => oldTitlecase('word '.repeat(n)));
  for (const n of [20_000, 400_000]) await time(`  windows (new), n = ${n}`, () => titlecase(ctx, 'word '.repeat(n)));

  console.log('RTrim of n spaces and an x');
  for (const n of [25_000, 50_000]) await time(`  /\\p{White_Space}+$/u (old), n = ${n}`, () => (' '.repeat(n) + 'x').replace(/\p{White_Space}+$/u, ''));
  await time('  scan (new), n = 16,000,000', () => {
    const s = ' '.repeat(16_000_000) + 'x';
    let i = s.length;
    while (i > 0 && s.charCodeAt(i - 1) === 0x20) i--;
  });

  console.log('ContainsStr: a^k b a^k in 1 MB of a');
  const hay = 'a'.repeat(1 << 20);
  for (const k of [500, 5000]) {
    const needle = 'a'.repeat(k) + 'b' + 'a'.repeat(k);
    await time(`  String.prototype.includes (old), k = ${k}`, () => hay.includes(needle));
    await time(`  Searcher (new), k = ${k}`, () => new Searcher(needle).indexOf(hay, 0));
  }

  await time('Casefold of 2 MB (new, in pieces)', () => casefold(ctx, 'Straße Ǆ ﬁ '.repeat(170_000)));
}

void main();
