// Sets and Paginate. A set is a lazy, ordered source of entries; each entry has a cursor tuple
// (its sort values, then the ref) and an element value. This issue provides the document sets
// (Documents(coll) and native collections such as Collections() or Keys()); index sets plug into
// the same SetSource interface.

import { define } from './registry';
import { evalArg, evalOptional, argPos, asLong, asTimestamp, mismatch, readTimeOf } from './args';
import { errors, type Position } from '../values/errors';
import { Page, Ref, SetV, type Value } from '../values/types';
import { compareValues } from '../values/order';
import type { EvalContext } from './context';
import { assertResolved, resolveRef, schemaOf, type Target } from '../model/resolve';
import { dbRefOf, docKeyOf, isExpired, readLive } from '../model/documents';
import { checkMinValidTime } from '../model/retention';
import { checkAccess, checkSetRead } from '../model/permissions';
import { NATIVE_IDS, type NamedNative } from '../model/catalog';
import { isBackingIndex } from '../model/schema10/backing';

export interface SetEntry {
  /** The entry's sort values then its ref ([ref] for sets without values): what cursors hold. */
  cursor: Value[];
  /** The element Paginate returns: the ref, the single value, or the array of values. */
  value: Value;
  /** The sets that produced it (Paginate `sources: true`); absent = the set being read. */
  sources?: Value[];
}

export interface ScanBounds {
  /** Inclusive lower bound (a cursor prefix). */
  from?: Value[];
  /** Upper bound (a cursor prefix): exclusive, or inclusive of every entry it prefixes when `toInclusive`. */
  to?: Value[];
  /** Range(set, from, to) bounds are inclusive at both ends. */
  toInclusive?: boolean;
  reverse: boolean;
  /** Valid time of the read; undefined = the snapshot. */
  at?: bigint;
}

export interface SetSource {
  /** Entries in set order within the bounds (cursor prefixes, compared in set order). */
  scan(ctx: EvalContext, bounds: ScanBounds): AsyncIterable<SetEntry>;
  /** The first `n` entries of scan(ctx, bounds), for sources that read them faster at once. Optional. */
  take?(ctx: EvalContext, bounds: ScanBounds, n: number): Promise<SetEntry[]>;
  /** The set order of two entries of this set (merges of several sets use it). */
  compare(a: SetEntry, b: SetEntry): number;
  /** The set this source reads, as `sources: true` reports it. */
  readonly set: SetV | Ref;
}

/** Builds the source of one set shape (the first key of its `@set` object, e.g. `match`). */
export type SetShape = (ctx: EvalContext, set: SetV, pos: Position) => Promise<SetSource>;

const shapes = new Map<string, SetShape>();

export function defineSetShape(head: string, build: SetShape): void {
  if (shapes.has(head)) throw new Error(`set shape ${head} defined twice`);
  shapes.set(head, build);
}

/** Cursor order for sets of refs or values: element by element in FQL order, shorter first. */
export function compareCursors(a: Value[], b: Value[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

const byCursor = (a: SetEntry, b: SetEntry) => compareCursors(a.cursor, b.cursor);

export const DEFAULT_PAGE_SIZE = 64n;
export const MAX_PAGE_SIZE = 100000n;

/** Values that Paginate/Get treat as sets: set values and native collection refs. */
export function isSetLike(v: Value): v is SetV | Ref {
  return v instanceof SetV || (v instanceof Ref && v.collection === undefined);
}

define('documents', async (call, env, ctx) => {
  const coll = await evalArg(call, 'documents', env, ctx);
  if (!(coll instanceof Ref)) mismatch('Collection Ref', coll, argPos(call, 'documents'));
  return new SetV(new Map([['documents', coll]]));
});

/** Resolves a set value to its source, checking the caller may read it. */
export async function sourceOf(ctx: EvalContext, set: SetV | Ref, pos: Position): Promise<SetSource> {
  if (set instanceof Ref) return nativeSource(ctx, set, pos);
  const head = set.expr.keys().next().value as string | undefined;
  const build = head === undefined ? undefined : shapes.get(head);
  if (!build) throw errors.notImplemented(`sets of the form ${[...set.expr.keys()].join('/')}`, pos);
  return build(ctx, set, pos);
}

defineSetShape('documents', async (ctx, set, pos) => {
  const docs = set.expr.get('documents');
  if (set.expr.size !== 1 || !(docs instanceof Ref)) throw errors.invalidArgument('Invalid set.', pos);
  const t = await resolveRef(ctx, docs, pos);
  if (t.kind === 'native') return nativeSource(ctx, docs, pos);
  if (t.kind === 'schema' && t.native === 'collections') {
    if (!t.entry) throw errors.invalidRef(`Ref refers to undefined collection '${t.name}'`, pos);
    return documentsSource(ctx, set, { kind: 'doc', db: t.db, coll: t.entry, id: 0n, scoped: t.scoped }, dbRefOf(docs), pos);
  }
  throw errors.typeMismatch('Collection Ref', 'Ref', pos);
});

async function documentsSource(ctx: EvalContext, set: SetV, t: Target & { kind: 'doc' }, dbRef: Ref | undefined, pos: Position): Promise<SetSource> {
  // User roles without unrestricted_read on the collection see only the documents they may read.
  const visible = await checkSetRead(ctx, t, pos);
  const collName = t.coll.name;
  return {
    set,
    compare: byCursor,
    async *scan(ctx, b) {
      if (b.at !== undefined) checkMinValidTime(ctx, t.coll, b.at);
      const toId = (v: Value[] | undefined) => (v && v.length ? idBound(v[0]) : undefined);
      const upper = toId(b.to);
      for await (const doc of ctx.txn.scan(t.db, Number(t.coll.id), {
        fromId: toId(b.from),
        toId: upper !== undefined && b.toInclusive ? upper + 1n : upper,
        reverse: b.reverse,
        at: b.at,
      })) {
        const pause = ctx.budget.breathe();
        if (pause) await pause;
        if (isExpired(doc.version, b.at ?? ctx.snapshotTs)) continue;
        const ref = new Ref(String(doc.id), Ref.collection(collName, dbRef));
        if (visible && !(await visible(ctx, ref))) continue;
        yield { cursor: [ref], value: ref };
      }
    },
  };
}

async function nativeSource(ctx: EvalContext, ref: Ref, pos: Position): Promise<SetSource> {
  const t = await resolveRef(ctx, ref, pos);
  if (t.kind !== 'native') throw errors.typeMismatch('Set', 'Ref', pos);
  const visible = await checkSetRead(ctx, t, pos);
  const native = t.native;
  const dbRef = ref.database;
  const named = native !== 'keys' && native !== 'tokens' && native !== 'credentials';
  const schema = named ? await schemaOf(ctx, t.db) : undefined;
  const bound = (v: Value[] | undefined): bigint | undefined => {
    if (!v || !v.length) return undefined;
    const first = v[0];
    if (named && first instanceof Ref && first.collection) {
      return schema!.get(native as NamedNative, first.id)?.id ?? idBound(first);
    }
    return idBound(first);
  };
  return {
    set: ref,
    compare: byCursor,
    async *scan(ctx, b) {
      const upper = bound(b.to);
      for await (const doc of ctx.txn.scan(t.db, NATIVE_IDS[native], {
        fromId: bound(b.from),
        toId: upper !== undefined && b.toInclusive ? upper + 1n : upper,
        reverse: b.reverse,
        at: b.at,
      })) {
        const pause = ctx.budget.breathe();
        if (pause) await pause;
        // A key or token whose ttl has passed reads as absent (fql-v4.md §4.2), in sets too.
        if (isExpired(doc.version, b.at ?? ctx.snapshotTs)) continue;
        // A v10 collection's backing indexes are not v4 indexes (the core's IndexSet.Indexes hides them).
        if (native === 'indexes' && isBackingIndex(doc.version.data)) continue;
        const name = doc.version.data?.get('name');
        const elem = named ? Ref.schema(native, String(name), dbRef) : new Ref(String(doc.id), Ref.native(native, dbRef));
        if (visible && !(await visible(ctx, elem))) continue;
        yield { cursor: [elem], value: elem };
      }
    },
  };
}

/**
 * A cursor's ref slot as a document-id bound. A non-ref bound sorts before every ref when its type
 * sorts before refs (numbers, strings, …) and after every ref otherwise (times, booleans, null).
 */
function idBound(v: Value): bigint {
  if (v instanceof Ref) return /^\d+$/.test(v.id) ? BigInt(v.id) : 0n;
  const probe = new Ref('0', Ref.native('collections'));
  return compareValues(v, probe) < 0 ? 0n : 2n ** 64n;
}

/** The first element of a set (Get on a set), or undefined when it is empty. */
export async function firstOfSet(ctx: EvalContext, set: SetV | Ref, pos: Position, at?: bigint): Promise<Value | undefined> {
  const source = await sourceOf(ctx, set, pos);
  for await (const e of source.scan(ctx, { reverse: false, at: at ?? ctx.readAt })) return e.value;
  return undefined;
}

interface PageRequest {
  size: number;
  after?: Value;
  before?: Value;
  at?: bigint;
  /** `sources: true`: each element becomes {value, sources: [the sets that produced it]}. */
  sources?: boolean;
}

/** A page element: the entry's value, or with `sources` the value and the sets that produced it. */
function elementOf(e: SetEntry, source: SetSource, sources: boolean | undefined): Value {
  if (!sources) return e.value;
  return new Map<string, Value>([['value', e.value], ['sources', e.sources ?? [source.set]]]);
}

function asCursor(v: Value): Value[] {
  return Array.isArray(v) ? v : [v];
}

/** How a kind of set reads cursors given to Paginate and writes the ones it returns. */
export interface CursorCodec {
  parse(v: Value): Value[];
  render(e: SetEntry): Value;
}

const VALUE_CURSORS: CursorCodec = { parse: asCursor, render: (e) => e.cursor };

/** Up to `n` entries of a set from its bounds. */
async function firstEntries(ctx: EvalContext, source: SetSource, bounds: ScanBounds, n: number): Promise<SetEntry[]> {
  if (source.take) return source.take(ctx, bounds, n);
  const items: SetEntry[] = [];
  for await (const e of source.scan(ctx, bounds)) if (items.push(e) >= n) break;
  return items;
}

/** One page of a set; cursors are rendered from the entries, never from the `sources` elements. */
export async function paginateSet(ctx: EvalContext, source: SetSource, req: PageRequest, cursors: CursorCodec = VALUE_CURSORS): Promise<Page> {
  const { size } = req;
  const element = (e: SetEntry) => elementOf(e, source, req.sources);
  if (req.before !== undefined) {
    const to = req.before === null ? undefined : cursors.parse(req.before);
    ctx.budget.array(size);
    const items = await firstEntries(ctx, source, { to, reverse: true, at: req.at }, size + 1);
    const more = items.length > size;
    const page = items.slice(0, size).reverse();
    return new Page(
      page.map(element),
      more && page.length ? cursors.render(page[0]) : undefined,
      req.before === null ? undefined : req.before,
    );
  }
  const from = req.after === undefined || req.after === null ? undefined : cursors.parse(req.after);
  ctx.budget.array(size);
  const items = await firstEntries(ctx, source, { from, reverse: false, at: req.at }, size + 1);
  const more = items.length > size;
  return new Page(
    items.slice(0, size).map(element),
    req.after === undefined || req.after === null ? undefined : req.after,
    more ? cursors.render(items[size]) : undefined,
  );
}

/** Paginate over events (registered by events.ts, which builds on this module). */
export type EventsPaginator = (
  ctx: EvalContext,
  input: Ref | SetV,
  wrap: boolean,
  req: { size: number; after?: Value; before?: Value; sources: boolean; at?: bigint; pos: Position },
) => Promise<Page>;
let eventsPaginator: EventsPaginator | undefined;
export function setEventsPaginator(fn: EventsPaginator): void {
  eventsPaginator = fn;
}

define('paginate', async (call, env, ctx) => {
  const input = await evalArg(call, 'paginate', env, ctx);
  const pos = argPos(call, 'paginate');
  const sizeV = await evalOptional(call, 'size', env, ctx);
  let size = DEFAULT_PAGE_SIZE;
  if (sizeV !== undefined && sizeV !== null) {
    size = asLong(sizeV, argPos(call, 'size'));
    if (size < 1n || size > MAX_PAGE_SIZE) // DECISIONS #12
      throw errors.invalidArgument(`Page size must be between 1 and 100000, got ${size}.`, argPos(call, 'size'));
  }
  const events = (await evalOptional(call, 'events', env, ctx)) === true;
  const withSources = (await evalOptional(call, 'sources', env, ctx)) === true;
  let after = await evalOptional(call, 'after', env, ctx);
  let before = await evalOptional(call, 'before', env, ctx);
  const cursor = await evalOptional(call, 'cursor', env, ctx);
  if (cursor !== undefined && cursor !== null) {
    if (!(cursor instanceof Map) || !(cursor.has('after') || cursor.has('before')))
      throw errors.invalidArgument(
        "Invalid cursor object. Expected an object with either 'before' or 'after' key in it.",
        argPos(call, 'cursor'),
      );
    if (cursor.has('before')) before = cursor.get('before') ?? null;
    else after = cursor.get('after') ?? null;
  }
  const tsV = await evalOptional(call, 'ts', env, ctx);
  let at = ctx.readAt;
  if (tsV !== undefined && tsV !== null) {
    at = readTimeOf(ctx, asTimestamp(tsV, argPos(call, 'ts')));
  }
  if (events || (input instanceof SetV && input.expr.has('events'))) {
    // Historical view (fql-v4.md §5.5): events.ts renders event cursors.
    if (!eventsPaginator) throw errors.notImplemented('Paginate with events', argPos(call, 'events'));
    if (!(input instanceof Ref) && !(input instanceof SetV)) mismatch('Ref or Set', input, pos);
    return eventsPaginator(ctx, input, events, { size: Number(size), after, before, sources: withSources, at, pos });
  }
  if (input instanceof Ref && input.collection !== undefined) {
    // A single document is a one-element set of its ref.
    const t = await resolveRef(ctx, input, pos);
    assertResolved(t, pos);
    await checkAccess(ctx, 'read', t, pos);
    const exists = docKeyOf(t) ? (await readLive(ctx, t, at)) !== null : false;
    return new Page(exists ? [input] : []);
  }
  if (!isSetLike(input)) mismatch('Ref or Set', input, pos);
  const source = await sourceOf(ctx, input, pos);
  return paginateSet(ctx, source, { size: Number(size), after, before, at, sources: withSources });
});
