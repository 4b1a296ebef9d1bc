// The JSON of a /query/1 request body, read into a tree the request decoder (request.ts) and the
// argument decoder (args.ts) then interpret: the core's UndecidedValue (a JSON value whose meaning
// depends on the format it is decoded in).
//
// As the core's Jackson reader does: integers are exact 64-bit (`bigint`; one out of range fails
// the whole body), other numbers are doubles (`number`, `1e400` is Infinity), a duplicate key keeps
// its first position and takes the last value (Scala's SeqMap), nesting is limited to 1000 levels
// (Jackson's StreamReadConstraints) and numbers to 1000 characters. Syntax errors are answered with
// Jackson's wording, without its source location.

import { badRequest, type ProtocolFailure } from './errors';

export type Undecided = null | boolean | string | bigint | number | Undecided[] | UndecidedObject;
export type UndecidedObject = Map<string, Undecided>;

const MAX_NESTING = 1000;
const MAX_NUMBER_LENGTH = 1000;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** The first key an object repeated, for the template decoder ("Duplicate object field"). */
const repeated = new WeakMap<UndecidedObject, string>();

export function repeatedKey(o: UndecidedObject): string | undefined {
  return repeated.get(o);
}

/** Parses a request body; throws ProtocolFailure `invalid_request` with the core's message. */
export function readJson(text: string): Undecided {
  const r = new Reader(text);
  r.skipWs();
  if (r.pos >= text.length) throw invalidBody(undefined); // Jackson: no token at all
  const v = r.value(0);
  r.skipWs();
  if (r.pos < text.length) throw r.unexpected('expected end of input');
  return v;
}

/** "Invalid request body[: <detail>]" (FQL2Endpoint.getRequestBody). */
export function invalidBody(detail: string | undefined): ProtocolFailure {
  return badRequest(detail === undefined ? 'Invalid request body' : `Invalid request body: ${detail}`);
}

const VALUE_EXPECTED = "expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')";

class Reader {
  pos = 0;
  constructor(private readonly s: string) {}

  skipWs(): void {
    const s = this.s;
    let i = this.pos;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
    this.pos = i;
  }

  unexpected(expected: string): ProtocolFailure {
    if (this.pos >= this.s.length) return invalidBody('Unexpected end-of-input');
    const ch = this.s[this.pos];
    const code = ch.charCodeAt(0);
    const shown = code < 32 ? `(CTRL-CHAR, code ${code})` : `('${ch}' (code ${code}))`;
    return invalidBody(`Unexpected character ${shown}: ${expected}`);
  }

  value(depth: number): Undecided {
    const s = this.s;
    const c = s.charCodeAt(this.pos);
    switch (c) {
      case 34 /* " */:
        return this.string();
      case 123 /* { */:
        return this.object(depth + 1);
      case 91 /* [ */:
        return this.array(depth + 1);
      case 116 /* t */:
        return this.keyword('true', true);
      case 102 /* f */:
        return this.keyword('false', false);
      case 110 /* n */:
        return this.keyword('null', null);
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) return this.number();
    throw this.unexpected(VALUE_EXPECTED);
  }

  private keyword<T extends Undecided>(word: string, v: T): T {
    if (!this.s.startsWith(word, this.pos)) {
      const m = /^[A-Za-z0-9_]+/.exec(this.s.slice(this.pos, this.pos + 256));
      throw invalidBody(
        `Unrecognized token '${m ? m[0] : this.s[this.pos]}': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')`,
      );
    }
    this.pos += word.length;
    return v;
  }

  private object(depth: number): UndecidedObject {
    if (depth > MAX_NESTING) throw tooDeep();
    const o: UndecidedObject = new Map();
    this.pos++;
    this.skipWs();
    if (this.s.charCodeAt(this.pos) === 125 /* } */) {
      this.pos++;
      return o;
    }
    for (;;) {
      if (this.s.charCodeAt(this.pos) !== 34) throw this.unexpected('was expecting double-quote to start field name');
      const key = this.string();
      this.skipWs();
      if (this.s.charCodeAt(this.pos) !== 58 /* : */) {
        throw this.unexpected('was expecting a colon to separate field name and value');
      }
      this.pos++;
      this.skipWs();
      const v = this.value(depth);
      if (o.has(key) && !repeated.has(o)) repeated.set(o, key);
      o.set(key, v);
      this.skipWs();
      const c = this.s.charCodeAt(this.pos);
      if (c === 125) {
        this.pos++;
        return o;
      }
      if (c !== 44 /* , */) throw this.unexpected('was expecting comma to separate Object entries');
      this.pos++;
      this.skipWs();
    }
  }

  private array(depth: number): Undecided[] {
    if (depth > MAX_NESTING) throw tooDeep();
    const a: Undecided[] = [];
    this.pos++;
    this.skipWs();
    if (this.s.charCodeAt(this.pos) === 93 /* ] */) {
      this.pos++;
      return a;
    }
    for (;;) {
      a.push(this.value(depth));
      this.skipWs();
      const c = this.s.charCodeAt(this.pos);
      if (c === 93) {
        this.pos++;
        return a;
      }
      if (c !== 44) throw this.unexpected('was expecting comma to separate Array entries');
      this.pos++;
      this.skipWs();
    }
  }

  private string(): string {
    const s = this.s;
    const start = ++this.pos;
    let i = start;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 34) {
        this.pos = i + 1;
        return s.slice(start, i);
      }
      if (c === 92 || c < 32 || i >= s.length) break;
      i++;
    }
    let out = s.slice(start, i);
    let chunk = i;
    for (;;) {
      if (i >= s.length) {
        this.pos = i;
        throw invalidBody('Unexpected end-of-input in a String value');
      }
      const c = s.charCodeAt(i);
      if (c === 34) {
        this.pos = i + 1;
        return out + s.slice(chunk, i);
      }
      if (c < 32) {
        throw invalidBody(
          `Illegal unquoted character ((CTRL-CHAR, code ${c})): has to be escaped using backslash to be included in string value`,
        );
      }
      if (c !== 92) {
        i++;
        continue;
      }
      out += s.slice(chunk, i);
      const e = s[i + 1];
      i += 2;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const hex = s.slice(i, i + 4);
          if (!/^[0-9A-Fa-f]{4}$/.test(hex)) {
            throw invalidBody('Unexpected character: expected a hex-digit for character escape sequence');
          }
          out += String.fromCharCode(parseInt(hex, 16));
          i += 4;
          break;
        }
        default:
          if (e === undefined) throw invalidBody('Unexpected end-of-input in a String value');
          throw invalidBody(`Unrecognized character escape '${e}' (code ${e.charCodeAt(0)})`);
      }
      chunk = i;
    }
  }

  private number(): bigint | number {
    const s = this.s;
    const start = this.pos;
    let i = start;
    if (s.charCodeAt(i) === 45) i++;
    let c = s.charCodeAt(i);
    if (c === 48) {
      c = s.charCodeAt(++i);
      if (c >= 48 && c <= 57) throw invalidBody('Invalid numeric value: Leading zeroes not allowed');
    } else if (c >= 49 && c <= 57) {
      do c = s.charCodeAt(++i);
      while (c >= 48 && c <= 57);
    } else {
      this.pos = i;
      throw invalidBody(`Unexpected character after minus sign: expected digit for valid numeric value`);
    }
    let integral = true;
    if (c === 46 /* . */) {
      integral = false;
      c = s.charCodeAt(++i);
      if (!(c >= 48 && c <= 57)) throw invalidBody('Unexpected character: Decimal point not followed by a digit');
      do c = s.charCodeAt(++i);
      while (c >= 48 && c <= 57);
    }
    if (c === 101 || c === 69 /* e E */) {
      integral = false;
      c = s.charCodeAt(++i);
      if (c === 43 || c === 45) c = s.charCodeAt(++i);
      if (!(c >= 48 && c <= 57)) throw invalidBody('Unexpected character: Exponent indicator not followed by a digit');
      do c = s.charCodeAt(++i);
      while (c >= 48 && c <= 57);
    }
    this.pos = i;
    // Jackson's StreamConstraintsException and its out-of-range coercion are not parse errors: the
    // endpoint answers them without a detail.
    if (i - start > MAX_NUMBER_LENGTH) throw invalidBody(undefined);
    const text = s.slice(start, i);
    if (!integral) return Number(text);
    const n = BigInt(text);
    if (n < LONG_MIN || n > LONG_MAX) throw invalidBody(undefined);
    return n;
  }
}

function tooDeep(): ProtocolFailure {
  return badRequest('Invalid request body: JSON exceeds nesting limit');
}
