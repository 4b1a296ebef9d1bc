// The members the core's static environment lists (api/src/test/resources/
// static_environment_response_v1.json) for the globals and types the pure standard library owns,
// checked against what is implemented, so the gap is visible. Collections, documents, schema and
// event sources are other layers'.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STDLIB_GLOBALS } from '../../../src/fql10/stdlib/globals';
import { tableOf } from '../../../src/fql10/stdlib/dispatch';
import type { FieldTable } from '../../../src/fql10/runtime/table';
import { ModuleV, IdV, NullV, SetCursorV, type RtValue } from '../../../src/fql10/runtime/values';
import { ArraySet } from '../../../src/fql10/runtime/sets';
import { Bytes, DateV, Time, TxnTime } from '../../../src/values/types';
import { NULL_SPAN } from '../../../src/fql10/span';

const GLOBALS: readonly string[] = ["AccessProvider", "Array", "Boolean", "Bytes", "Collection", "Credential", "Credentials", "Database", "Date", "Doc", "Double", "EventSource", "FQL", "Float", "Function", "ID", "Int", "Key", "Long", "Math", "Null", "Number", "Object", "Query", "Role", "Set", "SetCursor", "String", "Struct", "Time", "Token", "TransactionTime", "UUID", "abort", "asc", "dbg", "desc", "log", "newId"];

const MEMBERS: Readonly<Record<string, readonly string[]>> = {
  "Array": ["aggregate", "any", "append", "at", "concat", "distinct", "drop", "entries", "every", "filter", "first", "firstWhere", "flatMap", "flatten", "fold", "foldRight", "forEach", "includes", "indexOf", "indexWhere", "isEmpty", "last", "lastIndexOf", "lastIndexWhere", "lastWhere", "length", "map", "nonEmpty", "order", "prepend", "reduce", "reduceRight", "reverse", "slice", "take", "toSet", "toString", "where", "[]"],
  "ArrayModule": ["sequence"],
  "Boolean": ["toString", "op !", "op &&", "op ||"],
  "BooleanModule": [],
  "Bytes": ["toBase64", "toString"],
  "BytesModule": ["fromBase64", "apply"],
  "Date": ["add", "dayOfMonth", "dayOfWeek", "dayOfYear", "difference", "month", "subtract", "toString", "year"],
  "DateModule": ["fromString", "today", "apply"],
  "Double": ["toString", "op %", "op &", "op *", "op **", "op -", "op /", "op ^", "op |", "op ~"],
  "DoubleModule": [],
  "Float": ["toString", "op %", "op &", "op *", "op **", "op -", "op /", "op ^", "op |", "op ~"],
  "FloatModule": [],
  "ID": ["toString"],
  "IDModule": ["apply"],
  "Int": ["toString", "op %", "op &", "op *", "op **", "op -", "op /", "op ^", "op |", "op ~"],
  "IntModule": [],
  "Long": ["toString", "op %", "op &", "op *", "op **", "op -", "op /", "op ^", "op |", "op ~"],
  "LongModule": [],
  "MathModule": ["E", "Infinity", "NaN", "PI", "abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "degrees", "exp", "floor", "hypot", "log", "log10", "max", "mean", "min", "pow", "radians", "round", "sign", "sin", "sinh", "sqrt", "sum", "tan", "tanh", "trunc"],
  "Null": ["toString", "[]"],
  "NullModule": [],
  "Number": ["toString", "op %", "op &", "op *", "op **", "op -", "op /", "op ^", "op |", "op ~"],
  "NumberModule": [],
  "ObjectModule": ["assign", "entries", "fromEntries", "hasPath", "keys", "select", "toString", "values"],
  "QueryModule": ["identity", "isEnvProtected", "isEnvTypechecked", "token"],
  "Set": ["aggregate", "any", "changesOn", "concat", "count", "distinct", "drop", "eventSource", "eventsOn", "every", "first", "firstWhere", "flatMap", "fold", "foldRight", "forEach", "includes", "isEmpty", "last", "lastWhere", "map", "nonEmpty", "order", "pageSize", "paginate", "reduce", "reduceRight", "reverse", "take", "toArray", "toSet", "toStream", "toString", "where"],
  "SetModule": ["paginate", "sequence", "single"],
  "SetCursor": ["toString"],
  "SetCursorModule": [],
  "String": ["at", "casefold", "concat", "endsWith", "includes", "includesRegex", "indexOf", "indexOfRegex", "insert", "lastIndexOf", "length", "matchIndexes", "matches", "parseDouble", "parseInt", "parseLong", "parseNumber", "replace", "replaceAll", "replaceAllRegex", "replaceRegex", "slice", "split", "splitAt", "splitRegex", "startsWith", "toLowerCase", "toString", "toUpperCase", "[]"],
  "StringModule": [],
  "StructModule": [],
  "Time": ["add", "dayOfMonth", "dayOfWeek", "dayOfYear", "difference", "hour", "minute", "month", "second", "subtract", "toMicros", "toMillis", "toSeconds", "toString", "year"],
  "TimeModule": ["epoch", "fromString", "now", "apply"],
  "TransactionTime": ["toString"],
  "TransactionTimeModule": ["apply"],
  "object": ["[]"],
};

/** A value of each prototype type, to find its table. */
const SAMPLES: Readonly<Record<string, RtValue>> = {
  Array: [],
  Boolean: true,
  Bytes: new Bytes(new Uint8Array()),
  Date: new DateV(0),
  Double: 1.5,
  Float: 1.5,
  ID: new IdV(1n),
  Int: 1n,
  Long: 2n ** 40n,
  Null: NullV.lit(NULL_SPAN),
  Number: 1n,
  Set: new ArraySet([]),
  SetCursor: new SetCursorV('c'),
  String: '',
  Time: new Time(0n),
  TransactionTime: TxnTime.instance,
  object: new Map(),
};

function tableFor(type: string): FieldTable | undefined {
  if (type.endsWith('Module')) {
    const m = STDLIB_GLOBALS.get(type.slice(0, -'Module'.length));
    return m instanceof ModuleV ? m.table : undefined;
  }
  const sample = SAMPLES[type];
  return sample === undefined ? undefined : tableOf(sample);
}

function has(t: FieldTable, member: string): boolean {
  if (member === 'apply') return t.applyImpl !== undefined;
  if (member === '[]') return t.accessImpl !== undefined;
  if (member.startsWith('op ')) return t.ops.has(member.slice(3));
  return t.hasResolver(member);
}

/** What is listed but not implemented here. */
const KNOWN_GAPS: Readonly<Record<string, readonly string[]>> = {};

test('every listed member of the modules and types the standard library owns is implemented', () => {
  const report: string[] = [];
  const missing: Record<string, string[]> = {};
  for (const [type, members] of Object.entries(MEMBERS)) {
    const t = tableFor(type);
    assert.ok(t !== undefined, `no table for ${type}`);
    const gaps = members.filter((m) => !has(t, m));
    report.push(`${type}: ${members.length - gaps.length}/${members.length}${gaps.length > 0 ? ` (missing ${gaps.join(', ')})` : ''}`);
    if (gaps.length > 0) missing[type] = gaps;
  }
  console.log(report.join('\n'));
  assert.deepEqual(missing, Object.fromEntries(Object.entries(KNOWN_GAPS).filter(([, v]) => v.length > 0)));
});

test('the globals the standard library owns are defined', () => {
  const theirs = new Set(['AccessProvider', 'Collection', 'Credential', 'Credentials', 'Database', 'Doc', 'EventSource', 'Function', 'Key', 'Role', 'Token', 'UUID']);
  const missing = GLOBALS.filter((g) => !theirs.has(g) && !STDLIB_GLOBALS.has(g));
  assert.deepEqual(missing, []);
});
