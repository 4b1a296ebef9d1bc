// Storage format 1 → 2: refs stored by name become refs by address, in place.
//
// Format 1 kept refs as names (relative to the database of the record holding them) inside stored
// values, index payloads and index keys. Each name is resolved against the schema as it stands now
// (what format 1 itself read it by); a name that resolves to nothing (its target renamed or deleted
// before this upgrade, which format 1 could not follow either) becomes a dangling address, rendered
// as nothing and failing on use. Index entries are re-keyed from their payloads (refs now order by
// address). No document version or index event is dropped.
//
// The pass is idempotent (converted records decode to themselves) and records where it got to
// with every batch it writes, so an interrupted upgrade resumes there on the next start.

import type { Engine, KV, WriteOp } from '../../storage/engine';
import { formatRecord } from '../../storage/format';
import {
  collectionPrefix,
  databaseRange,
  historyKeyEntry,
  historyKeyTs,
  indexHistoryKey,
  indexKey,
  indexKeyEntry,
  inKeyspace,
  keyColl,
  keyDb,
  KeyTag,
  systemKey,
  versionKeyId,
} from '../../storage/keys';
import { concatBytes, prefixEnd } from '../../storage/tuple';
import { decodeLegacyValue, encodeValue } from '../../storage/valueCodec';
import { ADDR_NATIVE, isNativeName, NAMED_NATIVES, NATIVE_IDS, Ref, type NamedNative, type Obj, type RefAddr, type Value } from '../../values/types';
import { entryOf, type SchemaEntry } from '../catalog';
import type { IndexDef, IndexEntryValue } from '../indexDef';
import { entryKey, entryPayload } from '../indexer';
import { indexDefOf } from '../indexSchema';

const BATCH = 2000;
const PROGRESS_KEY = systemKey('upgrade:2');
const U64_MAX = (1n << 64n) - 1n;
/** Addresses that resolve to nothing: no database, collection or schema document has them. */
const NO_DB = U64_MAX;
const NO_COLLECTION = 0xffffffff;
const NO_DOC = U64_MAX;

const PHASES = ['versions', 'latest', 'entries', 'events'] as const;
type Phase = (typeof PHASES)[number];
const PHASE_TAG: Record<Phase, number> = {
  versions: KeyTag.Version,
  latest: KeyTag.Latest,
  entries: KeyTag.IndexEntry,
  events: KeyTag.IndexHistory,
};

interface Progress {
  phase: Phase;
  /** Every key of the phase below this one is converted. */
  after: Uint8Array;
}

/** Names → internal ids of one database's schema documents, as they stand. */
interface Names {
  byNative: Map<NamedNative, Map<string, bigint>>;
  indexes: Map<number, SchemaEntry>;
}

/** Steps after the refs are converted, given the schema names (e.g. GraphQL's stored schemas); their writes land with the final stamp. */
export type FinishStep = (engine: Engine, idOf: (db: bigint, native: NamedNative, name: string) => bigint | undefined) => Promise<WriteOp[]>;

export async function upgradeRefsByIdentity(engine: Engine, log: (line: string) => void, finish: FinishStep[] = []): Promise<void> {
  const schemas = await readSchemas(engine);
  const defs = new Map<string, IndexDef | null>();
  let progress = await readProgress(engine);
  let done = 0;
  let lastLog = Date.now();
  log(`storage format 1 → 2 (references by identity): upgrading ${schemas.size} database(s) in place${progress ? ', resuming' : ''}`);
  for (const phase of PHASES.slice(progress ? PHASES.indexOf(progress.phase) : 0)) {
    const tag = PHASE_TAG[phase];
    let after = progress?.phase === phase ? progress.after : Uint8Array.of(tag);
    for (;;) {
      const batch: KV[] = [];
      for await (const kv of engine.range({ start: after, end: Uint8Array.of(tag + 1), limit: BATCH })) batch.push(kv);
      if (batch.length === 0) break;
      const ops: WriteOp[] = [];
      for (const kv of batch) {
        if (phase === 'versions' || phase === 'latest') convertVersion(kv, phase, schemas, ops);
        else await convertEntry(engine, kv, phase, schemas, defs, ops);
      }
      after = concatBytes(batch[batch.length - 1].key, Uint8Array.of(0));
      ops.push({ key: PROGRESS_KEY, value: encodeProgress({ phase, after }) });
      await engine.write(ops);
      done += batch.length;
      if (Date.now() - lastLog > 2000) {
        lastLog = Date.now();
        log(`storage upgrade: ${done} records converted (${phase})`);
      }
    }
    progress = undefined;
  }
  const idOf = (db: bigint, native: NamedNative, name: string) => schemas.get(db)?.byNative.get(native)?.get(name);
  const last: WriteOp[] = [];
  for (const step of finish) last.push(...(await step(engine, idOf)));
  await engine.write([...last, formatRecord(2), { key: PROGRESS_KEY, value: null }]);
  log(`storage upgrade: done, ${done} records converted`);
}

// ---- schema names ---------------------------------------------------------------------------

/** Every database's live schema documents, read from the latest-version keyspace. */
async function readSchemas(engine: Engine): Promise<Map<bigint, Names>> {
  const out = new Map<bigint, Names>();
  let start: Uint8Array = Uint8Array.of(KeyTag.Latest);
  const end = Uint8Array.of(KeyTag.Latest + 1);
  for (;;) {
    let db: bigint | undefined;
    for await (const kv of engine.range({ start, end, limit: 1 })) db = keyDb(kv.key);
    if (db === undefined) return out;
    const names: Names = { byNative: new Map(), indexes: new Map() };
    out.set(db, names);
    for (const native of NAMED_NATIVES) {
      const map = new Map<string, bigint>();
      names.byNative.set(native, map);
      const prefix = inKeyspace(KeyTag.Latest, collectionPrefix(db, NATIVE_IDS[native]));
      for await (const kv of engine.range({ start: prefix, end: prefixEnd(prefix) })) {
        if (kv.value[8] === 2 /* delete */ || kv.value.length <= 9) continue;
        const data = decodeLegacyValue(kv.value, 9, (r) => r).value as Obj;
        const id = versionKeyId(kv.key);
        const entry = entryOf(native, id, { ts: 0n, action: 'create', data });
        map.set(entry.name, id);
        if (native === 'indexes') names.indexes.set(Number(id), entry);
      }
    }
    if (db === U64_MAX) return out;
    start = databaseRange(KeyTag.Latest, db + 1n).start;
  }
}

/** The address a format-1 ref (relative to database `home`) names now. */
function addressOf(ref: Ref, home: bigint, schemas: Map<bigint, Names>): RefAddr {
  const idOf = (db: bigint, native: NamedNative, name: string) => schemas.get(db)?.byNative.get(native)?.get(name);
  const dbOf = (dbRef: Ref | undefined): bigint => {
    if (dbRef === undefined) return home;
    const parent = dbOf(dbRef.database);
    return parent === NO_DB ? NO_DB : (idOf(parent, 'databases', dbRef.id) ?? NO_DB);
  };
  const nativeId = (name: string) => (isNativeName(name) ? NATIVE_IDS[name] : undefined);
  if (ref.collection === undefined) {
    const n = nativeId(ref.id === 'classes' ? 'collections' : ref.id);
    return n !== undefined ? { db: dbOf(ref.database), coll: ADDR_NATIVE, id: BigInt(n) } : { db: NO_DB, coll: ADDR_NATIVE, id: NO_DOC };
  }
  const parent = ref.collection;
  if (parent.collection === undefined) {
    const db = dbOf(ref.database ?? parent.database);
    const native = parent.id === 'classes' ? 'collections' : parent.id;
    const coll = nativeId(native);
    if (coll === undefined) return { db: NO_DB, coll: NO_COLLECTION, id: NO_DOC };
    if (native === 'keys' || native === 'tokens' || native === 'credentials') return { db, coll, id: numeric(ref.id) };
    return { db, coll, id: idOf(db, native as NamedNative, ref.id) ?? NO_DOC };
  }
  const db = dbOf(parent.database);
  const coll = db === NO_DB ? undefined : idOf(db, 'collections', parent.id);
  return { db, coll: coll === undefined ? NO_COLLECTION : Number(coll), id: numeric(ref.id) };
}

function numeric(id: string): bigint {
  return /^\d{1,20}$/.test(id) && BigInt(id) <= U64_MAX ? BigInt(id) : NO_DOC;
}

/** Decodes a value of either format; undefined when it held no ref (nothing to rewrite). */
function converted(bytes: Uint8Array, offset: number, home: bigint, schemas: Map<bigint, Names>): Value | undefined {
  const { value, sawRef } = decodeLegacyValue(bytes, offset, (r) => Ref.anonymous(addressOf(r, home, schemas)));
  return sawRef ? value : undefined;
}

// ---- documents ------------------------------------------------------------------------------

/** V value = action byte + value; L value = ts u64 + action byte + value. */
function convertVersion(kv: KV, phase: 'versions' | 'latest', schemas: Map<bigint, Names>, ops: WriteOp[]): void {
  const head = phase === 'latest' ? 9 : 1;
  if (kv.value.length <= head) return;
  const value = converted(kv.value, head, keyDb(kv.key), schemas);
  if (value === undefined) return;
  ops.push({ key: kv.key, value: concatBytes(kv.value.subarray(0, head), encodeValue(value)) });
}

// ---- index entries --------------------------------------------------------------------------

/**
 * I value = ts u64 + action byte + payload; H key = I key's tail + ts u64, value = action + payload.
 * Each entry moves to the key its converted payload gives. A current record without a payload (a
 * history rewrite's "never existed") takes its key from one of its events.
 */
async function convertEntry(
  engine: Engine,
  kv: KV,
  phase: 'entries' | 'events',
  schemas: Map<bigint, Names>,
  defs: Map<string, IndexDef | null>,
  ops: WriteOp[],
): Promise<void> {
  const db = keyDb(kv.key);
  const index = keyColl(kv.key);
  const def = indexDef(db, index, schemas, defs);
  if (!def) {
    ops.push({ key: kv.key, value: null }); // the index is deleted: its entries await the purge
    return;
  }
  const head = phase === 'entries' ? 9 : 1;
  const oldEntryKey = phase === 'entries' ? indexKeyEntry(kv.key) : historyKeyEntry(kv.key);
  const original = kv.value.subarray(head);
  const payload = original.length > 0 ? original : await payloadFromEvents(engine, db, index, oldEntryKey);
  if (!payload) {
    ops.push({ key: kv.key, value: null }); // nothing says which entry this was: it can never be read
    return;
  }
  const [terms, values, ref] = converted(payload, 0, db, schemas) as [Value[], Value[], Ref];
  const e: IndexEntryValue = { terms, values, ref };
  const newPayload = original.length > 0 ? entryPayload(e) : original;
  const key = phase === 'entries' ? indexKey(KeyTag.IndexEntry, db, index, entryKey(def, e)) : indexHistoryKey(db, index, entryKey(def, e), historyKeyTs(kv.key));
  const moved = !sameBytes(key, kv.key);
  if (!moved && sameBytes(newPayload, original)) return; // converted already
  if (moved) ops.push({ key: kv.key, value: null });
  ops.push({ key, value: concatBytes(kv.value.subarray(0, head), newPayload) });
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

async function payloadFromEvents(engine: Engine, db: bigint, index: number, entry: Uint8Array): Promise<Uint8Array | undefined> {
  const prefix = indexKey(KeyTag.IndexHistory, db, index, entry);
  for await (const kv of engine.range({ start: prefix, end: prefixEnd(prefix) })) {
    if (kv.key.length === prefix.length + 8 && kv.value.length > 1) return kv.value.subarray(1);
  }
  return undefined;
}

function indexDef(db: bigint, index: number, schemas: Map<bigint, Names>, defs: Map<string, IndexDef | null>): IndexDef | null {
  const k = `${db}:${index}`;
  let def = defs.get(k);
  if (def === undefined) {
    const entry = schemas.get(db)?.indexes.get(index);
    def = entry ? indexDefOf(db, entry) : null;
    defs.set(k, def);
  }
  return def;
}

// ---- progress ------------------------------------------------------------------------------

async function readProgress(engine: Engine): Promise<Progress | undefined> {
  const raw = await engine.get(PROGRESS_KEY);
  if (!raw) return undefined;
  const phase = PHASES[raw[0]];
  return phase ? { phase, after: raw.subarray(1) } : undefined;
}

function encodeProgress(p: Progress): Uint8Array {
  return concatBytes(Uint8Array.of(PHASES.indexOf(p.phase)), p.after);
}
