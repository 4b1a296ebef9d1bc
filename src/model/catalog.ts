// The schema of each database (databases, collections, indexes, functions, roles, access
// providers: named documents in native collections), cached per database.
//
// A cached schema is used only when no schema change committed after it was built and the reading
// transaction's snapshot is not older than the last change; a transaction that changed a
// database's schema reads that schema straight from its own transaction.

import type { Txn, Version } from '../storage/types';
import { NAMED_NATIVES, TxnTime, type NamedNative, type NativeName, type Obj } from '../values/types';

/** Internal collection ids of the native collections (user collections start at 1024). */
export const NATIVE_IDS: Record<NativeName, number> = {
  databases: 1,
  collections: 2,
  indexes: 3,
  functions: 4,
  roles: 5,
  access_providers: 6,
  keys: 7,
  tokens: 8,
  credentials: 9,
};

export { NAMED_NATIVES, type NamedNative };

/** User collections get internal ids 1024…32767 (fql-v4.md §4.1). */
export const FIRST_USER_COLLECTION_ID = 1024;
export const LAST_USER_COLLECTION_ID = 32767;

export interface SchemaEntry {
  native: NamedNative;
  /** Internal id: the document id inside the native collection (a child's scope id for databases). */
  id: bigint;
  name: string;
  fields: Obj;
  ts: bigint | TxnTime;
}

export class DbSchema {
  private readonly byName = new Map<NamedNative, Map<string, SchemaEntry>>();
  private readonly byId = new Map<NamedNative, Map<bigint, SchemaEntry>>();

  add(e: SchemaEntry): void {
    let names = this.byName.get(e.native);
    if (!names) this.byName.set(e.native, (names = new Map()));
    names.set(e.name, e);
    let ids = this.byId.get(e.native);
    if (!ids) this.byId.set(e.native, (ids = new Map()));
    ids.set(e.id, e);
  }

  get(native: NamedNative, name: string): SchemaEntry | undefined {
    return this.byName.get(native)?.get(name);
  }

  getById(native: NamedNative, id: bigint): SchemaEntry | undefined {
    return this.byId.get(native)?.get(id);
  }

  all(native: NamedNative): SchemaEntry[] {
    return [...(this.byName.get(native)?.values() ?? [])];
  }
}

interface CacheEntry {
  builtAt: bigint;
  schema: DbSchema;
}

export function schemaConflictKey(db: bigint): string {
  return `schema:${db}`;
}

export class Catalog {
  private readonly cache = new Map<bigint, CacheEntry>();
  private readonly lastChange = new Map<bigint, bigint>();

  /** The schema of `db` as `txn` sees it. `ownWrites` = the txn changed this db's schema. */
  async schema(txn: Txn, db: bigint, ownWrites: boolean): Promise<DbSchema> {
    txn.readConflictKey(schemaConflictKey(db));
    const S = txn.snapshotTs;
    const last = this.lastChange.get(db) ?? 0n;
    if (!ownWrites) {
      const hit = this.cache.get(db);
      if (hit && hit.builtAt >= last && S >= last) return hit.schema;
    }
    const schema = await loadSchema(txn, db);
    if (!ownWrites && S >= last) this.cache.set(db, { builtAt: S, schema });
    return schema;
  }

  /** Called once a transaction that changed these databases' schema is durable at `ts`. */
  changed(dbs: Iterable<bigint>, ts: bigint): void {
    for (const db of dbs) {
      this.lastChange.set(db, ts);
      this.cache.delete(db);
    }
  }
}

async function loadSchema(txn: Txn, db: bigint): Promise<DbSchema> {
  const schema = new DbSchema();
  for (const native of NAMED_NATIVES) {
    for await (const doc of txn.scan(db, NATIVE_IDS[native])) {
      schema.add(entryOf(native, doc.id, doc.version));
    }
  }
  return schema;
}

export function entryOf(native: NamedNative, id: bigint, version: Version): SchemaEntry {
  const fields = version.data ?? new Map();
  const name = fields.get('name');
  return { native, id, name: typeof name === 'string' ? name : String(id), fields, ts: version.ts };
}
