// How values print (ToString.scala): `toDisplayString` for `toString()`, templates and `log`;
// `toDebugString` for `dbg` and inside containers.

import { formatDouble } from '../../wire/encode';
import { formatDate, formatTime } from '../../wire/time';
import { Bytes, DateV, Time, TxnTime } from '../../values/types';
import { ValueSet } from './sets';
import { ExtValue, IdV, Lambda, ModuleV, NativeFn, NullV, SetCursorV, SmallLong, type RtValue } from './values';
import type { CallCtx } from './table';

const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '\0': '\\0',
  "'": "\\'",
  '"': '\\"',
  '`': '\\`',
  '\n': '\\n',
  '\r': '\\r',
  '\v': '\\v',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
  '#': '\\#',
};

/** MaterializedValue.escape: a string literal as FQL would read it. */
function escapeString(s: string): string {
  return '"' + s.replace(/[\\\0'"`\n\r\v\t\b\f#]/g, (c) => ESCAPES[c]) + '"';
}

/** MaterializedValue.isIdent (Java's Character.isLetter / isLetterOrDigit). */
export function isIdent(s: string): boolean {
  return /^\p{L}[\p{L}\p{Nd}_]*$/u.test(s);
}

/** A Double as `toString()` prints it: whole numbers without a fraction (`%.0f`). */
function displayDouble(d: number): string {
  if (Number.isFinite(d) && d % 1 === 0) return Object.is(d, -0) ? '-0' : BigInt(d).toString();
  return formatDouble(d);
}

function toDisplayString(v: RtValue): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'bigint':
      return v.toString();
    case 'number':
      return displayDouble(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v instanceof IdV || v instanceof SmallLong) return v.value.toString();
  if (v instanceof Bytes) return Buffer.from(v.bytes).toString('base64');
  if (v instanceof Time) return formatTime(v.nanos);
  if (v instanceof DateV) return formatDate(v.days);
  if (v instanceof NullV) return 'null';
  if (v instanceof SetCursorV) return v.token;
  if (v instanceof TxnTime) return '[transaction time]';
  return toDebugString(v);
}

export function toDebugString(v: RtValue): string {
  switch (typeof v) {
    case 'string':
      return escapeString(v);
    case 'bigint':
      return v.toString();
    case 'number':
      return formatDouble(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v instanceof NullV) return 'null';
  if (v instanceof SmallLong) return v.value.toString();
  if (Array.isArray(v)) return '[' + v.map(toDebugString).join(', ') + ']';
  if (v instanceof Map) {
    if (v.size === 0) return '{}';
    const parts: string[] = [];
    for (const [k, x] of v) parts.push(`${isIdent(k) ? k : escapeString(k)}: ${toDebugString(x)}`);
    return '{ ' + parts.join(', ') + ' }';
  }
  if (v instanceof IdV) return `ID("${v.value}")`;
  if (v instanceof Bytes) return `Bytes("${Buffer.from(v.bytes).toString('base64')}")`;
  if (v instanceof Time) return `Time("${formatTime(v.nanos)}")`;
  if (v instanceof DateV) return `Date("${formatDate(v.days)}")`;
  if (v instanceof ModuleV) return v.parent === undefined ? v.name : toDebugString(v.parent) + '.' + v.name;
  if (v instanceof TxnTime) return 'TransactionTime()';
  if (v instanceof SetCursorV) return escapeString(v.token);
  if (v instanceof ValueSet) return '[set]';
  if (v instanceof Lambda) return '[function <lambda>]';
  if (v instanceof NativeFn) return `[function ${v.name}()]`;
  if (v instanceof ExtValue) return v.display();
  return String(v);
}


// ---- with documents (ToString.scala's Value.Doc cases) ----

/** Whether printing `v` reads a document. */
function readsDocs(v: RtValue): boolean {
  if (v instanceof ExtValue) return true;
  if (Array.isArray(v)) return v.some(readsDocs);
  if (v instanceof Map) for (const x of v.values()) if (readsDocs(x)) return true;
  return false;
}

/** `toDisplayString` in a query: a document prints its fields, as a struct. */
export function toDisplayStringIn(ctx: CallCtx, v: RtValue): string | Promise<string> {
  return readsDocs(v) ? debugIn(ctx, v, false) : toDisplayString(v);
}

/** `toDebugString` in a query. */
export function toDebugStringIn(ctx: CallCtx, v: RtValue): string | Promise<string> {
  return readsDocs(v) ? debugIn(ctx, v, false) : toDebugString(v);
}

/** A document prints its fields (`{ id: ID("1"), coll: User, ts: Time("…"), … }`); one inside them
 *  (`nested`) only its reference, `[doc 1 in User]`, so a cycle ends; a missing one is `null`. */
async function debugIn(ctx: CallCtx, v: RtValue, nested: boolean): Promise<string> {
  if (v instanceof ExtValue) {
    if (nested) return (await v.nullCause(ctx)) === undefined ? v.display() : 'null';
    const fields = await v.toStruct(ctx);
    return fields instanceof NullV ? 'null' : debugIn(ctx, fields, true);
  }
  if (Array.isArray(v)) {
    const parts: string[] = [];
    for (const x of v) parts.push(await debugIn(ctx, x, nested));
    return '[' + parts.join(', ') + ']';
  }
  if (v instanceof Map) {
    if (v.size === 0) return '{}';
    const parts: string[] = [];
    for (const [k, x] of v) parts.push(`${isIdent(k) ? k : escapeString(k)}: ${await debugIn(ctx, x, nested)}`);
    return '{ ' + parts.join(', ') + ' }';
  }
  return toDebugString(v);
}
