// Type checks of FQL v4 (fql-v4.md §3.12): `{"is_<type>": value}` → Boolean, never an error.
// Registered with define() at module load.
//
// Documents are plain Objs here (ref, ts, …), so "a document" is an Obj whose `ref` is a
// document ref and whose `ts` is a timestamp; it is an Object too.

import { define } from '../registry';
import { evalArg } from '../args';
import {
  Bytes,
  DateV,
  Lambda,
  Page,
  Ref,
  SetV,
  Time,
  TxnTime,
  type Value,
} from '../../values/types';

/** A ref to a document of any collection (user, schema, key, token, credentials). */
function isDocRef(v: Value | undefined): v is Ref {
  return v instanceof Ref && v.collection !== undefined;
}

/** A document (version) object as Get/Create/… return it. */
function isDocObject(v: Value): boolean {
  if (!(v instanceof Map)) return false;
  const ts = v.get('ts');
  return isDocRef(v.get('ref')) && (typeof ts === 'bigint' || ts instanceof TxnTime);
}

/** The document ref of a ref or document value. */
function docRefOf(v: Value): Ref | undefined {
  if (isDocRef(v)) return v;
  if (isDocObject(v)) return (v as Map<string, Value>).get('ref') as Ref;
  return undefined;
}

function check(head: string, test: (v: Value) => boolean): void {
  define(head, async (call, env, ctx) => test(await evalArg(call, head, env, ctx)));
}

/** is_<x>: a ref to, or a document of, the native collection `native`. */
function nativeCheck(head: string, native: string): void {
  check(head, (v) => docRefOf(v)?.nativeParent === native);
}

check('is_number', (v) => typeof v === 'bigint' || typeof v === 'number');
check('is_double', (v) => typeof v === 'number');
check('is_integer', (v) => typeof v === 'bigint');
check('is_boolean', (v) => typeof v === 'boolean');
check('is_null', (v) => v === null);
check('is_bytes', (v) => v instanceof Bytes);
check('is_timestamp', (v) => v instanceof Time || v instanceof TxnTime);
check('is_date', (v) => v instanceof DateV);
check('is_string', (v) => typeof v === 'string'); // action values are strings too
check('is_array', (v) => Array.isArray(v));
check('is_object', (v) => v instanceof Map || v instanceof Page); // also documents, events, cursors
check('is_ref', (v) => v instanceof Ref);
// Native collection refs (Collections(), Keys(), …) are sets of their documents.
check('is_set', (v) => v instanceof SetV || (v instanceof Ref && v.isNativeCollection));
check('is_doc', (v) => docRefOf(v) !== undefined);
check('is_lambda', (v) => v instanceof Lambda);

nativeCheck('is_collection', 'collections');
nativeCheck('is_database', 'databases');
nativeCheck('is_index', 'indexes');
nativeCheck('is_function', 'functions');
nativeCheck('is_key', 'keys');
nativeCheck('is_token', 'tokens');
nativeCheck('is_credentials', 'credentials');
nativeCheck('is_role', 'roles');
