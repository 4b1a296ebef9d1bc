// Values between storage and a running query (IRValueConversion.scala): what a document stores
// (v4's values: `Ref`s, maps, …) as runtime values and back, and stored fields straight into the
// response's values (documents inside a document render as references, never read).

import { Bytes, DateV, Ref, Time, TxnTime, type Obj, type Value } from '../../values/types';
import { DELETED_COLLECTION, DocRef, Module, NamedRef, type MObject, type MValue } from '../../wire/v10/model';
import { QueryRuntimeFailure, type Trace } from '../runtime/failure';
import { typeName } from '../runtime/types';
import { isFunc, NullV, SmallLong, type RtValue } from '../runtime/values';
import { NULL_SPAN } from '../span';
import { DocV } from './docs';
import { CollectionDefV } from './collectionDocs';

/** A stored ref as a runtime value: a user document, a collection definition, else its text. */
function refValue(r: Ref): RtValue {
  if (r.isUserDocument && r.addr !== undefined) return new DocV(r.addr.db, BigInt(r.addr.coll), r.collection!.id, r.addr.id);
  if (r.nativeParent === 'collections' && r.addr !== undefined) return new CollectionDefV(r.addr.db, r.id);
  return `[legacy ref ${r.toString()}]`;
}

/** A stored value as a query sees it. */
export function toRuntime(v: Value): RtValue {
  if (v === null) return new NullV({ kind: 'lit', span: NULL_SPAN });
  switch (typeof v) {
    case 'boolean':
    case 'string':
    case 'bigint':
    case 'number':
      return v;
  }
  if (Array.isArray(v)) return v.map(toRuntime);
  if (v instanceof Map) {
    const out = new Map<string, RtValue>();
    for (const [k, x] of v) out.set(k, toRuntime(x));
    return out;
  }
  if (v instanceof Time || v instanceof DateV || v instanceof Bytes || v instanceof TxnTime) return v;
  if (v instanceof Ref) return refValue(v);
  return `[legacy ${v.constructor.name.toLowerCase()}]`;
}

/** A stored value for the response, inside a document's fields. */
export function storedToResponse(v: Value): MValue {
  if (v === null) return null;
  switch (typeof v) {
    case 'boolean':
    case 'string':
    case 'bigint':
    case 'number':
      return v;
  }
  if (Array.isArray(v)) return v.map(storedToResponse);
  if (v instanceof Map) {
    const out: MObject = new Map();
    for (const [k, x] of v) out.set(k, storedToResponse(x));
    return out;
  }
  if (v instanceof Time || v instanceof DateV || v instanceof Bytes || v instanceof TxnTime) return v;
  if (v instanceof Ref) {
    if (v.isUserDocument && v.addr !== undefined) {
      const coll = v.collection!;
      return new DocRef(coll.dangling ? DELETED_COLLECTION : new Module(coll.id), String(v.addr.id));
    }
    if (v.nativeParent === 'collections') return new NamedRef(new Module('Collection'), v.id);
    return `[legacy ref ${v.toString()}]`;
  }
  return `[legacy ${v.constructor.name.toLowerCase()}]`;
}

function nonPersistable(path: (string | number)[], v: RtValue, trace: Trace | null): QueryRuntimeFailure {
  if (isFunc(v))
    return new QueryRuntimeFailure('invalid_type', 'Anonymous functions cannot be stored. Use a string of FQL instead.', trace);
  const shown = path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
  return new QueryRuntimeFailure('invalid_type', `Value at \`${shown}\` has type ${typeName(v)}, which cannot be persisted.`, trace);
}

/** A runtime value to store (Value.toIR): documents become refs; functions, sets, IDs and modules
 *  cannot be stored. */
export function toStored(v: RtValue, trace: Trace | null, path: (string | number)[] = []): Value {
  switch (typeof v) {
    case 'boolean':
    case 'string':
    case 'bigint':
    case 'number':
      return v;
  }
  if (v instanceof NullV) return null;
  // Storage has one integer type (the core's LongV): a Long read back is an Int when it fits.
  if (v instanceof SmallLong) return v.value;
  if (Array.isArray(v)) return v.map((x, i) => toStored(x, trace, [...path, i]));
  if (v instanceof Map) {
    const out: Obj = new Map();
    for (const [k, x] of v) out.set(k, toStored(x, trace, [...path, k]));
    return out;
  }
  if (v instanceof Time || v instanceof DateV || v instanceof Bytes || v instanceof TxnTime) return v;
  if (v instanceof DocV) return v.storedRef();
  throw nonPersistable(path, v, trace);
}
