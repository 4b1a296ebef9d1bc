// The FQL (wire JSON text) an import sends: each write guarded so that running it again changes
// nothing (a resumed import skips what is there), each answering what it did.

import { jsonString } from '../../wire/json';
import { encodeAsExpr } from '../../wire/encode';
import { Ref, type Obj, type Value } from '../../values/types';
import type { FloraItem, SourceCredential, SourceDocument } from '../sources';
import type { SchemaKind } from '../schemaFiles';

export type VersionItem = FloraItem & { kind: 'version' };

const ENCODE = { txnTs: 0n };

export function docRef(collection: string, id: string): string {
  return `{"ref":{"collection":${jsonString(collection)}},"id":${jsonString(id)}}`;
}

/**
 * The document with its id, and its ts where the source kept one (Insert of a create at that
 * time, so its history starts there); "skip" when the id is taken, "new" when written.
 */
export function putDocument(doc: SourceDocument): string {
  const ref = docRef(doc.collection, doc.id);
  let params = `"data":${encodeAsExpr(doc.data, ENCODE)}`;
  if (doc.ttl) params += `,"ttl":${encodeAsExpr(doc.ttl, ENCODE)}`;
  const write =
    doc.ts !== undefined
      ? `{"insert":${ref},"ts":${doc.ts.micros},"action":"create","params":{"object":{${params}}}}`
      : `{"create":${ref},"params":{"object":{${params}}}}`;
  return `{"if":{"exists":${ref}},"then":"skip","else":{"do":[${write},"new"]}}`;
}

/**
 * One version of a document's history, written at its time (Insert: a version already at that time
 * is replaced, so writing it again changes nothing); answers "new".
 */
export function putVersion(v: VersionItem): string {
  const ref = docRef(v.collection, v.id);
  const params = v.data ? `{"object":{"data":${encodeAsExpr(v.data, ENCODE)}}}` : '{"object":{}}';
  return `{"do":[{"insert":${ref},"ts":${v.ts.micros},"action":${jsonString(v.action)},"params":${params}},"new"]}`;
}

/** Credentials for a document, with the BCrypt hash as it was (its owner's password still works). */
export function putCredential(cred: SourceCredential): string {
  const instance = docRef(cred.instance.collection, cred.instance.id);
  return `{"do":[{"create":{"credentials":null},"params":{"object":{"instance":${instance},"hashed_password":${jsonString(cred.hashedPassword)}}}},"new"]}`;
}

/**
 * A schema document by name, created unless one of that name exists: true when created. `kind` is
 * both the ref function (`Collection(name)`) and, after `create_`, the create function.
 */
export function ensureNamed(kind: SchemaKind | 'database', name: string, params = `{"object":{"name":${jsonString(name)}}}`): string {
  return `{"if":{"exists":{"${kind}":${jsonString(name)}}},"then":false,"else":{"do":[{"create_${kind}":${params}},true]}}`;
}

/** One page of the instances that have credentials, as `collection/id` strings with the cursor after it. */
export function credentialInstancesPage(after: string | undefined): string {
  const page = `{"paginate":{"credentials":null},"size":1000${after ? `,"after":${after}` : ''}}`;
  return `{"map":{"lambda":"c","expr":{"select":["instance"],"from":{"get":{"var":"c"}}}},"collection":${page}}`;
}

/** Statements run in one transaction, answering an array of their answers (Do answers the last only). */
export function batch(statements: readonly string[]): string {
  return `[${statements.join(',')}]`;
}

/** The user collections that refs inside `data` point into (they must exist before it is written). */
export function referencedCollections(data: Value, into = new Set<string>()): Set<string> {
  if (data instanceof Ref) {
    if (data.isUserDocument && data.collection!.database === undefined) into.add(data.collection!.id);
  } else if (Array.isArray(data)) for (const v of data) referencedCollections(v, into);
  else if (data instanceof Map) for (const v of (data as Obj).values()) referencedCollections(v, into);
  return into;
}
