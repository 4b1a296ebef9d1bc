// Where a database's GraphQL schema lives: one unversioned metadata entry per database (scope id),
// `<version>\n@ids <json>\n<effective SDL>`. The version names the import that wrote it, so the
// built schema can be cached by version; the text is read in the request's transaction, so a
// request sees the schema of its snapshot. (Metadata keys are per scope id, and scope ids are never
// reused.) `@ids` binds each collection, index and function the schema uses to its internal id, so
// a rename of one keeps the API working; a schema stored before it (no line) goes by name.

import type { Txn } from '../storage/types';
import { randomUUID } from 'node:crypto';

export const PREFIX = 'gqlschema:';

export function schemaKey(db: bigint): Uint8Array {
  const b = Buffer.alloc(PREFIX.length + 8);
  b.write(PREFIX, 0, 'latin1');
  b.writeBigUInt64BE(BigInt.asUintN(64, db), PREFIX.length);
  return b;
}

/** Internal ids (decimal) of the schema documents an imported schema uses, by the name it uses. */
export interface SchemaIds {
  collections: Record<string, string>;
  indexes: Record<string, string>;
  functions: Record<string, string>;
}

export interface StoredSchema {
  version: string;
  /** Loads the SDL text (only needed when the version is not cached). */
  sdl(): string;
  /** The ids it binds names to (undefined for a schema stored before there were any). */
  ids(): SchemaIds | undefined;
}

const IDS = '@ids ';

export async function readSchema(txn: Txn, db: bigint): Promise<StoredSchema | undefined> {
  const raw = await txn.getMeta(schemaKey(db));
  return raw && raw.length > 0 ? parseStored(raw) : undefined;
}

/** The stored record's parts (the SDL and ids are decoded only when asked for). */
export function parseStored(raw: Uint8Array): StoredSchema {
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.length);
  const nl = buf.indexOf(10);
  const version = buf.toString('latin1', 0, nl < 0 ? buf.length : nl);
  if (nl < 0) return { version, sdl: () => '', ids: () => undefined };
  const bound = buf.toString('latin1', nl + 1, nl + 1 + IDS.length) === IDS;
  const eol = bound ? buf.indexOf(10, nl + 1) : nl;
  return {
    version,
    sdl: () => buf.toString('utf8', eol + 1),
    ids: () => (bound ? (JSON.parse(buf.toString('utf8', nl + 1 + IDS.length, eol)) as SchemaIds) : undefined),
  };
}

export function storedRecord(version: string, sdl: string, ids: SchemaIds): Uint8Array {
  return Buffer.from(`${version}\n${IDS}${JSON.stringify(ids)}\n${sdl}`, 'utf8');
}

/** Stores `sdl` as the database's schema; returns its new version. */
export function writeSchema(txn: Txn, db: bigint, sdl: string, ids: SchemaIds): string {
  const version = randomUUID();
  txn.putMeta(schemaKey(db), storedRecord(version, sdl, ids));
  return version;
}
