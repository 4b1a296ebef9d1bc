// One document of Fauna's snapshot export as a SourceDocument or SourceCredential. The export
// writes a document flat (ReadBroker.getAllFields, core ReadBroker.scala:557-630): `id`, `coll`,
// `ts`, `ttl` when set, then the user's fields at the top level. User fields whose names v10
// reserves (id, coll, ts, ttl, data, exists, delete, update, replace, updateData, replaceData:
// core fql Tokens.scala:43-60) stay inside a top-level `data` object (Schema.scala:239-271), so
// `data`'s fields are user fields too. Credentials are exported from the native collection named
// `Credential` (tasks/export/ExportInfo.scala:36) with `document` and, for export only,
// `hashed_password` (tasks/export/VersionFormatter.scala:36-49).

import type { JsonObject, JsonValue } from '../../wire/expr';
import { Ref, isObj, type Obj, type Time, type Value } from '../../values/types';
import { BadValue, checkId, recordItem } from './badValue';
import { decodeSimple, decodeTagged, simpleRefField, timeOf, type SimpleContext } from './exportValues';
import type { Origin, SourceItem } from './types';

export type Encoding = 'simple' | 'tagged';

/** The native collection of credentials, as the export names it. */
export const CREDENTIAL_COLLECTION = 'Credential';

const META = new Set(['id', 'coll', 'ts', 'ttl', 'data']);

export interface DocumentContext {
  readonly encoding: Encoding;
  /** For `simple`: the exported collections, and the count of objects taken as refs. */
  readonly simple: SimpleContext;
}

/** The record (text of one document) of a file of collection `fileColl` as an item: a document, a credential, or the problem. */
export function exportItem(text: string, fileColl: string, origin: Origin, ctx: DocumentContext): SourceItem {
  return recordItem(text, origin, (json) => toItem(json, fileColl, origin, ctx));
}

function toItem(json: JsonObject, fileColl: string, origin: Origin, ctx: DocumentContext): SourceItem {
  const id = checkId(json.get('id'), 'id');
  const coll = collName(json.get('coll'), ctx.encoding);
  if (coll !== fileColl) throw new BadValue('coll', `"${coll}" in a file of collection ${fileColl}`);
  const ts = optionalTime(json, 'ts', ctx.encoding);
  const ttl = optionalTime(json, 'ttl', ctx.encoding);
  const decode = (j: JsonValue, path: string): Value =>
    ctx.encoding === 'tagged' ? decodeTagged(j, path) : decodeSimple(j, ctx.simple, path);

  if (coll === CREDENTIAL_COLLECTION) return credential(json, id, ts, origin, ctx.encoding);

  const data: Obj = new Map();
  for (const [k, v] of json) if (!META.has(k)) data.set(k, decode(v, k));
  if (json.has('data')) {
    const reserved = decode(json.get('data')!, 'data');
    if (!isObj(reserved)) throw new BadValue('data', 'not an object (the export keeps user fields with reserved names there)');
    for (const [k, v] of reserved) {
      if (data.has(k)) throw new BadValue(`data.${k}`, 'also at the top level of the document');
      data.set(k, v);
    }
  }
  return { kind: 'document', doc: { collection: coll, id, ts, ttl, data, origin } };
}

function collName(j: JsonValue | undefined, encoding: Encoding): string {
  const name = encoding === 'tagged' && j instanceof Map && j.size === 1 ? j.get('@mod') : j;
  if (typeof name !== 'string' || name === '')
    throw new BadValue('coll', j === undefined ? 'missing' : encoding === 'tagged' ? 'not {"@mod": collection}' : 'not a collection name');
  return name;
}

function optionalTime(json: JsonObject, key: string, encoding: Encoding): Time | undefined {
  const j = json.get(key);
  if (j === undefined || j === null) return undefined;
  if (encoding === 'tagged') {
    const t = j instanceof Map && j.size === 1 && j.has('@time') ? decodeTagged(j, key) : undefined;
    if (t === undefined) throw new BadValue(key, 'not {"@time": …}');
    return t as Time;
  }
  return timeOf(j, key);
}

const CREDENTIAL_FIELDS = new Set(['id', 'coll', 'ts', 'document', 'instance', 'hashed_password']);

function credential(json: JsonObject, id: string, ts: Time | undefined, origin: Origin, encoding: Encoding): SourceItem {
  for (const k of json.keys()) if (!CREDENTIAL_FIELDS.has(k)) throw new BadValue(k, 'unexpected in a credential');
  // v10 shows the stored `instance` field as `document` (schema/NativeCollection.scala, Credential).
  const key = json.has('document') ? 'document' : 'instance';
  const j = json.get(key);
  if (j === undefined) throw new BadValue('document', 'missing: a credential names the document it logs in');
  const ref = encoding === 'tagged' ? decodeTagged(j, key) : simpleRefField(j, key);
  if (!(ref instanceof Ref) || !ref.isUserDocument) throw new BadValue(key, 'not a ref to a document of a user collection');
  const hashed = json.get('hashed_password');
  if (typeof hashed !== 'string' || hashed === '')
    throw new BadValue('hashed_password', 'missing: a credential without a password hash cannot log in, nothing to import');
  return {
    kind: 'credential',
    cred: { id, instance: { collection: ref.collection!.id, id: ref.id }, hashedPassword: hashed, ts, origin },
  };
}
