// Events(ref | set) and Paginate(…, {events: true}): historical views (fql-v4.md §5.5).
//
// An event entry's cursor is [ts, action rank, ref, values?]: events sort by ts, then action
// (add/create < update < delete/remove), then ref, then values. Document events are read lazily
// from the document's versions. Set events (Documents, Match) come from several documents or
// index entries whose histories are stored per document/entry (Txn.indexHistory orders by entry
// key, then ts); they are gathered within the ts bounds of the read and sorted in memory.

import { define } from './registry';
import { argPos, evalArg, mismatch } from './args';
import { defineSetShape, compareCursors, isSetLike, paginateSet, setEventsPaginator, sourceOf, type ScanBounds, type SetEntry, type SetSource } from './sets';
import { matchedIndex, openMatch } from './match';
import { applySetLambda } from './setOps';
import type { EvalContext } from './context';
import { errors, type Position } from '../values/errors';
import { valuesEqual } from '../values/order';
import { DateV, EventObj, Lambda, Page, Ref, SetV, Time, TxnTime, isObj, type Obj, type Value } from '../values/types';
import { resolveRef, type Target } from '../model/resolve';
import { dbRefOf, docKeyOf } from '../model/documents';
import { allowed, checkAccess } from '../model/permissions';
import { namedPayload, prefixEnd } from '../model/indexer';
import type { DocKey, Version } from '../storage/types';

const RANK: Record<string, bigint> = { add: 0n, create: 0n, update: 1n, delete: 2n, remove: 3n };
const UNSUPPORTED = 'Set does not support events history.';

define('events', async (call, env, ctx) => {
  const v = await evalArg(call, 'events', env, ctx);
  if (!(v instanceof Ref) && !(v instanceof SetV)) mismatch('Ref or Set', v, argPos(call, 'events'));
  return eventsSet(v, argPos(call, 'events'));
});

/** The events set of a ref or set; an already-historical set cannot be wrapped again. */
export function eventsSet(v: Ref | SetV, pos: Position): SetV {
  if (v instanceof SetV && v.expr.has('events')) throw errors.invalidArgument(UNSUPPORTED, pos);
  return new SetV(new Map<string, Value>([['events', v]]));
}

export function isEventsSet(v: Value): v is SetV {
  return v instanceof SetV && v.expr.has('events');
}

defineSetShape('events', async (ctx, set, pos) => eventsSource(ctx, set, pos));

interface EventSource extends SetSource {
  /** Renders an entry's cursor as an event cursor object. */
  render(e: SetEntry): Value;
}

const byCursor = (a: SetEntry, b: SetEntry) => compareCursors(a.cursor, b.cursor);

function tsOf(ctx: EvalContext, ts: bigint | TxnTime): bigint {
  return ts instanceof TxnTime ? ctx.snapshotTs : ts;
}

const tsBound = (c: Value[] | undefined): bigint | undefined => (c && typeof c[0] === 'bigint' ? c[0] : undefined);

function inBounds(cursor: Value[], b: ScanBounds): boolean {
  if (b.from && b.from.length && compareCursors(cursor, b.from) < 0) return false;
  if (b.to && b.to.length && compareCursors(cursor, b.to) >= 0) return false;
  return true;
}

async function eventsSource(ctx: EvalContext, set: SetV, pos: Position): Promise<EventSource> {
  const inner = set.expr.get('events');
  if (inner instanceof Ref && inner.collection !== undefined) return documentEvents(ctx, set, inner, pos, false);
  if (inner instanceof SetV) {
    const head = inner.expr.keys().next().value as string | undefined;
    if (head === 'singleton') {
      const ref = inner.expr.get('singleton');
      if (!(ref instanceof Ref)) throw errors.invalidArgument('Invalid set.', pos);
      return documentEvents(ctx, set, ref, pos, true);
    }
    if (head === 'documents') {
      const coll = inner.expr.get('documents');
      if (coll instanceof Ref) {
        const t = await resolveRef(ctx, coll, pos);
        if (t.kind === 'schema' && t.native === 'collections') {
          if (!t.entry) throw errors.invalidRef(`Ref refers to undefined collection '${t.name}'`, pos);
          return documentsEvents(ctx, set, { kind: 'doc', db: t.db, coll: t.entry, id: 0n, scoped: t.scoped }, dbRefOf(coll));
        }
      }
    }
    if (head === 'match') return matchEvents(ctx, set, inner, pos);
    if (head !== undefined && SET_ALGEBRA.has(head)) return algebraEvents(ctx, set, inner, head, pos);
    if (head === 'join') return joinEvents(ctx, set, inner, pos);
    if (head === 'range' || head === 'filter' || head === 'reverse' || head === 'events')
      throw errors.invalidArgument(UNSUPPORTED, pos);
  }
  if (!isSetLike(inner ?? null) && !(inner instanceof Ref)) throw errors.invalidArgument('Invalid set.', pos);
  throw errors.notImplemented('events of this set', pos);
}

/** The recursive diff of two data objects: changed or added keys, removed keys as null. */
export function diff(prev: Obj | undefined, next: Obj | undefined): Obj {
  const out: Obj = new Map();
  const a = prev ?? new Map<string, Value>();
  const b = next ?? new Map<string, Value>();
  for (const [k, v] of b) {
    const old = a.get(k);
    if (old !== undefined && valuesEqual(old, v)) continue;
    out.set(k, old !== undefined && isObj(old) && isObj(v) ? diff(old, v) : v);
  }
  for (const k of a.keys()) if (!b.has(k)) out.set(k, null);
  return out;
}

function dataOf(v: Version | null): Obj | undefined {
  const d = v?.data?.get('data');
  return d !== undefined && isObj(d) ? d : undefined;
}

/** Events of one document (or of Singleton(ref): add on create, remove on delete). */
async function documentEvents(ctx: EvalContext, set: SetV, ref: Ref, pos: Position, singleton: boolean): Promise<EventSource> {
  const t = await resolveRef(ctx, ref, pos);
  await checkAccess(ctx, 'history_read', t, pos);
  const key = docKeyOf(t);
  const event = (v: Version, prev: Version | null): SetEntry | undefined => {
    const ts = tsOf(ctx, v.ts);
    let action: string = v.action;
    let data: Value;
    if (singleton) {
      if (v.action === 'update') return undefined;
      action = v.action === 'create' ? 'add' : 'remove';
    }
    if (v.action === 'delete') data = null;
    else if (v.action === 'create' || !prev || prev.action === 'delete') data = dataOf(v) ?? new Map();
    else data = diff(dataOf(prev), dataOf(v));
    const obj = new EventObj([['ts', v.ts instanceof TxnTime ? v.ts : ts], ['action', action], ['document', ref]]);
    if (!singleton) obj.set('data', data);
    return { cursor: [ts, RANK[action], ref], value: obj };
  };
  return {
    set,
    compare: byCursor,
    render: renderCursor,
    async *scan(ctx, b) {
      if (!key) return;
      const fromTs = tsBound(b.from);
      const toTs = tsBound(b.to);
      const before = async () => (fromTs !== undefined && fromTs > 0n ? ctx.txn.getVersion(key, fromTs - 1n) : null);
      if (!b.reverse) {
        let prev = await before();
        for await (const v of ctx.txn.history(key, { fromTs, toTs })) {
          await ctx.budget.breathe();
          const e = event(v, prev);
          prev = v;
          if (e && inBounds(e.cursor, b)) yield e;
        }
        return;
      }
      let pending: Version | undefined;
      for await (const v of ctx.txn.history(key, { fromTs, toTs, reverse: true })) {
        await ctx.budget.breathe();
        if (pending) {
          const e = event(pending, v);
          if (e && inBounds(e.cursor, b)) yield e;
        }
        pending = v;
      }
      if (pending) {
        const e = event(pending, await before());
        if (e && inBounds(e.cursor, b)) yield e;
      }
    },
  };
}

/** Sorted in-memory window of set events (see the header comment). */
function sortedSource(set: SetV, gather: (ctx: EvalContext, b: ScanBounds) => Promise<SetEntry[]>): EventSource {
  return {
    set,
    compare: byCursor,
    render: renderCursor,
    async *scan(ctx, b) {
      const all = (await gather(ctx, b)).filter((e) => inBounds(e.cursor, b)).sort(byCursor);
      if (b.reverse) all.reverse();
      yield* all;
    },
  };
}

/** A set event; `sources` are the sets it came from when not the events set itself (set algebra, Join). */
function setEvent(ts: bigint | TxnTime, sortTs: bigint, action: 'add' | 'remove', ref: Value, values?: Value[], sources?: Value[]): SetEntry {
  const obj = new EventObj([['ts', ts], ['action', action], ['document', ref]]);
  if (values && values.length) obj.set('data', values);
  const cursor: Value[] = [sortTs, RANK[action], ref];
  if (values && values.length) cursor.push(values);
  return sources ? { cursor, value: obj, sources } : { cursor, value: obj };
}

/**
 * Documents(coll): add on create, remove on delete, from the versions of every document of the
 * collection, deleted ones included.
 */
async function documentsEvents(ctx: EvalContext, set: SetV, t: Target & { kind: 'doc' }, dbRef: Ref | undefined): Promise<EventSource> {
  const collName = t.coll.name;
  const readable = async (ctx: EvalContext, id: bigint) => allowed(ctx, 'history_read', { ...t, id });
  return sortedSource(set, async (ctx, b) => {
    const fromTs = tsBound(b.from);
    const toTs = tsBound(b.to);
    const out: SetEntry[] = [];
    for await (const doc of ctx.txn.scan(t.db, Number(t.coll.id), { withDeleted: true })) {
      await ctx.budget.breathe();
      if (!(await readable(ctx, doc.id))) continue;
      const ref = new Ref(String(doc.id), Ref.collection(collName, dbRef));
      const key: DocKey = { db: t.db, coll: Number(t.coll.id), id: doc.id };
      for await (const v of ctx.txn.history(key, { fromTs, toTs })) {
        await ctx.budget.breathe();
        if (v.action === 'update') continue;
        out.push(setEvent(v.ts, tsOf(ctx, v.ts), v.action === 'create' ? 'add' : 'remove', ref));
      }
    }
    return out;
  });
}

/** Match(index, terms): the add/remove events of the matching index entries. */
async function matchEvents(ctx: EvalContext, set: SetV, match: SetV, pos: Position): Promise<EventSource> {
  const { def, visible, prefix, arityOk, matches } = await openMatch(ctx, match, pos);
  return sortedSource(set, async (ctx, b) => {
    if (!arityOk) return [];
    const fromTs = tsBound(b.from);
    const toTs = tsBound(b.to);
    const out: SetEntry[] = [];
    const to = prefix.length ? prefixEnd(prefix) : undefined;
    for await (const e of ctx.txn.indexHistory(def.db, def.id, { from: prefix, to, fromTs })) {
      await ctx.budget.breathe();
      const ts = tsOf(ctx, e.ts);
      if (toTs !== undefined && ts >= toTs + 1n) continue;
      const named = namedPayload(ctx.txn, e.payload, ctx.snapshotTs);
      const { terms: entryTerms, values, ref } = named instanceof Promise ? await named : named;
      if (!matches(entryTerms)) continue;
      if (visible && ref instanceof Ref && !(await visible(ctx, ref))) continue;
      out.push(setEvent(e.ts, ts, e.action, ref, values));
    }
    return out;
  });
}

const SET_ALGEBRA = new Set(['union', 'intersection', 'difference', 'distinct']);

/** A moment an element of a combined set may have joined or left it. */
interface Candidate {
  ts: bigint;
  /** The event's own ts (a transaction time for this transaction's writes). */
  stamp: bigint | TxnTime;
  /** The element's cursor in the combined set: [...values, ref] or [ref]. */
  element: Value[];
  /**
   * The sets whose event this is, for `sources: true`. As in Fauna (set/HistoricalSet.scala: only a
   * non-composite set's events name the events set itself), a combination's events name the operand
   * sets they came from (for a nested combination, its own operands), a Join's the target set.
   */
  sources?: Value[];
}

/** A candidate from an operand's event; `operand` is the set it names unless the event names its own. */
function candidateOf(e: SetEntry, operand?: Value): Candidate {
  const [ts, , ref, values] = e.cursor as [bigint, bigint, Value, Value[] | undefined];
  const stamp = isObj(e.value) ? (e.value.get('ts') as bigint | TxnTime) : ts;
  const sources = e.sources ?? (operand === undefined ? undefined : [operand]);
  return { ts, stamp, element: Array.isArray(values) ? [...values, ref] : [ref], sources };
}

/**
 * The events of a set combined from historical sets (set algebra, Join): an element's membership
 * can only change when some underlying set has an event that involves it, so each such event is a
 * candidate, and the combined set is read just before and at its ts — add when the element joined
 * the combination, remove when it left, nothing when its membership did not change. With
 * `byValue` (Distinct) membership is whether any element has the candidate's values.
 */
function membershipEvents(
  set: SetV,
  whole: SetSource,
  candidates: (ctx: EvalContext, b: ScanBounds) => Promise<Candidate[]>,
  byValue: boolean,
): EventSource {
  const present = async (ctx: EvalContext, element: Value[], at: bigint): Promise<boolean> => {
    if (at < 0n) return false;
    const bound = byValue && element.length > 1 ? element.slice(0, -1) : element;
    const when = at < ctx.snapshotTs ? at : undefined;
    for await (const e of whole.scan(ctx, { from: bound, to: bound, toInclusive: true, reverse: false, at: when })) {
      const c = compareCursors(e.cursor.slice(0, bound.length), bound);
      if (c === 0) return true;
      if (c > 0) return false;
    }
    return false;
  };
  return sortedSource(set, async (ctx, b) => {
    const all = (await candidates(ctx, b)).sort((x, y) => (x.ts < y.ts ? -1 : x.ts > y.ts ? 1 : compareCursors(x.element, y.element)));
    const out: SetEntry[] = [];
    let last: Candidate | undefined;
    for (const c of all) {
      if (last && last.ts === c.ts && compareCursors(last.element, c.element) === 0) continue;
      last = c;
      const before = await present(ctx, c.element, c.ts - 1n);
      const after = await present(ctx, c.element, c.ts);
      if (before === after) continue;
      const ref = c.element[c.element.length - 1];
      const values = c.element.length > 1 ? c.element.slice(0, -1) : undefined;
      out.push(setEvent(c.stamp, c.ts, after ? 'add' : 'remove', ref, values, c.sources));
    }
    return out;
  });
}

/** The events sources of set operands (refs or sets); a historical operand cannot be combined. */
async function operandEvents(ctx: EvalContext, operands: Value[], pos: Position): Promise<EventSource[]> {
  const out: EventSource[] = [];
  for (const v of operands) {
    if (isEventsSet(v)) throw errors.invalidArgument('Sets are not compatible.', pos);
    if (!(v instanceof SetV) && !(v instanceof Ref)) throw errors.invalidArgument('Invalid set.', pos);
    out.push(await eventsSource(ctx, eventsSet(v, pos), pos));
  }
  return out;
}

async function scanAll(source: SetSource, ctx: EvalContext, b: ScanBounds): Promise<SetEntry[]> {
  const out: SetEntry[] = [];
  for await (const e of source.scan(ctx, { ...b, reverse: false })) out.push(e);
  return out;
}

/** Union/Intersection/Difference/Distinct: candidates are the operands' events. */
async function algebraEvents(ctx: EvalContext, set: SetV, inner: SetV, head: string, pos: Position): Promise<EventSource> {
  const arg = inner.expr.get(head) ?? null;
  const operands = head === 'distinct' || !Array.isArray(arg) ? [arg] : arg;
  const subs = await operandEvents(ctx, operands, pos);
  const whole = await sourceOf(ctx, head === 'distinct' ? (arg as SetV | Ref) : inner, pos);
  const candidates = async (ctx: EvalContext, b: ScanBounds) =>
    (await Promise.all(subs.map(async (s, i) => (await scanAll(s, ctx, b)).map((e) => candidateOf(e, operands[i]))))).flat();
  return membershipEvents(set, whole, candidates, head === 'distinct');
}

/**
 * Join(source, index or lambda): an element joins or leaves when a source element whose value
 * leads to it comes or goes (every element of that value's target set, just before and at that
 * time, is a candidate), or when it enters or leaves a target set: every event of the target
 * index, or for a lambda, every event of the target set of each source value of the window.
 */
async function joinEvents(ctx: EvalContext, set: SetV, inner: SetV, pos: Position): Promise<EventSource> {
  const target = inner.expr.get('with');
  if (!(target instanceof Ref) && !(target instanceof Lambda)) throw errors.invalidArgument('Invalid set.', pos);
  const [source] = await operandEvents(ctx, [inner.expr.get('join') ?? null], pos);
  const def = target instanceof Ref ? (await matchedIndex(ctx, target, pos, [])).def : undefined;
  const whole = await sourceOf(ctx, inner, pos);
  const targetSet = async (ctx: EvalContext, value: Value, at: bigint | undefined): Promise<SetV | Ref> => {
    if (target instanceof Ref) return new SetV(new Map<string, Value>([['match', target], ['terms', value]]));
    const s = await applySetLambda(ctx, target, value, at, 'set joins', pos);
    if (!(s instanceof SetV) && !(s instanceof Ref)) mismatch('Set', s, pos);
    return s;
  };
  const valueOf = (element: Value[]): Value => (element.length <= 2 ? element[0] : element.slice(0, -1));
  return membershipEvents(
    set,
    whole,
    async (ctx, b) => {
      const out: Candidate[] = [];
      const values: Value[] = [];
      for (const e of await scanAll(source, ctx, b)) {
        const c = candidateOf(e);
        const value = valueOf(c.element);
        values.push(value);
        for (const at of [c.ts - 1n, c.ts]) {
          if (at < 0n) continue;
          const when = at < ctx.snapshotTs ? at : undefined;
          const targetV = await targetSet(ctx, value, when);
          const matched = await sourceOf(ctx, targetV, pos);
          for await (const m of matched.scan(ctx, { reverse: false, at: when })) out.push({ ...c, element: m.cursor, sources: [targetV] });
        }
      }
      const fromTs = tsBound(b.from);
      const toTs = tsBound(b.to);
      if (def) {
        for await (const e of ctx.txn.indexHistory(def.db, def.id, { fromTs })) {
          await ctx.budget.breathe();
          const ts = tsOf(ctx, e.ts);
          if (toTs !== undefined && ts > toTs) continue;
          const named = namedPayload(ctx.txn, e.payload, ctx.snapshotTs);
          const { terms, values: v, ref } = named instanceof Promise ? await named : named;
          const targetV = new SetV(new Map<string, Value>([['match', target], ['terms', terms.length === 1 ? terms[0] : terms]]));
          out.push({ ts, stamp: e.ts, element: [...v, ref], sources: [targetV] });
        }
        return out;
      }
      // Source values present when the window opens, then those that came within it.
      if (fromTs !== undefined && fromTs > 0n) {
        const plain = await sourceOf(ctx, inner.expr.get('join') as SetV | Ref, pos);
        for await (const e of plain.scan(ctx, { reverse: false, at: fromTs - 1n < ctx.snapshotTs ? fromTs - 1n : undefined })) values.push(e.value);
      }
      for (const value of values) {
        const targetV = await targetSet(ctx, value, undefined);
        const sub = await eventsSource(ctx, eventsSet(targetV, pos), pos);
        for (const e of await scanAll(sub, ctx, b)) out.push(candidateOf(e, targetV));
      }
      return out;
    },
    false,
  );
}

const ACTIONS = new Map<bigint, string>([[0n, 'add'], [1n, 'update'], [2n, 'delete'], [3n, 'remove']]);

/** A rendered event cursor {ts, action, document[, data]} for an entry. */
function renderCursor(e: SetEntry): Value {
  const v = e.value;
  if (isObj(v)) {
    const out = new EventObj();
    for (const k of ['ts', 'action', 'document', 'data']) {
      const x = v.get(k);
      if (x !== undefined && !(k === 'data' && !Array.isArray(x))) out.set(k, x);
    }
    return out;
  }
  const [ts, rank, ref] = e.cursor;
  return new EventObj([['ts', ts], ['action', ACTIONS.get(rank as bigint) ?? 'add'], ['document', ref]]);
}

/** An event cursor argument as a cursor prefix: µs, Time, Date, or {ts, action?, document?, data?}. */
function parseCursor(v: Value, pos: Position): Value[] {
  if (typeof v === 'bigint') return [v];
  if (v instanceof Time) return [v.micros];
  if (v instanceof DateV) return [BigInt(v.days) * 86_400_000_000n];
  if (Array.isArray(v) && v.length) return parseCursor(v[0], pos);
  if (isObj(v)) {
    const extra = [...v.keys()].filter((k) => !['ts', 'action', 'document', 'instance', 'resource', 'data', 'values'].includes(k));
    if (extra.length || !v.has('ts')) throw errors.invalidArgument(`Cannot create event cursor with keys ${[...v.keys()].join(', ')}`, pos);
    const out = parseCursor(v.get('ts') ?? null, pos);
    const action = v.get('action');
    if (action === undefined) return out;
    if (typeof action !== 'string' || RANK[action] === undefined)
      throw errors.invalidArgument(`String 'create', 'update', or 'delete' expected, ${typeof action === 'string' ? 'String' : 'Value'} provided.`, pos);
    out.push(RANK[action]);
    const ref = v.get('document') ?? v.get('instance') ?? v.get('resource');
    if (ref === undefined) return out;
    out.push(ref);
    const data = v.get('data') ?? v.get('values');
    if (Array.isArray(data) && data.length) out.push(data);
    return out;
  }
  mismatch('Time or Integer', v, pos);
}

interface EventPageRequest {
  size: number;
  after?: Value;
  before?: Value;
  /** `sources: true`: each event becomes {value: event, sources: [sets]}; cursors stay plain events. */
  sources?: boolean;
  /** Valid time of the read (inside At, or Paginate's `ts`): no event after it is seen. */
  at?: bigint;
  pos: Position;
}

/**
 * `source` as read at valid time `at`: the history a read at that time sees ends there, so the
 * scan's upper bound is cut at the first cursor after it (event cursors begin with their ts).
 */
function seenAt(source: EventSource, at: bigint | undefined): EventSource {
  if (at === undefined) return source;
  const end: Value[] = [at + 1n];
  return {
    set: source.set,
    compare: source.compare,
    render: source.render,
    scan: (ctx, b) => (b.to && b.to.length && compareCursors(b.to, end) <= 0 ? source.scan(ctx, b) : source.scan(ctx, { ...b, to: end, toInclusive: false })),
  };
}

/** Paginate over an events set: event cursors in, rendered event cursors out. */
export async function paginateEvents(ctx: EvalContext, set: SetV, req: EventPageRequest): Promise<Page> {
  const source = seenAt(await eventsSource(ctx, set, req.pos), req.at);
  return paginateSet(ctx, source, { ...req, at: undefined }, { parse: (v) => parseCursor(v, req.pos), render: (e) => source.render(e) });
}

setEventsPaginator((ctx, input, wrap, req) =>
  paginateEvents(ctx, wrap ? eventsSet(input, req.pos) : (input as SetV), req),
);
