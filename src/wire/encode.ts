// Value → response JSON text (wire.md §2.2–2.4, fql-v4.md §2.5). Built by string concatenation,
// which V8 turns into cheap ropes; no intermediate object tree.

import {
  Bytes,
  DateV,
  Lambda,
  Page,
  EventObj,
  Ref,
  SetV,
  Time,
  TxnTime,
  type LambdaParams,
  type Value,
} from '../values/types';
import type { JsonValue } from './expr';
import { jsonString, type Pacer } from './json';
import { letsAsObjects } from './letForm';
import { formatDate, formatTime } from './time';

export interface EncodeContext {
  /** The transaction's commit time (µs), rendered for TxnTime. */
  txnTs: bigint;
  /** Rendering stops (TooLong) once an array or object grows past this many characters. */
  maxLength?: number;
  /** Set for API versions before 2.7, which render as drivers 2.x expect. */
  legacy?: LegacyStyle;
}

/**
 * How API versions before 2.7 render (DECISIONS 3, Fauna's Renderable): refs name their collection
 * with `class` and the native collection of collections is `classes`; an event's document is its
 * `instance`; up to 2.0 a ref is the string `classes/users/123`.
 */
export interface LegacyStyle {
  stringRefs: boolean;
}

const STYLE_20: LegacyStyle = { stringRefs: true };
const STYLE_21: LegacyStyle = { stringRefs: false };

/** The rendering of an X-FaunaDB-API-Version (one already validated); undefined for 2.7 up. */
export function legacyStyle(apiVersion: string | undefined): LegacyStyle | undefined {
  return apiVersion === '2.0' ? STYLE_20 : apiVersion === '2.1' ? STYLE_21 : undefined;
}

/** A rendering went past EncodeContext.maxLength: `length` is how far it got. */
export class TooLong extends Error {
  constructor(readonly length: number) {
    super(`rendering exceeds ${length} characters`);
  }
}

export function encodeValue(v: Value, ctx: EncodeContext): string {
  switch (typeof v) {
    case 'string':
      return jsonString(v);
    case 'bigint':
      return v.toString();
    case 'number':
      return encodeDouble(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v === null) return 'null';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    const max = ctx.maxLength ?? Infinity;
    let out = '[' + encodeValue(v[0], ctx);
    for (let i = 1; i < v.length; i++) {
      out += ',' + encodeValue(v[i], ctx);
      if (out.length > max) throw new TooLong(out.length);
    }
    return out + ']';
  }
  if (v instanceof Map) {
    let out = '{';
    let first = true;
    let escape = false;
    const max = ctx.maxLength ?? Infinity;
    const instance = ctx.legacy !== undefined && v instanceof EventObj;
    for (const [k, x] of v) {
      if (x instanceof Ref && x.dangling) continue; // Fauna leaves out a field whose ref is gone
      if (k.charCodeAt(0) === 64 /* @ */) escape = true;
      const key = instance && k === 'document' ? 'instance' : k;
      out += (first ? '' : ',') + jsonString(key) + ':' + encodeValue(x, ctx);
      if (out.length > max) throw new TooLong(out.length);
      first = false;
    }
    out += '}';
    // Objects with reserved-looking keys are wrapped so clients do not mistake them for escapes.
    return escape ? '{"@obj":' + out + '}' : out;
  }
  if (v instanceof Ref) return encodeRef(v, ctx.legacy);
  if (v instanceof Time) return '{"@ts":"' + formatTime(v.nanos) + '"}';
  if (v instanceof DateV) return '{"@date":"' + formatDate(v.days) + '"}';
  if (v instanceof Bytes) return '{"@bytes":"' + base64(v.bytes) + '"}';
  if (v instanceof SetV) return '{"@set":' + encodeValue(v.expr, ctx) + '}';
  if (v instanceof Page) return encodePage(v, ctx, encodeValue);
  if (v instanceof Lambda) return encodeLambda(v, ctx);
  if (v instanceof TxnTime) return ctx.txnTs.toString();
  throw new Error(`encodeValue: unsupported value ${String(v)}`);
}

// --- large values, a slice at a time ---------------------------------------------------------

/** Arrays, objects and pages with more elements than this are rendered element by element. */
const WIDE = 256;

/** True for an array, object or page that encodeValueSliced walks element by element. */
export function isWide(v: Value): boolean {
  return (
    (typeof v === 'string' && v.length > LONG_STRING) ||
    (Array.isArray(v) && v.length > WIDE) ||
    (v instanceof Map && v.size > WIDE) ||
    (v instanceof Page && v.data.length > WIDE)
  );
}
/** Strings longer than this are escaped a piece of this size at a time. */
const LONG_STRING = 1024 * 1024;
/** Rendered text is turned into bytes in pieces of about this many characters. */
const PIECE = 64 * 1024;

/**
 * `prefix + encodeValue(v) + suffix` as UTF-8 bytes, rendered so that the event loop is never held
 * for much longer than `pacer.sliceMs`: wide arrays, objects and pages are walked element by element
 * (each element rendered at once), yielding between slices. Stops (TooLong) past ctx.maxLength.
 */
export async function encodeValueSliced(v: Value, ctx: EncodeContext, pacer: Pacer, prefix = '', suffix = ''): Promise<Buffer> {
  const out = new PieceWriter(ctx.maxLength ?? Infinity);
  const sliceMs = pacer.sliceMs;
  let sliceEnd = performance.now() + sliceMs;
  const breathe = async () => {
    if (performance.now() < sliceEnd) return;
    await pacer.pause();
    sliceEnd = performance.now() + sliceMs;
  };
  const walk = async (x: Value): Promise<void> => {
    if (Array.isArray(x) && x.length > WIDE) {
      out.write('[');
      for (let i = 0; i < x.length; i++) {
        if (i > 0) out.write(',');
        await walk(x[i]);
        await breathe();
      }
      out.write(']');
    } else if (x instanceof Map && x.size > WIDE) {
      const escape = [...x.keys()].some((k) => k.charCodeAt(0) === 64);
      out.write(escape ? '{"@obj":{' : '{');
      let first = true;
      for (const [k, y] of x) {
        if (y instanceof Ref && y.dangling) continue;
        out.write((first ? '' : ',') + jsonString(k) + ':');
        first = false;
        await walk(y);
        await breathe();
      }
      out.write(escape ? '}}' : '}');
    } else if (typeof x === 'string' && x.length > LONG_STRING) {
      // Escaped a piece at a time (never splitting a surrogate pair), yielding between pieces.
      out.write('"');
      for (let i = 0; i < x.length; ) {
        let j = Math.min(x.length, i + LONG_STRING);
        const last = x.charCodeAt(j - 1);
        if (j < x.length && last >= 0xd800 && last <= 0xdbff) j--;
        const quoted = jsonString(x.slice(i, j));
        out.write(quoted.slice(1, -1));
        i = j;
        await breathe();
      }
      out.write('"');
    } else if (x instanceof Page && x.data.length > WIDE) {
      out.write(pageHead(x, ctx, encodeValue));
      await walk(x.data);
      out.write('}');
    } else {
      out.write(encodeValue(x, ctx));
    }
  };
  out.write(prefix);
  await walk(v);
  out.write(suffix);
  return out.bytes();
}

/** Collects text as UTF-8 pieces, so that no long rope is ever flattened at once. */
export class PieceWriter {
  private readonly pieces: Buffer[] = [];
  private pending = '';
  private length = 0;

  constructor(private readonly max: number) {}

  write(s: string): void {
    this.length += s.length;
    if (this.length > this.max) throw new TooLong(this.length);
    this.pending += s;
    if (this.pending.length >= PIECE) this.flush();
  }

  private flush(): void {
    if (this.pending) this.pieces.push(Buffer.from(this.pending, 'utf8'));
    this.pending = '';
  }

  bytes(): Buffer {
    this.flush();
    return this.pieces.length === 1 ? this.pieces[0] : Buffer.concat(this.pieces);
  }
}

function encodePage(p: Page, ctx: EncodeContext, enc: (v: Value, ctx: EncodeContext) => string): string {
  return pageHead(p, ctx, enc) + enc(p.data, ctx) + '}';
}

/** A page's text up to its data: `{"before":…,"after":…,"data":`. */
function pageHead(p: Page, ctx: EncodeContext, enc: (v: Value, ctx: EncodeContext) => string): string {
  let out = '{';
  if (p.before !== undefined) out += '"before":' + enc(p.before, ctx) + ',';
  if (p.after !== undefined) out += '"after":' + enc(p.after, ctx) + ',';
  return out + '"data":';
}

// --- refs ----------------------------------------------------------------------------------

const CREDENTIAL_NATIVES: ReadonlySet<string> = new Set(['keys', 'tokens', 'credentials']);

/** `{"@ref":{"id":…,"collection"?:…,"database"?:…}}`, absent parts omitted (never null). */
export function encodeRef(r: Ref, legacy?: LegacyStyle): string {
  // A ref to something gone renders as nothing (Fauna's UndefinedRef): null where a value must be.
  if (r.dangling) return 'null';
  if (legacy?.stringRefs) return '{"@ref":' + jsonString(legacyString(r)) + '}';
  let collection = r.collection;
  let database = r.database;
  // Keys/tokens/credentials of a child database carry the database on their native
  // collection ref on the wire (wire.md §2.3), not on the ref itself as we store it.
  if (database && collection && collection.isNativeCollection && !collection.database && CREDENTIAL_NATIVES.has(collection.id)) {
    collection = new Ref(collection.id, undefined, database);
    database = undefined;
  }
  const id = legacy && r.collection === undefined && r.id === 'collections' ? 'classes' : r.id;
  let out = '{"@ref":{"id":' + jsonString(id);
  if (collection) out += (legacy ? ',"class":' : ',"collection":') + encodeRef(collection, legacy);
  if (database) out += ',"database":' + encodeRef(database, legacy);
  return out + '}}';
}

/** API 2.0's ref string: `classes/users/123`, `indexes/by_name`, `keys/123` (no database part). */
function legacyString(r: Ref): string {
  const id = r.collection === undefined && r.id === 'collections' ? 'classes' : r.id;
  return r.collection ? `${legacyString(r.collection)}/${id}` : id;
}

// --- lambdas -------------------------------------------------------------------------------

/** The version of a lambda sent without one (`APIVersion.LambdaDefaultVersion`). */
const LAMBDA_DEFAULT_VERSION = '2.12';

/** True for versions after 2.12. */
function versionAbove212(v: string): boolean {
  if (v === 'UNSTABLE') return true;
  const [major, minor = '0'] = v.split('.');
  const ma = Number(major);
  const mi = Number(minor);
  return ma > 2 || (ma === 2 && mi > 12);
}

/**
 * `{"@query":{"api_version","lambda","expr"}}`. A lambda's version is at least 2.12 (a legacy
 * `@query` without one is 2.12), and it is rendered whenever it or the request's version is above
 * 2.12 — always here, since every response renders as API 4 (Expression.scala renderableLiteral).
 * `let` bindings render as one object (letForm.ts); captured variables become such a `let` around
 * the body, with values written so that the body decodes again as an expression.
 */
function encodeLambda(l: Lambda, ctx: EncodeContext): string {
  const version = l.apiVersion !== undefined && versionAbove212(l.apiVersion) ? l.apiVersion : LAMBDA_DEFAULT_VERSION;
  let out = '{"@query":{"api_version":' + jsonString(version) + ',';
  out += '"lambda":' + encodeParams(l.params) + ',"expr":';
  const body = encodeJson(letsAsObjects(l.body as JsonValue));
  if (l.closure && l.closure.size > 0) {
    // An `@` name in an object would read back as an escape: such bindings stay an array.
    const asArray = [...l.closure.keys()].some((name) => name.startsWith('@'));
    let bindings = '';
    for (const [name, v] of l.closure) {
      const binding = jsonString(name) + ':' + encodeAsExpr(v, ctx);
      bindings += (bindings ? ',' : '') + (asArray ? '{' + binding + '}' : binding);
    }
    out += '{"let":' + (asArray ? '[' + bindings + ']' : '{' + bindings + '}') + ',"in":' + body + '}';
  } else {
    out += body;
  }
  return out + '}}';
}

function encodeParams(p: LambdaParams): string {
  if (typeof p === 'string') return jsonString(p);
  return '[' + p.map(encodeParams).join(',') + ']';
}

/**
 * A value as an expression that evaluates to it: objects become `{"object":…}` (a bare
 * object is not an expression); everything else renders as it does as data.
 */
export function encodeAsExpr(v: Value, ctx: EncodeContext): string {
  if (Array.isArray(v)) return '[' + v.map((x) => encodeAsExpr(x, ctx)).join(',') + ']';
  if (v instanceof Map) {
    let inner = '';
    let escape = false;
    for (const [k, x] of v) {
      if (k.charCodeAt(0) === 64) escape = true;
      inner += (inner ? ',' : '') + jsonString(k) + ':' + encodeAsExpr(x, ctx);
    }
    inner = '{' + inner + '}';
    return '{"object":' + (escape ? '{"@obj":' + inner + '}' : inner) + '}';
  }
  if (v instanceof Page) return '{"object":' + encodePage(v, ctx, encodeAsExpr) + '}';
  return encodeValue(v, ctx);
}

// --- scalars -------------------------------------------------------------------------------

/** A Double as JSON: Java Double.toString text, non-finite values as strings. */
export function encodeDouble(x: number): string {
  if (Number.isFinite(x)) return formatDouble(x);
  return x !== x ? '"NaN"' : x > 0 ? '"Infinity"' : '"-Infinity"';
}

/**
 * Java's Double.toString: plain decimal with at least one fractional digit for
 * 1e-3 <= |x| < 1e7, otherwise `d.dddE±n`; shortest round-trip digits (as JS produces).
 */
export function formatDouble(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  if (x !== x) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  const ax = Math.abs(x);
  if (ax >= 1e-3 && ax < 1e7) {
    const s = String(x); // JS uses plain decimal notation in this range
    return s.includes('.') ? s : s + '.0';
  }
  const e = x.toExponential(); // shortest digits, e.g. "1.5e-7", "1e+21"
  const at = e.indexOf('e');
  let mantissa = e.slice(0, at);
  if (!mantissa.includes('.')) mantissa += '.0';
  const exp = e.charCodeAt(at + 1) === 43 /* + */ ? e.slice(at + 2) : e.slice(at + 1);
  return mantissa + 'E' + exp;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Re-serialises a raw JSON tree (e.g. a lambda body) so that it parses back identically. */
export function encodeJson(j: JsonValue): string {
  switch (typeof j) {
    case 'string':
      return jsonString(j);
    case 'bigint':
      return j.toString();
    case 'number':
      return encodeDouble(j); // keeps Doubles Doubles: 1.0 must not come back as Integer 1
    case 'boolean':
      return j ? 'true' : 'false';
  }
  if (j === null) return 'null';
  if (Array.isArray(j)) return '[' + j.map(encodeJson).join(',') + ']';
  let out = '{';
  let first = true;
  for (const [k, v] of j) {
    out += (first ? '' : ',') + jsonString(k) + ':' + encodeJson(v);
    first = false;
  }
  return out + '}';
}
