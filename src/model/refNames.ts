// Names for stored refs. Storage keeps a ref as its address (database scope, collection id,
// document id); a reader sees it with the names those ids have at its read time, relative to its
// own database, so a rename shows at once everywhere and `At` before it shows the old name.
//
// `name` is synchronous (it runs inside value decoding): it answers from what this reader has
// loaded and throws a NamesMiss naming what to load otherwise; the store then awaits `load` and
// decodes again. Misses happen once per database and read time in a transaction.

import type { Txn, TxnNames } from '../storage/types';
import { decodeAgain } from '../storage/naming';
import { mapRefs } from '../values/refWalk';
import { ADDR_NATIVE, FIRST_USER_COLLECTION_ID, NAMED_NATIVES, NATIVE_IDS, nativeById, Ref, type NamedNative, type RefAddr, type Value } from '../values/types';
import { parentOf } from './auth';
import type { Catalog, DbSchema } from './catalog';

/**
 * What a namer reads names from: the reading transaction and the catalog, and which databases'
 * schemas the transaction itself changed (a TxnContext is one).
 */
export interface NameSource {
  readonly txn: Txn;
  readonly catalog: Catalog;
  readonly schemaWrites: { has(db: bigint): boolean };
  /** Changes with every schema write of the transaction: cached names are then stale. */
  readonly schemaGeneration: number;
}

/**
 * Thrown by `RefNames.name` when it lacks something; `load` fetches it. Not an Error: nothing
 * reports it, and a stack trace would cost more than the decoding it interrupts.
 */
export class NamesMiss {
  constructor(readonly load: () => Promise<void>) {}
}

export class RefNames implements TxnNames {
  private generation: number;
  // Made on first use: most reads name nothing, and a namer is made for every query.
  private current: Map<bigint, DbSchema> | undefined;
  private past: Map<string, DbSchema> | undefined;
  /** How `home` names each database (undefined: home itself; null: not below home). */
  private dbRefs: Map<bigint, Ref | undefined | null> | undefined;
  /** User collection refs at the snapshot in home, by collection id (shared by every document ref). */
  private homeColls: Map<number, Ref> | undefined;
  /** The same for other databases, by `db:coll`. */
  private otherColls: Map<string, Ref> | undefined;

  constructor(
    private readonly source: NameSource,
    /** The database names are relative to (the reader's). */
    readonly home: bigint,
  ) {
    this.generation = source.schemaGeneration;
  }

  /** Uses `schema` as `db`'s current schema (the catalog naming a schema it is building). */
  seed(db: bigint, schema: DbSchema): void {
    (this.current ??= new Map()).set(db, schema);
  }

  name(addr: RefAddr, at: bigint): Ref {
    if (this.generation !== this.source.schemaGeneration) this.forget();
    const { db, coll, id } = addr;
    const now = at >= this.source.txn.snapshotTs;
    if (coll >= FIRST_USER_COLLECTION_ID) {
      const collRef = now ? this.currentCollRef(db, coll) : this.collRef(db, coll, at);
      return new Ref(String(id), collRef, undefined, addr, collRef.dangling);
    }
    const dbRef = this.dbRef(db);
    if (dbRef === null) return dangling(addr);
    if (coll === ADDR_NATIVE) return new Ref(nativeById(id) ?? `#${id}`, undefined, dbRef, addr);
    const native = nativeById(coll);
    if (native === undefined) return dangling(addr);
    if (!(NAMED_NATIVES as readonly string[]).includes(native)) return new Ref(String(id), new Ref(native), dbRef, addr);
    const entry = this.entryAt(db, native as NamedNative, id, at);
    return entry ? new Ref(entry.name, new Ref(native), dbRef, addr) : dangling(addr);
  }

  /**
   * Schema document `id` as of `at`; one created after `at` by the name it has now: a history write
   * (Insert, an import keeping its documents' times) can put a ref to it into the past.
   */
  private entryAt(db: bigint, native: NamedNative, id: bigint, at: bigint) {
    const snapshot = this.source.txn.snapshotTs;
    return this.schemaFor(db, at).getById(native, id) ?? (at < snapshot ? this.schemaFor(db, snapshot).getById(native, id) : undefined);
  }

  /** The databases whose names this namer has looked up. */
  visited(): bigint[] {
    return [...new Set([...(this.current?.keys() ?? []), ...(this.dbRefs?.keys() ?? [])])];
  }

  async load(e: unknown): Promise<void> {
    if (!(e instanceof NamesMiss)) throw e;
    await e.load();
  }

  private forget(): void {
    this.generation = this.source.schemaGeneration;
    this.current = this.past = this.dbRefs = this.homeColls = this.otherColls = undefined;
  }

  private currentCollRef(db: bigint, coll: number): Ref {
    if (db === this.home) {
      let ref = this.homeColls?.get(coll);
      if (ref === undefined) (this.homeColls ??= new Map()).set(coll, (ref = this.collRef(db, coll, this.source.txn.snapshotTs)));
      return ref;
    }
    const key = `${db}:${coll}`;
    let ref = this.otherColls?.get(key);
    if (ref === undefined) (this.otherColls ??= new Map()).set(key, (ref = this.collRef(db, coll, this.source.txn.snapshotTs)));
    return ref;
  }

  private collRef(db: bigint, coll: number, at: bigint): Ref {
    const addr: RefAddr = { db, coll: NATIVE_IDS.collections, id: BigInt(coll) };
    const dbRef = this.dbRef(db);
    const entry = dbRef === null ? undefined : this.entryAt(db, 'collections', addr.id, at);
    return entry ? new Ref(entry.name, new Ref('collections'), dbRef ?? undefined, addr) : dangling(addr);
  }

  private schemaFor(db: bigint, at: bigint): DbSchema {
    const { txn, catalog, schemaWrites } = this.source;
    let current = this.current?.get(db);
    if (current === undefined) {
      const own = schemaWrites.has(db);
      current = catalog.cached(txn, db, own);
      if (current === undefined) throw new NamesMiss(async () => void (this.current ??= new Map()).set(db, await catalog.schema(txn, db, own)));
      (this.current ??= new Map()).set(db, current);
    }
    if (at >= txn.snapshotTs || (typeof current.lastTs === 'bigint' && at >= current.lastTs)) return current;
    const key = `${db}@${at}`;
    const past = this.past?.get(key);
    if (past === undefined) throw new NamesMiss(async () => void (this.past ??= new Map()).set(key, await catalog.schemaAt(txn, db, at)));
    return past;
  }

  private dbRef(db: bigint): Ref | undefined | null {
    if (db === this.home) return undefined;
    const known = this.dbRefs?.get(db);
    if (known !== undefined || this.dbRefs?.has(db)) return known;
    throw new NamesMiss(async () => void (this.dbRefs ??= new Map()).set(db, await this.pathFromHome(db)));
  }

  /** The nested Database ref by which home names `db`, or null when `db` is not below home. */
  private async pathFromHome(db: bigint): Promise<Ref | null> {
    const chain: bigint[] = [];
    for (let cur = db; cur !== this.home; ) {
      chain.unshift(cur);
      const parent = await parentOf(this.source.txn, cur);
      if (parent === undefined) return null;
      cur = parent;
    }
    let ref: Ref | undefined;
    let parent = this.home;
    for (const id of chain) {
      const entry = (await this.source.catalog.schema(this.source.txn, parent, this.source.schemaWrites.has(parent))).getById('databases', id);
      if (!entry) return null;
      ref = new Ref(entry.name, new Ref('databases'), ref, { db: parent, coll: NATIVE_IDS.databases, id });
      parent = id;
    }
    return ref!;
  }
}

/** A ref to something that no longer exists: it keeps its address, renders as nothing, fails on use. */
function dangling(addr: RefAddr): Ref {
  const base = Ref.anonymous(addr);
  return new Ref(base.id, base.collection && new Ref(base.collection.id, base.collection.collection, undefined, base.collection.addr, true), undefined, addr, true);
}

/**
 * Names every anonymous ref inside a value already decoded (schema documents, which the catalog
 * reads before it can name anything). Throws NamesMiss like `RefNames.name`.
 */
export function nameRefs(v: Value, names: RefNames, at: bigint): Value {
  return mapRefs(v, (r) => (r.addr ? names.name(r.addr, at) : r));
}

/** `v` (read with anonymous refs) with its refs named as `home` sees them now. */
export function named<T extends Value>(names: RefNames, v: T, at: bigint): Promise<T> {
  const name = () => nameRefs(v, names, at) as T;
  try {
    return Promise.resolve(name());
  } catch (e) {
    return decodeAgain(e, names, name);
  }
}

/** `named` outside a query: names from the catalog at `txn`'s snapshot, relative to `home`. */
export function namedIn<T extends Value>(catalog: Catalog, txn: Txn, home: bigint, v: T): Promise<T> {
  return named(new RefNames({ txn, catalog, schemaWrites: NONE, schemaGeneration: 0 }, home), v, txn.snapshotTs);
}

const NONE = { has: () => false };
