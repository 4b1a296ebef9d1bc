// Documents in Fauna's snapshot-export form (what transfer/sources reads back): flat records with
// `id`, `coll`, `ts`, `ttl`, then the user's fields at the top level, those whose names v10
// reserves inside a `data` object; values in the `tagged` encoding (every non-JSON type wrapped:
// @int, @long, @double, @time, @date, @bytes, @mod, @ref, @object) or the `simple` one (the same
// unwrapped). v4 values with no v10 form (sets, lambdas, refs to indexes or to other databases)
// cannot be written, and say where they are.

import { CREDENTIAL_COLLECTION, type Encoding } from '../sources/exportDocument';
import { NATIVE_MODULES } from '../sources/exportValues';
import { formatDouble } from '../../wire/encode';
import { jsonString } from '../../wire/json';
import { formatDate, formatTime } from '../../wire/time';
import { Bytes, DateV, Ref, Time, type Obj, type Value } from '../../values/types';

/** User fields that v10 keeps inside `data` (core: fql Tokens.scala:43-60, Schema.toExternalData). */
export const RESERVED_FIELDS: ReadonlySet<string> = new Set(['id', 'coll', 'ts', 'ttl', 'data', 'delete', 'update', 'replace', 'updateData', 'replaceData', 'exists']);

/** A value the layout cannot hold: `where` names the field. */
export class NoFaunaForm extends Error {}

const MODULE_OF: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(NATIVE_MODULES).map(([mod, native]) => [native, mod]));
const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;

/** A value as the export writes it in `enc`. */
export function faunaValue(v: Value, enc: Encoding, where: string): string {
  const tag = (t: string, inner: string) => (enc === 'tagged' ? `{"${t}":${inner}}` : inner);
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return jsonString(v);
  if (typeof v === 'bigint') return enc === 'tagged' ? `{"${v >= INT_MIN && v <= INT_MAX ? '@int' : '@long'}":"${v}"}` : v.toString();
  if (typeof v === 'number') {
    const text = formatDouble(v);
    return enc === 'tagged' ? `{"@double":"${text}"}` : Number.isFinite(v) ? text : jsonString(text);
  }
  if (Array.isArray(v)) return `[${v.map((x, i) => faunaValue(x, enc, `${where}[${i}]`)).join(',')}]`;
  if (v instanceof Map) {
    const fields = [...(v as Obj)].map(([k, x]) => `${jsonString(k)}:${faunaValue(x, enc, where ? `${where}.${k}` : k)}`).join(',');
    const escape = enc === 'tagged' && [...v.keys()].some((k) => k.startsWith('@'));
    return escape ? `{"@object":{${fields}}}` : `{${fields}}`;
  }
  if (v instanceof Time) return tag('@time', jsonString(formatTime(v.nanos)));
  if (v instanceof DateV) return tag('@date', jsonString(formatDate(v.days)));
  if (v instanceof Bytes) return tag('@bytes', jsonString(Buffer.from(v.bytes).toString('base64')));
  if (v instanceof Ref) return faunaRef(v, enc, where);
  throw new NoFaunaForm(`${where}: a ${v?.constructor?.name ?? typeof v} value has no form in Fauna's snapshot export (use --format flora)`);
}

function faunaRef(r: Ref, enc: Encoding, where: string): string {
  const mod = (name: string) => (enc === 'tagged' ? `{"@mod":${jsonString(name)}}` : jsonString(name));
  const wrap = (inner: string) => (enc === 'tagged' ? `{"@ref":${inner}}` : inner);
  const cannot = (what: string) => new NoFaunaForm(`${where}: ${what} has no form in Fauna's snapshot export (use --format flora)`);
  if (r.database || r.collection?.database) throw cannot(`the ref ${r.toString()} into another database`);
  if (r.isNativeCollection) {
    const m = MODULE_OF[r.id];
    if (!m) throw cannot(`the ref to native collection ${r.id}`);
    return mod(m);
  }
  if (r.isUserDocument) return wrap(`{"id":${jsonString(r.id)},"coll":${mod(r.collection!.id)}}`);
  const native = r.nativeParent!;
  if (native === 'keys' || native === 'tokens' || native === 'credentials') return wrap(`{"id":${jsonString(r.id)},"coll":${mod(MODULE_OF[native])}}`);
  const m = native === 'collections' ? 'Collection' : MODULE_OF[native];
  if (!m) throw cannot(`the ref ${r.toString()}`);
  return wrap(`{"name":${jsonString(r.id)},"coll":${mod(m)}}`);
}

/** A document (as v4's Get gives it: ref's collection and id, ts, ttl, data) as an export record. */
export function faunaDocument(coll: string, id: string, ts: Time, ttl: Time | undefined, data: Obj, enc: Encoding): string {
  const where = `document ${coll}/${id}`;
  let out = `{"id":${jsonString(id)},"coll":${enc === 'tagged' ? `{"@mod":${jsonString(coll)}}` : jsonString(coll)},"ts":${faunaValue(ts, enc, where)}`;
  if (ttl) out += `,"ttl":${faunaValue(ttl, enc, where)}`;
  const reserved: Obj = new Map();
  for (const [k, v] of data) {
    if (RESERVED_FIELDS.has(k)) reserved.set(k, v);
    else out += `,${jsonString(k)}:${faunaValue(v, enc, `${where}: field ${k}`)}`;
  }
  if (reserved.size > 0) out += `,"data":${faunaValue(reserved, enc, `${where}: data`)}`;
  return out + '}';
}

/** A credential as the export writes it: collection `Credential`, `document` the ref it logs in. */
export function faunaCredential(id: string, ts: Time, document: Ref, hashedPassword: string, enc: Encoding): string {
  const coll = enc === 'tagged' ? `{"@mod":"${CREDENTIAL_COLLECTION}"}` : `"${CREDENTIAL_COLLECTION}"`;
  const where = `credential ${id}`;
  return `{"id":${jsonString(id)},"coll":${coll},"ts":${faunaValue(ts, enc, where)},"document":${faunaValue(document, enc, where)},"hashed_password":${jsonString(hashedPassword)}}`;
}
