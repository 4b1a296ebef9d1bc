// Number literals (Numbers.scala): decimal, `0x`/`0o`/`0b` integers and floats, `_` anywhere
// after the first digit, and an optional sign (`- 1` is the literal -1).

import type { Literal } from '../ast';
import type { Cursor } from './cursor';

const isDigit = (c: number) => c >= 48 && c <= 57;

function isRadixDigit(c: number, radix: number): boolean {
  if (c === 95) return true;
  if (radix === 16) return isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
  return c >= 48 && c < 48 + radix;
}

function bigintOf(digits: string, radix: number): bigint {
  const prefix = radix === 16 ? '0x' : radix === 8 ? '0o' : radix === 2 ? '0b' : '';
  return BigInt(prefix + digits);
}

/** `[+-] ws unsigned`; null (consuming nothing) if no number starts here. */
export function number(c: Cursor, allowFloat = true): Literal | null {
  const start = c.pos;
  const sign = c.code();
  let negative = false;
  if (sign === 43 || sign === 45) {
    negative = sign === 45;
    c.pos++;
    c.ws();
  }
  const lit = unsigned(c, allowFloat);
  if (lit === null) {
    c.pos = start;
    return null;
  }
  if (!negative) return lit;
  if (lit.kind === 'Int') return { kind: 'Int', value: -lit.value };
  if (lit.kind === 'Float') return { kind: 'Float', value: -lit.value, text: '-' + lit.text };
  return lit;
}

function unsigned(c: Cursor, allowFloat: boolean): Literal | null {
  const start = c.pos;
  const first = c.code();
  if (!isDigit(first)) return null;
  if (first === 48) {
    const r = c.code(start + 1) | 0x20;
    const radix = r === 0x78 ? 16 : r === 0x6f ? 8 : r === 0x62 ? 2 : 0;
    if (radix !== 0) {
      // Committed after the radix letter: `0x` needs digits.
      let i = start + 2;
      while (isRadixDigit(c.code(i), radix)) i++;
      if (i === start + 2) c.abort(i);
      const digits = c.text.slice(start + 2, i).replace(/_/g, '');
      if (digits === '') c.abort(start + 2);
      c.pos = i;
      return { kind: 'Int', value: bigintOf(digits, radix) };
    }
    c.pos = start + 1;
  } else {
    c.pos = start + 1;
    while (isDigit(c.code()) || c.code() === 95) c.pos++;
  }
  const intEnd = c.pos;
  if (!allowFloat) return { kind: 'Int', value: BigInt(c.text.slice(start, intEnd).replace(/_/g, '')) };
  // A fraction needs a digit after the `.` (`1.` is the integer 1 then a `.`).
  if (c.code() === 46) {
    if (isDigit(c.code(c.pos + 1))) {
      c.pos += 2;
      while (isDigit(c.code()) || c.code() === 95) c.pos++;
      exponent(c);
      return float(c, start);
    }
    c.note('digit', c.pos + 1);
  }
  if (exponent(c)) return float(c, start);
  return { kind: 'Int', value: BigInt(c.text.slice(start, intEnd).replace(/_/g, '')) };
}

/** `e[+-]digits`, committed once the `e` is seen. */
function exponent(c: Cursor): boolean {
  const e = c.code();
  if (e !== 101 && e !== 69) return false;
  c.pos++;
  const s = c.code();
  if (s === 43 || s === 45) c.pos++;
  if (!isDigit(c.code())) c.abort();
  c.pos++;
  while (isDigit(c.code()) || c.code() === 95) c.pos++;
  return true;
}

function float(c: Cursor, start: number): Literal {
  const text = c.text.slice(start, c.pos).replace(/_/g, '');
  return { kind: 'Float', value: Number(text), text };
}
