// A hand-written JSON parser for request bodies (hot path of every request).
// Differences from JSON.parse that Fauna needs: integers stay exact 64-bit bigints, "1.0" stays a
// Double, objects are Maps where the first duplicate key wins, and nesting is limited.

import { firstSliceEnd, nextTurn } from '../loop/turns';
import { errors } from '../values/errors';
import type { JsonObject, JsonValue } from './expr';

/** Jackson's default nesting limit, which Fauna inherited. */
export const MAX_JSON_DEPTH = 1000;

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

// Scanner state lives in module variables: each parse step is synchronous, and closures over locals
// are measurably slower than plain module state in V8. A step copies its parser's position in and
// out, so parses suspended between steps (large bodies, parsed a slice at a time) never mix.
let src = '';
let pos = 0;

const invalid = () => errors.invalidExpression('Request body is not valid JSON.');
const tooDeep = () => errors.invalidExpression('Request body JSON exceeds nesting limit.');

export function parseJson(text: string): JsonValue {
  const parser = new JsonParser(text);
  parser.step(Infinity);
  return parser.result;
}

/** JSON values parsed between two looks at the clock by parseJsonSliced. */
const PARSE_STEP = 2048;

/**
 * How long work shares the event loop (parsing, decoding, rendering): it runs for `sliceMs`, then
 * awaits `pause()` so that other requests get their turn. A query's Budget is one.
 */
export interface Pacer {
  readonly sliceMs: number;
  pause(): Promise<void>;
}

/**
 * A Pacer for work outside any query: slices of `sliceMs`, pausing until its turn in the line the
 * paused queries take theirs from (loop/turns.ts), so that many bodies parsed at once take one slice
 * per turn of the loop between them, not one each.
 */
export function loopPacer(sliceMs: number): Pacer {
  return { sliceMs, pause: () => nextTurn() };
}

/**
 * parseJson for large texts: parsed a slice at a time, so that the event loop is never held long.
 * `onStep` is told after each step (a decoder charges memory there).
 */
export async function parseJsonSliced(text: string, pacer: Pacer, onStep?: (values: number) => void): Promise<JsonValue> {
  const parser = new JsonParser(text);
  // Large bodies read in the same turn of the loop share their first slice (loop/turns.ts).
  let sliceEnd = firstSliceEnd(performance.now() + pacer.sliceMs);
  while (!parser.step(PARSE_STEP)) {
    onStep?.(PARSE_STEP);
    if (performance.now() >= sliceEnd) {
      await pacer.pause();
      sliceEnd = performance.now() + pacer.sliceMs;
    }
  }
  return parser.result;
}

const VALUE = 0; // a value is expected
const KEY = 1; // an object key (or the end of an empty object) is expected
const AFTER = 2; // a value was read: ',' or the end of its container is expected

/**
 * An iterative (explicit-stack) JSON parser that can stop after any number of values and go on
 * later, so that a body of several MiB is parsed a slice at a time.
 */
class JsonParser {
  private at = 0;
  private state = VALUE;
  private readonly stack: (JsonValue[] | JsonObject)[] = [];
  /** The pending key of each open object (unused for arrays). */
  private readonly keys: string[] = [];
  private root: JsonValue = null;
  private finished = false;

  constructor(private text: string) {}

  get done(): boolean {
    return this.finished;
  }

  get result(): JsonValue {
    if (!this.finished) throw new Error('JsonParser: not finished');
    return this.root;
  }

  /** Reads up to `values` more values; true once the document is complete. Throws Fauna's parse errors. */
  step(values: number): boolean {
    if (this.finished) return true;
    src = this.text;
    pos = this.at;
    try {
      if (pos === 0 && this.stack.length === 0) {
        skipWs();
        if (pos >= src.length) throw errors.invalidExpression('No query provided.');
      }
      const stack = this.stack;
      for (;;) {
        let v: JsonValue;
        if (this.state === AFTER) {
          skipWs();
          const top = stack[stack.length - 1];
          const c = src.charCodeAt(pos++);
          if (c === 44 /* , */) {
            this.state = Array.isArray(top) ? VALUE : KEY;
            skipWs();
            if (this.state === KEY && src.charCodeAt(pos) !== 34) throw invalid();
            continue;
          }
          if (c !== (Array.isArray(top) ? 93 /* ] */ : 125) /* } */) throw invalid();
          stack.pop();
          v = top;
        } else if (this.state === KEY) {
          const c = src.charCodeAt(pos);
          if (c === 125 /* } */) {
            pos++;
            v = stack.pop()!;
          } else {
            if (c !== 34) throw invalid();
            const key = parseString();
            skipWs();
            if (src.charCodeAt(pos) !== 58 /* : */) throw invalid();
            pos++;
            skipWs();
            this.keys[stack.length - 1] = key;
            this.state = VALUE;
            continue;
          }
        } else {
          if (--values < 0) return false;
          const c = src.charCodeAt(pos);
          if (c === 123 /* { */ || c === 91 /* [ */) {
            if (stack.length >= MAX_JSON_DEPTH) throw tooDeep();
            pos++;
            skipWs();
            if (c === 123) {
              stack.push(new Map());
              this.state = KEY;
              continue;
            }
            if (src.charCodeAt(pos) === 93 /* ] */) {
              pos++;
              v = [];
            } else {
              stack.push([]);
              continue;
            }
          } else {
            v = parseScalar(c);
          }
        }
        // A value is complete: it goes into its container, or it is the document.
        if (stack.length === 0) {
          skipWs();
          if (pos < src.length) throw invalid();
          this.root = v;
          this.finished = true;
          this.text = ''; // do not pin a large body in memory
          return true;
        }
        const top = stack[stack.length - 1];
        if (Array.isArray(top)) top.push(v);
        else {
          const key = this.keys[stack.length - 1];
          if (!top.has(key)) top.set(key, v); // first occurrence wins, as in Fauna
        }
        this.state = AFTER;
      }
    } finally {
      this.at = pos;
      src = '';
    }
  }
}

function skipWs(): void {
  const s = src;
  let i = pos;
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else break;
  }
  pos = i;
}

function parseScalar(c: number): JsonValue {
  switch (c) {
    case 34 /* " */:
      return parseString();
    case 116 /* t */:
      return keyword('true', true);
    case 102 /* f */:
      return keyword('false', false);
    case 110 /* n */:
      return keyword('null', null);
    default:
      if (c === 45 /* - */ || (c >= 48 && c <= 57)) return parseNumber();
      throw invalid();
  }
}

function keyword<T extends JsonValue>(word: string, value: T): T {
  if (!src.startsWith(word, pos)) throw invalid();
  pos += word.length;
  return value;
}

function parseString(): string {
  const s = src;
  const start = ++pos; // skip the opening quote
  let i = start;
  // Fast path: no escapes, so the result is a slice of the input.
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      pos = i + 1;
      return s.slice(start, i);
    }
    if (c === 92 || c < 32 || i >= s.length) break; // NaN (end of input) compares false: check length
    i++;
  }
  return parseEscapedString(start, i);
}

function parseEscapedString(start: number, i: number): string {
  const s = src;
  let out = s.slice(start, i);
  let chunk = i;
  for (;;) {
    if (i >= s.length) throw invalid();
    const c = s.charCodeAt(i);
    if (c === 34) {
      pos = i + 1;
      return out + s.slice(chunk, i);
    }
    if (c < 32) throw invalid();
    if (c !== 92) {
      i++;
      continue;
    }
    out += s.slice(chunk, i);
    const e = s.charCodeAt(i + 1);
    i += 2;
    switch (e) {
      case 34: out += '"'; break;
      case 92: out += '\\'; break;
      case 47: out += '/'; break;
      case 98: out += '\b'; break;
      case 102: out += '\f'; break;
      case 110: out += '\n'; break;
      case 114: out += '\r'; break;
      case 116: out += '\t'; break;
      case 117 /* u */: {
        let code = 0;
        for (let k = 0; k < 4; k++) {
          const h = hexValue(s.charCodeAt(i + k));
          if (h < 0) throw invalid();
          code = code * 16 + h;
        }
        i += 4;
        // Lone surrogates are kept (Fauna tolerates them; the encoder renders them as '?').
        out += String.fromCharCode(code);
        break;
      }
      default:
        throw invalid();
    }
    chunk = i;
  }
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

function parseNumber(): bigint | number {
  const s = src;
  const start = pos;
  let i = pos;
  const neg = s.charCodeAt(i) === 45;
  if (neg) i++;
  let c = s.charCodeAt(i);
  let acc = 0; // exact while digits <= 15
  const intStart = i;
  if (c === 48) {
    c = s.charCodeAt(++i);
  } else if (c >= 49 && c <= 57) {
    do {
      acc = acc * 10 + (c - 48);
      c = s.charCodeAt(++i);
    } while (c >= 48 && c <= 57);
  } else {
    throw invalid();
  }
  const intDigits = i - intStart;
  let isInt = true;
  if (c === 46 /* . */) {
    isInt = false;
    c = s.charCodeAt(++i);
    if (!(c >= 48 && c <= 57)) throw invalid();
    do c = s.charCodeAt(++i);
    while (c >= 48 && c <= 57);
  }
  if (c === 101 || c === 69 /* e E */) {
    isInt = false;
    c = s.charCodeAt(++i);
    if (c === 43 || c === 45) c = s.charCodeAt(++i);
    if (!(c >= 48 && c <= 57)) throw invalid();
    do c = s.charCodeAt(++i);
    while (c >= 48 && c <= 57);
  }
  pos = i;
  if (!isInt) return Number(s.slice(start, i));
  if (intDigits <= 15) return BigInt(neg ? -acc : acc);
  const big = BigInt(s.slice(start, i));
  if (big < LONG_MIN || big > LONG_MAX) throw invalid(); // out-of-range integers fail parsing
  return big;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Quotes a string as JSON. Lone surrogates render as '?', as Fauna does. */
export function jsonString(s: string): string {
  // Short strings (keys, names, ids) that need no escaping are the common case: a JS scan beats
  // the call into the native serializer there.
  if (s.length < 64) {
    let plain = true;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 32 || c === 34 || c === 92 || (c >= 0xd800 && c <= 0xdfff)) {
        plain = false;
        break;
      }
    }
    if (plain) return '"' + s + '"';
  }
  if (!(s as unknown as { isWellFormed(): boolean }).isWellFormed()) s = s.replace(LONE_SURROGATE, '?');
  return JSON.stringify(s);
}
