// Index entries follow every document write in the same transaction: the entries of the old
// version that the new one no longer produces are removed, the new ones added (fql-v4.md §5.2).

import type { TxnContext } from './context';
import { errors, QueryError, type Position } from '../values/errors';
import { valuesEqual } from '../values/order';
import { Ref, type NativeName, type Obj, type Value } from '../values/types';
import { NATIVE_IDS } from './catalog';
import type { DbSchema, SchemaEntry } from './catalog';
import type { IndexDef, IndexEntryValue } from './indexDef';
import { checkEntrySize, decodePayload, deriveEntries, entryKey, entryPayload, isNativeSource, NATIVE_SOURCES } from './indexer';
import { cursorBound, prefixEnd } from './indexKeys';
import { indexDefOf } from './indexSchema';
import { schemaOf } from './resolve';

const bySchema = new WeakMap<DbSchema, Map<string, IndexDef[]>>();

/** The indexes whose sources cover collection `collName` (a named source, or the wildcard). */
export async function indexesFor(ctx: TxnContext, db: bigint, collName: string): Promise<IndexDef[]> {
  const schema = await schemaOf(ctx, db);
  let byColl = bySchema.get(schema);
  if (!byColl) bySchema.set(schema, (byColl = new Map()));
  let defs = byColl.get(collName);
  if (!defs) {
    defs = schema
      .all('indexes')
      .map((e) => indexDefOf(db, e))
      .filter((d) => d.sources.some((s) => s.collection === collName || (s.collection === '_' && !isNativeSource(collName))));
    byColl.set(collName, defs);
  }
  return defs;
}

/** A document version as the indexer sees it. */
export interface DocState {
  ts: bigint;
  fields: Obj;
}

export function entriesOf(ctx: TxnContext, def: IndexDef, ref: Ref, state: DocState | null): Promise<IndexEntryValue[]> {
  if (!state) return Promise.resolve([]);
  return deriveEntries(def, { ref, ts: state.ts, fields: state.fields }, ctx.evalBinding);
}

/** Updates every index over `coll` for a write of document `ref` from `before` to `after`. */
export async function maintainIndexes(
  ctx: TxnContext,
  db: bigint,
  coll: SchemaEntry,
  ref: Ref,
  before: DocState | null,
  after: DocState | null,
  pos: Position,
): Promise<void> {
  // Every unique index the write violates is named, as the core's UniqueConstraintViolation lists
  // them all: v10 reports one constraint failure per index.
  const violated: string[] = [];
  for (const def of await indexesFor(ctx, db, coll.name)) {
    try {
      await applyEntryChanges(ctx, def, ref, await entriesOf(ctx, def, ref, before), await entriesOf(ctx, def, ref, after), pos);
    } catch (e) {
      if (!(e instanceof UniqueViolation)) throw e;
      violated.push(...e.indexes);
    }
  }
  if (violated.length > 0) throw new UniqueViolation(violated, pos);
}

/**
 * Updates the indexes over a native collection (Tokens()) for a write of its document `id`. Every
 * token write (Login, Logout, Create/Update/Replace/Delete of a token) goes through here.
 */
export async function maintainNativeIndexes(
  ctx: TxnContext,
  db: bigint,
  native: string,
  id: bigint,
  before: DocState | null,
  after: DocState | null,
  pos: Position,
): Promise<void> {
  const source = NATIVE_SOURCES[native];
  if (source === undefined) return;
  const ref = new Ref(String(id), Ref.native(native), undefined, { db, coll: NATIVE_IDS[native as NativeName], id });
  for (const def of await indexesFor(ctx, db, source)) {
    await applyEntryChanges(ctx, def, ref, await entriesOf(ctx, def, ref, before), await entriesOf(ctx, def, ref, after), pos);
  }
}

/** Writes the difference between two entry lists of one document. */
export async function applyEntryChanges(
  ctx: TxnContext,
  def: IndexDef,
  ref: Ref,
  oldEntries: IndexEntryValue[],
  newEntries: IndexEntryValue[],
  pos: Position,
): Promise<void> {
  // A document's first version (a create), with one entry: nothing to compare, nothing to dedupe.
  if (oldEntries.length === 0 && newEntries.length === 1) {
    await addEntry(ctx, def, ref, entryKey(def, newEntries[0]), newEntries[0], pos);
    return;
  }
  const oldKeys = keyed(def, oldEntries);
  const newKeys = keyed(def, newEntries);
  for (const [hex, { key, entry }] of oldKeys) {
    if (!newKeys.has(hex)) ctx.txn.putIndexEntry(def.db, def.id, { key, action: 'remove', payload: entryPayload(entry) });
  }
  for (const [hex, { key, entry }] of newKeys) {
    if (!oldKeys.has(hex)) await addEntry(ctx, def, ref, key, entry, pos);
  }
}

async function addEntry(ctx: TxnContext, def: IndexDef, ref: Ref, key: Uint8Array, entry: IndexEntryValue, pos: Position): Promise<void> {
  const payload = entryPayload(entry);
  const tooLarge = checkEntrySize(entry, payload);
  if (tooLarge) throw errors.invalidArgument(tooLarge, pos);
  if (def.unique) await checkUnique(ctx, def, entry, ref, pos);
  ctx.txn.putIndexEntry(def.db, def.id, { key, action: 'add', payload });
}

export function keyed(def: IndexDef, entries: IndexEntryValue[]): Map<string, { key: Uint8Array; entry: IndexEntryValue }> {
  const out = new Map<string, { key: Uint8Array; entry: IndexEntryValue }>();
  for (const entry of entries) {
    const key = entryKey(def, entry);
    out.set(Buffer.from(key).toString('latin1'), { key, entry });
  }
  return out;
}

/** `instance not unique`, naming the unique indexes the write violated. */
export class UniqueViolation extends QueryError {
  constructor(
    /** The violated indexes' names, in the order the write met them. */
    readonly indexes: readonly string[],
    pos: Position,
  ) {
    super('instance not unique', 'document is not unique.', pos);
  }
}

/**
 * A unique index refuses a second document with the same terms and values. The scan of that range
 * is recorded for conflicts, so of two racing writers of one value exactly one commits.
 */
export async function checkUnique(ctx: TxnContext, def: IndexDef, entry: IndexEntryValue, ref: Ref, pos: Position): Promise<void> {
  const from = cursorBound(def, entry.terms, entry.values);
  for await (const other of ctx.txn.scanIndex(def.db, def.id, { from, to: from.length ? prefixEnd(from) : undefined })) {
    const o = decodePayload(other.payload);
    // The range may be wider than the entry when its key was cut (huge terms): compare for real.
    const same = o.terms.every((t, i) => valuesEqual(t, entry.terms[i])) && o.values.every((v, i) => valuesEqual(v, entry.values[i]));
    if (same && !o.ref.equals(ref)) throw new UniqueViolation([def.name], pos);
  }
}

/** The document value a binding lambda receives: the document as Get renders it. */
export function bindingDoc(ref: Ref, ts: bigint, fields: Obj): Value {
  return new Map<string, Value>([['ref', ref], ['ts', ts], ...fields]);
}
