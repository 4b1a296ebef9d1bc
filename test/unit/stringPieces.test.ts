// String functions that work on long inputs piece by piece (windowed TitleCase, chunked Casefold)
// must give exactly what they give on the whole text; the linear substring search must agree with
// String.prototype.indexOf. Random texts from a seeded generator, mixing the characters that
// matter: marks, jamo, ignorables, emoji, dictionary scripts, punctuation with and without spaces.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import '../../src/fql/functions';
import { casefold, titlecase } from '../../src/fql/functions/strings';
import { Searcher } from '../../src/fql/functions/text';
import { Budget, DEFAULT_LIMITS } from '../../src/model/budget';
import type { EvalContext } from '../../src/fql/context';
import { prng } from '../helpers/prng';

function context(): EvalContext {
  return { budget: new Budget(DEFAULT_LIMITS, Date.now() + 600_000) } as unknown as EvalContext;
}

function text(random: () => number, pieces: string[], length: number): string {
  let s = '';
  while (s.length < length) s += pieces[Math.floor(random() * pieces.length)];
  return s;
}

const WORDS = new Intl.Segmenter('und', { granularity: 'word' });

/** TitleCase as it was: one segmentation of the whole text. */
async function titlecaseWhole(ctx: EvalContext, s: string): Promise<string> {
  let out = '';
  for (const { segment } of WORDS.segment(s)) out += await titlecase(ctx, segment);
  return out;
}

const SPACED = ['word', ' ', '  ', "it's", 'hello-world', ', ', '1st', '3.14', '😀', '👍🏽', '中文字', 'ภาษาไทย', 'ΟΔΟΣ', 'ŉ', 'ß', '\n', '\r\n', '\t', '\u00a0', '\u3000', '(', ')', '/', 'İ', '\u00ad', '🇫🇷', 'e\u0301', '\u0301'];
const UNSPACED = ['ab', ',', ';', '.', ':', '1', '3.14', '1,000', 'x_y', '\u0301', 'é', '😀', '👍🏽', '中文字', 'ภาษาไทย', 'ΟΔΟΣ', 'ŉ', '"', "'", 'İ', '\u00ad', 'ｶﾞ', '한', 'ᄀ', 'ᅡ', '🇫🇷', 'a.b', 'U.S.A.', '\u200b', 'Σ'];

test('windowed TitleCase equals TitleCase of the whole text', async () => {
  const random = prng(7);
  const ctx = context();
  for (const pieces of [SPACED, UNSPACED])
    for (let i = 0; i < 12; i++) {
      const s = text(random, pieces, 5000 + Math.floor(random() * 12000));
      assert.equal(await titlecase(ctx, s), await titlecaseWhole(ctx, s));
    }
});

test('TitleCase of one word longer than a window', async () => {
  const ctx = context();
  assert.equal(await titlecase(ctx, 'aB'.repeat(10_000)), 'A' + 'b' + 'ab'.repeat(9_999));
});

/** Casefold (NFKC_Casefold) as it was, on the whole string. */
function nfkcCasefoldWhole(s: string): string {
  const fold = (x: string): string =>
    Array.from(x, (c) => {
      const cp = c.codePointAt(0)!;
      if (cp < 0x80) return c.toLowerCase();
      if (cp === 0x131 || (cp >= 0x13a0 && cp <= 0x13f5)) return c;
      if (cp >= 0x13f8 && cp <= 0x13fd) return String.fromCodePoint(cp - 8);
      if (cp >= 0xab70 && cp <= 0xabbf) return String.fromCodePoint(cp - 0xab70 + 0x13a0);
      return c.toLowerCase().toUpperCase().toLowerCase();
    }).join('');
  let cur = s.normalize('NFKC');
  for (let i = 0; i < 3; i++) {
    const next = fold(cur).replace(/\p{Default_Ignorable_Code_Point}/gu, '').normalize('NFKC');
    if (next === cur) break;
    cur = next;
  }
  return cur;
}

test('Casefold in pieces equals Casefold of the whole string', async () => {
  const random = prng(11);
  const ctx = context();
  const pieces = ['word', ' ', 'e\u0301', 'ﬁ', '\ufdfa', '\u00ad', 'ｶ', 'ﾞ', 'ㄱ', 'ㅏ', 'A\u030a', '\u212b', 'ẞ', '\u0345', 'ᾳ', '\u0f77', '\u0cbf\u0cd5', '\u1100\u1161\u11a8', 'ΟΔΟΣ'];
  for (let i = 0; i < 6; i++) {
    const s = text(random, pieces, 70_000 + Math.floor(random() * 140_000));
    assert.equal(await casefold(ctx, s), nfkcCasefoldWhole(s));
    for (const form of ['NFC', 'NFD', 'NFKC', 'NFKD'] as const) assert.equal(await casefold(ctx, s, form), s.normalize(form));
  }
});

test('the linear search agrees with indexOf, long needles included', () => {
  const random = prng(3);
  const word = (n: number): string => Array.from({ length: n }, () => 'ab'[Math.floor(random() * 2)]).join('');
  for (let i = 0; i < 3000; i++) {
    const needle = word(1 + Math.floor(random() * 100));
    const hay = word(Math.floor(random() * 300)) + (random() < 0.5 ? needle : '') + word(Math.floor(random() * 50));
    const from = Math.floor(random() * 20);
    assert.equal(new Searcher(needle).indexOf(hay, from), hay.indexOf(needle, from), `${needle} in ${hay} from ${from}`);
  }
  const a = 'a'.repeat(1 << 20);
  const periodic = 'a'.repeat(5000) + 'b' + 'a'.repeat(5000);
  assert.equal(new Searcher(periodic).indexOf(a, 0), -1); // V8's indexOf: seconds
  assert.equal(new Searcher(periodic).indexOf(a + 'b' + 'a'.repeat(5000), 0), (1 << 20) - 5000);
});
