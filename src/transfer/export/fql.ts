// The FQL v4 queries of an export, as wire JSON text. Every read runs inside At(T, …), so the whole
// export is one snapshot however long it takes; cursors come back from a page and go out again as
// expressions (an object in a cursor must be written {"object": …} to be read as a value).

import type { JsonValue } from '../../wire/expr';
import { encodeAsExpr } from '../../wire/encode';
import { decodeLiteral } from '../../wire/decode';
import { jsonString } from '../../wire/json';

/** The native collections whose documents make up a database's schema, in an order they can be created in. */
export const SCHEMA_NATIVES = ['collections', 'indexes', 'functions', 'roles', 'access_providers'] as const;
export type SchemaNative = (typeof SCHEMA_NATIVES)[number];

export const NOW = '{"now":null}';

/** A wire value (a cursor as a page rendered it) as an expression that evaluates to it. */
export function valueExpr(j: JsonValue): string {
  return encodeAsExpr(decodeLiteral(j), { txnTs: 0n });
}

export const at = (ts: bigint, expr: string) => `{"at":${ts},"expr":${expr}}`;
export const nativeSet = (native: string) => `{${jsonString(native)}:null}`;
export const documents = (collection: string) => `{"documents":{"collection":${jsonString(collection)}}}`;

export function paginate(set: string, size: number, after?: JsonValue): string {
  return `{"paginate":${set},"size":${size}${after === undefined ? '' : `,"after":${valueExpr(after)}`}}`;
}

export const mapPage = (page: string, param: string, body: string) => `{"map":{"lambda":${jsonString(param)},"expr":${body}},"collection":${page}}`;
export const getVar = (name: string) => `{"get":{"var":${jsonString(name)}}}`;

/**
 * Each event of a document's history with the version's whole data: Events gives an update's
 * changed keys only, and an importer inserts whole versions, so each version is read as of its ts
 * (null for a delete, or where the version no longer reads: its ttl had passed).
 */
export function versionsOf(docExpr: string, size: number, after?: JsonValue): string {
  const e = '{"var":"e"}';
  const sel = (field: string) => `{"select":${jsonString(field)},"from":${e}}`;
  const version = `{"get":${sel('document')},"ts":${sel('ts')}}`;
  const data =
    `{"if":{"or":[{"equals":[${sel('action')},"delete"]},{"not":{"exists":${sel('document')},"ts":${sel('ts')}}}]},` +
    `"then":null,"else":{"select":"data","from":${version},"default":{"object":{}}}}`;
  const event = `{"object":{"ts":${sel('ts')},"action":${sel('action')},"document":${sel('document')},"data":${data}}}`;
  return mapPage(paginate(`{"events":${docExpr}}`, size, after), 'e', event);
}

/**
 * The documents of `collection` deleted at or before T (within retention), once each: a `remove`
 * event of Events(Documents(c)) at or before T whose document does not exist at T and whose last
 * event by T it is (a document deleted, created again and deleted again is listed at its last
 * deletion only). Event pages are not bounded by At (Flora lists events after T too), so
 * T bounds them here.
 */
export function deletedDocuments(collection: string, ts: bigint, size: number, after?: JsonValue): string {
  const e = '{"var":"e"}';
  const doc = `{"select":"document","from":${e}}`;
  const evTs = `{"select":"ts","from":${e}}`;
  const last = `{"select":["data",0,"ts"],"from":{"paginate":{"events":${doc}},"before":${ts + 1n},"size":1}}`;
  const keep =
    `{"and":[{"equals":[{"select":"action","from":${e}},"remove"]},{"lte":[${evTs},${ts}]},{"not":{"exists":${doc}}},{"equals":[${evTs},${last}]}]}`;
  return `{"filter":{"lambda":"e","expr":${keep}},"collection":${paginate(`{"events":${documents(collection)}}`, size, after)}}`;
}
