// Where a database's GraphQL schema lives: one unversioned metadata entry per database (scope id),
// `<version>\n<effective SDL>`. The version names the import that wrote it, so the built schema
// can be cached by version; the text is read in the request's transaction, so a request sees the
// schema of its snapshot. (Metadata keys are per scope id, and scope ids are never reused.)

import type { Txn } from '../storage/types';
import { randomUUID } from 'node:crypto';

const PREFIX = 'gqlschema:';

export function schemaKey(db: bigint): Uint8Array {
  const b = Buffer.alloc(PREFIX.length + 8);
  b.write(PREFIX, 0, 'latin1');
  b.writeBigUInt64BE(BigInt.asUintN(64, db), PREFIX.length);
  return b;
}

export interface StoredSchema {
  version: string;
  /** Loads the SDL text (only needed when the version is not cached). */
  sdl(): string;
}

export async function readSchema(txn: Txn, db: bigint): Promise<StoredSchema | undefined> {
  const raw = await txn.getMeta(schemaKey(db));
  if (!raw || raw.length === 0) return undefined;
  const buf = Buffer.from(raw.buffer, raw.byteOffset, raw.length);
  const nl = buf.indexOf(10);
  const version = buf.toString('latin1', 0, nl < 0 ? buf.length : nl);
  return { version, sdl: () => (nl < 0 ? '' : buf.toString('utf8', nl + 1)) };
}

/** Stores `sdl` as the database's schema; returns its new version. */
export function writeSchema(txn: Txn, db: bigint, sdl: string): string {
  const version = randomUUID();
  txn.putMeta(schemaKey(db), Buffer.from(`${version}\n${sdl}`, 'utf8'));
  return version;
}
