// FQL v10 events (runtime/stream/: EventTranslator, EventReplayer, EventFilter, EventTransformer,
// Event): which documents changed in a source's set, from the store's history (feeds, a stream's
// replay) or from one commit (a live stream), and each change as an `add`/`update`/`remove` event
// rendered in the reader's transaction — its read permission, the source's `where`s and `map`s,
// its watched fields.
//
// A collection's documents change with every version (the core's ChangesByCollection index); an
// index set's with the entries of its terms (an update that moves no entry is no event; remove and
// add at one time are an update). The changes of one transaction are ordered by document id and
// numbered, so a cursor (ts, ordinal) names the same event live and replayed.

import { decodePayload } from '../../model/indexer';
import { indexRange } from '../../model/schema10/api';
import { schemaOf } from '../../model/resolve';
import { minValidTime } from '../../model/retention';
import type { TxnContext } from '../../model/context';
import type { CommitEvent, DocKey } from '../../storage/types';
import { QueryError } from '../../values/errors';
import { Interp, QueryRun } from '../../fql10/eval/interpreter';
import { materialize } from '../../fql10/eval/materialize';
import { QueryRuntimeFailure } from '../../fql10/runtime/failure';
import { WhereFilterSet } from '../../fql10/runtime/sets';
import type { CallCtx } from '../../fql10/runtime/table';
import { NullV, type RtValue } from '../../fql10/runtime/values';
import { TxnHooks } from '../../fql10/run/hooks';
import { storeLanguage } from '../../fql10/run/storePlugs';
import { STDLIB_GLOBALS } from '../../fql10/stdlib/globals';
import { DocV } from '../../fql10/store/docs';
import {
  compareCursors,
  cursorToString,
  mayReadCollection,
  shapeOf,
  type EventCursor,
  type EventSourceV,
  type FieldPath,
  type SourceShape,
} from '../../fql10/store/eventSources';
import { IndexSet } from '../../fql10/store/sources';
import { NULL_SPAN } from '../../fql10/span';
import { encodeValue } from '../../wire/v10/encode';
import { jsonString } from '../../wire/json';

/** A document that changed in a source's set at a transaction. */
export interface Change {
  readonly id: bigint;
  readonly cursor: EventCursor;
  readonly action: 'create' | 'update' | 'delete';
}

/** A source checked against its reader: what its changes are read from. */
export interface OpenedSource {
  readonly src: EventSourceV & { cursor: EventCursor };
  readonly shape: SourceShape;
  readonly db: bigint;
  readonly coll: number;
  /** The collection's minimum valid time at the reader's snapshot: no replay from before it. */
  readonly mvt: bigint | undefined;
  /** `Set.single(doc)`: the document's id. */
  readonly doc?: bigint;
  /** An index set: its index and the key range of its terms. */
  readonly index?: { readonly id: number; readonly from: Uint8Array; readonly to: Uint8Array | undefined };
}

/** Why a token cannot be followed by this reader: the core's "Error evaluating provided …". */
export class SourceRefused extends Error {}

const PLUGS = storeLanguage();

/** An evaluation context over the reader's transaction (reads only). */
export function readerContext(tx: TxnContext, reason: string): Interp {
  return new Interp(new QueryRun(new TxnHooks(tx, PLUGS), PLUGS.globals ?? STDLIB_GLOBALS)).readOnly(reason);
}

/** The token's set in the reader's database, which the reader may read. */
export async function openSource(ctx: CallCtx, tx: TxnContext, src: EventSourceV & { cursor: EventCursor }): Promise<OpenedSource> {
  const shape = shapeOf(src.set)!;
  const { coll } = shape;
  const entry = coll.db === tx.scope.db ? (await schemaOf(tx, coll.db)).getById('collections', coll.id) : undefined;
  if (entry === undefined || entry.name !== coll.name) throw new SourceRefused(`Collection \`${coll.name}\` not found.`);
  // One document's events pass its read permission each (renderChange); a collection's need a grant on it.
  const mvt = minValidTime(tx, entry);
  if (shape.doc !== undefined) return { src, shape, db: coll.db, coll: Number(coll.id), mvt, doc: shape.doc.id };
  if (!(await mayReadCollection(ctx, coll))) throw new SourceRefused(`Insufficient privileges to read from collection ${coll.name}.`);
  const base = shape.base;
  if (!(base instanceof IndexSet)) return { src, shape, db: coll.db, coll: Number(coll.id), mvt };
  let r;
  try {
    r = await indexRange(tx, coll.db, coll.name, base.index, [...base.terms], {}, []);
  } catch (e) {
    if (e instanceof QueryError) throw new SourceRefused(e.description);
    throw e;
  }
  if (r === undefined) throw new SourceRefused(`The index \`${coll.name}.${base.index}\` was not found.`);
  return { src, shape, db: coll.db, coll: Number(coll.id), mvt, index: { id: r.def.id, from: r.from, to: r.to } };
}

// ---- changes ----

type Raw = { id: bigint; ts: bigint; action: 'create' | 'update' | 'delete' };

/** Numbers the changes of each transaction in document order and keeps those after `after`. */
function numbered(raw: Raw[], after: EventCursor): Change[] {
  raw.sort((a, b) => (a.ts !== b.ts ? (a.ts < b.ts ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const out: Change[] = [];
  let ord = 0;
  for (let i = 0; i < raw.length; i++) {
    ord = i > 0 && raw[i - 1].ts === raw[i].ts ? ord + 1 : 0;
    const cursor = { ts: raw[i].ts, ord };
    if (compareCursors(cursor, after) > 0) out.push({ id: raw[i].id, cursor, action: raw[i].action });
  }
  return out;
}

/** Entry adds and removes of one transaction, per document, as changes (StreamValue.reduceIndexRows). */
function fromEntries(entries: { ts: bigint; id: bigint; action: 'add' | 'remove' }[]): Raw[] {
  const byDoc = new Map<string, Raw & { add: boolean; remove: boolean }>();
  for (const e of entries) {
    const k = `${e.ts}.${e.id}`;
    let r = byDoc.get(k);
    if (r === undefined) byDoc.set(k, (r = { id: e.id, ts: e.ts, action: 'update', add: false, remove: false }));
    if (e.action === 'add') r.add = true;
    else r.remove = true;
  }
  return [...byDoc.values()].map((r) => ({ id: r.id, ts: r.ts, action: r.add && r.remove ? 'update' : r.add ? 'create' : 'delete' }));
}

function refId(payload: Uint8Array): bigint {
  const ref = decodePayload(payload).ref;
  return ref.addr?.id ?? BigInt(ref.id);
}

function inRange(key: Uint8Array, from: Uint8Array, to: Uint8Array | undefined): boolean {
  return Buffer.compare(key, from) >= 0 && (to === undefined || Buffer.compare(key, to) < 0);
}

/** EventReplayer's refusal of a replay from below the collection's history retention, or undefined. */
export function replayRefusal(o: OpenedSource, from: EventCursor): string | undefined {
  if (o.mvt === undefined || from.ts >= o.mvt) return undefined;
  return errorEvent('invalid_stream_start_time', `Stream start time ${from.ts} is too far in the past. Recreate the stream and try again.`);
}

/** The changes after `after` up to the transaction's snapshot (EventReplayer). */
export async function replayChanges(tx: TxnContext, o: OpenedSource, after: EventCursor): Promise<Change[]> {
  const raw: Raw[] = [];
  if (o.index !== undefined) {
    const entries: { ts: bigint; id: bigint; action: 'add' | 'remove' }[] = [];
    for await (const e of tx.txn.indexHistory(o.db, o.index.id, { from: o.index.from, to: o.index.to, fromTs: after.ts })) {
      await tx.budget.breathe();
      if (typeof e.ts === 'bigint') entries.push({ ts: e.ts, id: refId(e.payload), action: e.action });
    }
    raw.push(...fromEntries(entries));
  } else if (o.doc !== undefined) {
    for await (const v of tx.txn.history({ db: o.db, coll: o.coll, id: o.doc }, { fromTs: after.ts })) {
      await tx.budget.breathe();
      if (typeof v.ts === 'bigint' && v.action !== null) raw.push({ id: o.doc, ts: v.ts, action: v.action });
    }
  } else {
    for await (const d of tx.txn.scan(o.db, o.coll, { withDeleted: true })) {
      await tx.budget.breathe();
      for await (const v of tx.txn.history({ db: o.db, coll: o.coll, id: d.id }, { fromTs: after.ts })) {
        if (typeof v.ts === 'bigint' && v.action !== null) raw.push({ id: d.id, ts: v.ts, action: v.action });
      }
    }
  }
  return numbered(raw, after);
}

/** What one commit changed in the source's set (EventTranslator). */
export function commitChanges(o: OpenedSource, c: CommitEvent): Change[] {
  if (o.index !== undefined) {
    const { id, from, to } = o.index;
    const entries = c.indexes.filter((e) => e.db === o.db && e.index === id && inRange(e.key, from, to)).map((e) => ({ ts: c.ts, id: refId(e.payload), action: e.action }));
    return numbered(fromEntries(entries), { ts: c.ts - 1n, ord: 0 });
  }
  const raw: Raw[] = [];
  for (const v of c.versions) if (!v.rewrite && v.action !== null && concerns(o, v.key)) raw.push({ id: v.key.id, ts: c.ts, action: v.action });
  return numbered(raw, { ts: c.ts - 1n, ord: 0 });
}

/** Whether a commit may concern the source (before it is looked at closely). */
export function commitConcerns(o: OpenedSource, c: CommitEvent): boolean {
  if (o.index !== undefined) return c.indexes.some((e) => e.db === o.db && e.index === o.index!.id);
  return c.versions.some((v) => concerns(o, v.key));
}

function concerns(o: OpenedSource, key: DocKey): boolean {
  return key.db === o.db && key.coll === o.coll && (o.doc === undefined || key.id === o.doc);
}

// ---- rendering ----

/** Event.Metrics as the wire carries them. */
export function statsJson(computeOps = 0, readOps = 0, bytesRead = 0, ms = 0): string {
  return `{"read_ops":${readOps},"storage_bytes_read":${bytesRead},"compute_ops":${computeOps},"processing_time_ms":${ms},"rate_limits_hit":[]}`;
}

export function statusEvent(ts: bigint, stats = statsJson()): string {
  return `{"type":"status","txn_ts":${ts},"cursor":${jsonString(cursorToString({ ts, ord: 0 }))},"stats":${stats}}`;
}

export function errorEvent(code: string, message: string): string {
  return `{"type":"error","error":{"code":${jsonString(code)},"message":${jsonString(message)}},"stats":${statsJson()}}`;
}

/** The source's steps applied to a document version: the value its event carries, or undefined
 *  when the version is not in the source's set for this reader (EventTransformer.applyTransformations). */
async function transformed(ctx: CallCtx, o: OpenedSource, doc: DocV): Promise<RtValue | undefined> {
  if ((await doc.nullCause(ctx)) !== undefined) return undefined;
  let v: RtValue = doc;
  for (const step of o.shape.steps) {
    const sctx = ctx.withTrace(step.trace);
    if (step instanceof WhereFilterSet) {
      if ((await sctx.apply(step.pred, [v])) !== true) return undefined;
    } else v = await sctx.apply(step.fn, [v]);
  }
  return v;
}

async function fieldText(ctx: CallCtx, doc: DocV, path: FieldPath): Promise<string | undefined> {
  if ((await doc.nullCause(ctx)) !== undefined) return undefined;
  let v: RtValue = await doc.field(ctx, { str: String(path[0]), span: NULL_SPAN });
  for (const k of path.slice(1)) {
    if (v instanceof Map && typeof k === 'string') v = v.get(k) ?? new NullV({ kind: 'lit', span: NULL_SPAN });
    else if (Array.isArray(v) && typeof k === 'number') v = v[k] ?? new NullV({ kind: 'lit', span: NULL_SPAN });
    else return undefined;
  }
  if (v instanceof NullV) return undefined;
  return encodeValue(await materialize(ctx, v), 'tagged', 0n);
}

/** EventFilter: with watched fields, a change shows only when one of them changed (a removal when
 *  the document had them all). */
async function watchedChanged(ctx: CallCtx, o: OpenedSource, change: Change, curr: DocV, prev: DocV): Promise<boolean> {
  const fields = o.src.fields;
  if (fields.length === 0) return true;
  if (change.action === 'delete') {
    for (const f of fields) if ((await fieldText(ctx, prev, f)) === undefined) return false;
    return true;
  }
  for (const f of fields) if ((await fieldText(ctx, curr, f)) !== (await fieldText(ctx, prev, f))) return true;
  return false;
}

/** One change as its event's JSON text, or undefined when the reader gets no event for it. */
export async function renderChange(ctx: CallCtx, o: OpenedSource, change: Change): Promise<string | undefined> {
  const { coll } = o.shape;
  const ts = change.cursor.ts;
  const curr = new EventDocV(coll.db, coll.id, coll.name, change.id, ts);
  const prev = new EventDocV(coll.db, coll.id, coll.name, change.id, ts - 1n);
  if (!(await watchedChanged(ctx, o, change, curr, prev))) return undefined;
  const now = change.action === 'delete' ? undefined : await transformed(ctx, o, curr);
  const before = change.action === 'create' ? undefined : await transformed(ctx, o, prev);
  let type: string;
  let value: RtValue;
  if (now !== undefined) [type, value] = [before === undefined ? 'add' : 'update', now];
  else if (before !== undefined) [type, value] = ['remove', before];
  else return undefined;
  const readCtx = ctx.atValidTime(undefined);
  const data = encodeValue(await materialize(readCtx, value), 'tagged', ts);
  return `{"type":"${type}","data":${data},"txn_ts":${ts},"cursor":${jsonString(cursorToString(change.cursor))},"stats":${statsJson(1)}}`;
}

/**
 * A version an event carries: the reader needs `read` on it as of its time, as the core's
 * EventFilter/EventTransformer check it (checkReadPermission at the event's valid time), not
 * `history_read`, which reading a document at a past time otherwise takes.
 */
class EventDocV extends DocV {
  protected override readAtPermission(): 'read' {
    return 'read';
  }
}

/** A failure of a source's function while rendering: the stream's or page's error event. */
export function failureEvent(e: unknown): string | undefined {
  return e instanceof QueryRuntimeFailure ? errorEvent(e.code, e.message) : undefined;
}
