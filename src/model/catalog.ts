// The schema of each database (databases, collections, indexes, functions, roles, access
// providers: named documents in native collections), cached per database.
//
// A cached schema is used only when no schema change committed after it was built and the reading
// transaction's snapshot is not older than the last change; a transaction that changed a
// database's schema reads that schema straight from its own transaction.

import type { Txn, Version } from '../storage/types';
import { FIRST_USER_COLLECTION_ID, NAMED_NATIVES, NATIVE_IDS, TxnTime, type NamedNative, type Obj } from '../values/types';
import { named, RefNames } from './refNames';
import { migratingCollections } from './schema10/migrationState';

export { FIRST_USER_COLLECTION_ID, NAMED_NATIVES, NATIVE_IDS, type NamedNative };

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
  /** Time of the newest schema change (a delete too): reads at or after it see this same schema. */
  lastTs: bigint | TxnTime = 0n;
  /** Other databases whose names this schema's documents show (refs into child databases). */
  readonly deps = new Set<bigint>();
  /** Internal ids of the collections being migrated in the background (schema10/migrationState.ts). */
  migrating: ReadonlySet<number> = new Set();
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

  *entries(): IterableIterator<SchemaEntry> {
    for (const ids of this.byId.values()) yield* ids.values();
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
  /** A change of every database's schema (this process lost track of other processes' commits). */
  private everything = 0n;

  /** The schema of `db` as `txn` sees it. `ownWrites` = the txn changed this db's schema. */
  async schema(txn: Txn, db: bigint, ownWrites: boolean): Promise<DbSchema> {
    const hit = this.cached(txn, db, ownWrites);
    if (hit) return hit;
    const S = txn.snapshotTs;
    const schema = await this.load(txn, db, undefined, ownWrites);
    if (!ownWrites && S >= this.changedAt(db, schema)) this.cache.set(db, { builtAt: S, schema });
    return schema;
  }

  /** `schema` when the cache can answer it (no await): what naming stored refs needs on every read. */
  cached(txn: Txn, db: bigint, ownWrites: boolean): DbSchema | undefined {
    txn.readConflictKey(schemaConflictKey(db));
    if (ownWrites) return undefined;
    const hit = this.cache.get(db);
    if (!hit) return undefined;
    // Built after the last change it depends on, and read by a snapshot that sees that change too.
    const last = this.changedAt(db, hit.schema);
    return hit.builtAt >= last && txn.snapshotTs >= last ? hit.schema : undefined;
  }

  /** The schema of `db` as of `at` (before the snapshot): names as they were then. Not cached. */
  schemaAt(txn: Txn, db: bigint, at: bigint): Promise<DbSchema> {
    return this.load(txn, db, at, false);
  }

  /** Called once a transaction that changed these databases' schema is durable at `ts`. */
  changed(dbs: Iterable<bigint>, ts: bigint): void {
    for (const db of dbs) {
      this.lastChange.set(db, ts);
      this.cache.delete(db);
    }
  }

  /** Every cached schema may be stale as of `ts`. */
  changedAll(ts: bigint): void {
    if (ts > this.everything) this.everything = ts;
    this.cache.clear();
  }

  private changedAt(db: bigint, schema: DbSchema): bigint {
    let last = this.lastChange.get(db) ?? 0n;
    if (this.everything > last) last = this.everything;
    for (const dep of schema.deps) {
      const t = this.lastChange.get(dep) ?? 0n;
      if (t > last) last = t;
    }
    return last;
  }

  /** Reads the schema documents (refs anonymous), then names the refs inside them. */
  private async load(txn: Txn, db: bigint, at: bigint | undefined, ownWrites: boolean): Promise<DbSchema> {
    const schema = await loadSchema(txn, db, at);
    const names = new RefNames({ txn, catalog: this, schemaWrites: { has: () => ownWrites }, schemaGeneration: 0 }, db);
    names.seed(db, schema);
    const when = at ?? txn.snapshotTs;
    for (const entry of schema.entries()) entry.fields = await named(names, entry.fields, when);
    for (const dep of names.visited()) if (dep !== db) schema.deps.add(dep);
    return schema;
  }
}

async function loadSchema(txn: Txn, db: bigint, at: bigint | undefined): Promise<DbSchema> {
  const schema = new DbSchema();
  for (const native of NAMED_NATIVES) {
    for await (const doc of txn.scan(db, NATIVE_IDS[native], { at, withDeleted: true, anonymousRefs: true })) {
      const ts = doc.version.ts;
      if (ts instanceof TxnTime || (typeof schema.lastTs === 'bigint' && ts > schema.lastTs)) schema.lastTs = ts;
      if (doc.version.action !== 'delete') schema.add(entryOf(native, doc.id, doc.version));
    }
  }
  schema.migrating = await migratingCollections(txn, db);
  return schema;
}

export function entryOf(native: NamedNative, id: bigint, version: Version): SchemaEntry {
  const fields = version.data ?? new Map();
  const name = fields.get('name');
  return { native, id, name: typeof name === 'string' ? name : String(id), fields, ts: version.ts };
}
