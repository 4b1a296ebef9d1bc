// Event sources (Value.EventSource, ValueSet.toEventSourceImpl, stdlib/EventSources.scala): what
// `<set>.eventSource()` and `<set>.eventsOn(.a, .b)` return, tagged `@stream` on the wire. Only a
// collection's documents (`Coll.all()`), a user index's entries with terms and one document
// (`Set.single(doc)`) stream, possibly behind `where` and `map`. The token holds the set as a set cursor does (store/cursors.ts), the
// watched fields and the position to start at; whoever presents it reads the events under its own
// secret: /stream/1 and /feed/1 check that the set is in the reader's database and that the
// reader may read the collection, and every event passes the reader's read permission.

import { THIS_NAME, type Expr } from '../ast';
import { Failures } from '../runtime/failure';
import { PagedSet, ProjectedSet, SingletonSet, ValueSet, WhereFilterSet } from '../runtime/sets';
import type { CallCtx, FieldTable } from '../runtime/table';
import { p, tt } from '../runtime/types';
import { ExtValue, Lambda, type Func } from '../runtime/values';
import { StreamToken, type MValue } from '../../wire/v10/model';
import { checkSetRead } from '../../model/permissions';
import { schemaOf } from '../../model/resolve';
import { QueryError } from '../../values/errors';
import { QueryRuntimeFailure } from '../runtime/failure';
import { baseTable } from '../stdlib/base';
import { setFromJson, setToJson } from './cursors';
import { txnOf } from './hooks';
import { CollectionSet, IndexSet, type CollRef } from './sources';
import { DocV } from './docs';

/** A position in the events: a transaction time and the event's place among that transaction's. */
export interface EventCursor {
  readonly ts: bigint;
  readonly ord: number;
}

/** StreamRequest: a `start_ts` on a stream skips every event of that transaction. */
export const MAX_ORDINAL = 2 ** 31 - 1;

export function cursorToString(c: EventCursor): string {
  return Buffer.from(`${c.ts}.${c.ord}`).toString('base64');
}

export function cursorFromString(s: string): EventCursor | undefined {
  const m = /^(\d{1,19})\.(\d{1,10})$/.exec(Buffer.from(s, 'base64').toString('latin1'));
  if (m === null || Buffer.from(`${m[1]}.${m[2]}`).toString('base64') !== s) return undefined;
  const ord = Number(m[2]);
  return ord > MAX_ORDINAL ? undefined : { ts: BigInt(m[1]), ord };
}

export function compareCursors(a: EventCursor, b: EventCursor): number {
  return a.ts !== b.ts ? (a.ts < b.ts ? -1 : 1) : a.ord - b.ord;
}

/** A field path watched by `eventsOn` (names and array indexes). */
export type FieldPath = readonly (string | number)[];

export class EventSourceV extends ExtValue {
  readonly typeName = 'EventSource';
  readonly orderRank = 17;
  constructor(
    readonly set: ValueSet,
    readonly fields: readonly FieldPath[],
    /** Where events start; undefined: at the transaction that made it. */
    readonly cursor: EventCursor | undefined,
  ) {
    super();
  }

  table(): FieldTable {
    return EVENT_SOURCE_TABLE;
  }

  display(): string {
    return '[event source]';
  }

  compare(): number | undefined {
    return undefined;
  }

  toStruct(): Promise<never> {
    return Promise.reject(new Error('an event source has no fields'));
  }

  materialize(ctx: CallCtx): Promise<MValue> {
    const token = eventSourceToken(this, this.cursor ?? { ts: txnOf(ctx).snapshotTs, ord: 0 });
    if (token === undefined) throw new QueryRuntimeFailure('invalid_argument', 'This event source cannot be returned.', ctx.trace);
    return Promise.resolve(new StreamToken(token));
  }
}

const EVENT_SOURCE_TABLE = baseTable('EventSource');
EVENT_SOURCE_TABLE.method('where', [p('predicate', tt.Function)], (ctx, self: EventSourceV, [f]: Func[]) =>
  new EventSourceV(new WhereFilterSet(self.set, f, ctx.validTime, ctx.trace), self.fields, self.cursor),
);
EVENT_SOURCE_TABLE.method('map', [p('mapper', tt.Function)], (ctx, self: EventSourceV, [f]: Func[]) =>
  new EventSourceV(new ProjectedSet(self.set, f, ctx.validTime, ctx.trace), self.fields, self.cursor),
);

// ---- the set a source follows ----

/** The storage set under a source's `where`s and `map`s, and those, innermost first. */
export type SourceShape = {
  /** The collection whose documents the source follows. */
  readonly coll: CollRef;
  readonly steps: readonly (WhereFilterSet | ProjectedSet)[];
} & (
  | { readonly base: CollectionSet | IndexSet; readonly doc?: undefined }
  /** `Set.single(doc)`: the one document it follows. */
  | { readonly base: SingletonSet; readonly doc: DocV }
);

export function shapeOf(set: ValueSet): SourceShape | undefined {
  const steps: (WhereFilterSet | ProjectedSet)[] = [];
  let s = set;
  for (;;) {
    if (s instanceof WhereFilterSet || s instanceof ProjectedSet) {
      steps.unshift(s);
      s = s.inner;
    } else if (s instanceof PagedSet) s = s.inner;
    else break;
  }
  if (s instanceof CollectionSet || s instanceof IndexSet) return { base: s, coll: s.coll, steps };
  if (s instanceof SingletonSet && s.value instanceof DocV) {
    const doc = s.value;
    return { base: s, coll: { db: doc.db, id: doc.collId, name: doc.collName }, doc, steps };
  }
  return undefined;
}

const AT_REFUSAL = 'streaming is not supported for sets created within an `at()` expression.';

/** ValueSet.toEventSourceImpl and changesOn: the set checked, then the caller's right to read it. */
export async function makeEventSource(ctx: CallCtx, set: ValueSet, fieldFns: readonly Func[], method: string): Promise<EventSourceV> {
  const refuse = (reason: string) => Failures.invalidReceiver(method, reason, ctx.trace);
  const shape = shapeOf(set);
  if (shape === undefined) {
    if (innermost(set) instanceof SingletonSet) throw refuse('streaming on `Set.single()` is only supported if its element is a document.');
    throw refuse('only collections and user defined indexes are streamable.');
  }
  if (shape.steps.some((s) => s.validTime !== undefined)) throw refuse(AT_REFUSAL);
  if (shape.doc !== undefined) return singleDocSource(ctx, shape, set, fieldFns, refuse);
  const { base } = shape;
  if (base.readTs !== undefined) throw refuse(AT_REFUSAL);
  if (base.reversed) throw refuse('streaming is not supported on sets that have been reversed.');
  if (base instanceof IndexSet && (base.range.from !== undefined || base.range.to !== undefined))
    throw refuse('range queries are not supported yet, use `.where()` method instead.');
  const fields = watchedPaths(ctx, fieldFns);
  if (fields.length > 0 && shape.steps.length > 0) throw refuse('it was not called on the source set.');
  if (!(await mayReadCollection(ctx, base.coll)))
    throw new QueryRuntimeFailure('permission_denied', `Insufficient privileges to read from collection ${base.coll.name}.`, ctx.trace);
  return new EventSourceV(set, fields, undefined);
}

/** The set under a chain of `where`s, `map`s and pages. */
function innermost(set: ValueSet): ValueSet {
  let s = set;
  while (s instanceof WhereFilterSet || s instanceof ProjectedSet || s instanceof PagedSet) s = s.inner;
  return s;
}

/** SingletonSet.toEventSourceImpl: the document's own read permission, not its collection's. */
async function singleDocSource(
  ctx: CallCtx,
  shape: SourceShape & { doc: DocV },
  set: ValueSet,
  fieldFns: readonly Func[],
  refuse: (reason: string) => Error,
): Promise<EventSourceV> {
  const { doc } = shape;
  if (doc.readTs !== undefined) throw refuse(AT_REFUSAL);
  if ((await doc.nullCause(ctx))?.reason === 'permission denied')
    throw new QueryRuntimeFailure('permission_denied', 'Insufficient privileges to create a stream on the source document.', ctx.trace);
  const fields = watchedPaths(ctx, fieldFns);
  if (fields.length > 0 && shape.steps.length > 0) throw refuse('it was not called on the source set.');
  return new EventSourceV(set, fields, undefined);
}

function watchedPaths(ctx: CallCtx, fieldFns: readonly Func[]): FieldPath[] {
  return fieldFns.map((f, i) => {
    const path = fieldPathOf(f);
    if (path === undefined) throw Failures.invalidArgument(String(i), 'invalid field path given', ctx.trace);
    return path;
  });
}

/** checkReadCollectionPermission: some grant to read the collection's documents. */
export async function mayReadCollection(ctx: CallCtx, coll: CollRef): Promise<boolean> {
  const tx = txnOf(ctx);
  const entry = (await schemaOf(tx, coll.db)).getById('collections', coll.id);
  if (entry === undefined) return false;
  try {
    await checkSetRead(tx, { kind: 'doc', db: coll.db, coll: entry, id: 0n, scoped: false }, []);
    return true;
  } catch (e) {
    if (e instanceof QueryError && e.code === 'permission denied') return false;
    throw e;
  }
}

/** ExprParser.processFieldPathExpr: `.a.b[0]` as ['a', 'b', 0]. */
function fieldPathOf(f: Func): FieldPath | undefined {
  if (!(f instanceof Lambda) || f.params.length !== 1 || f.params[0] !== THIS_NAME) return undefined;
  const body: Expr = f.body;
  if (body.kind !== 'MethodChain' || body.e.kind !== 'Id' || body.e.str !== THIS_NAME) return undefined;
  const path: (string | number)[] = [];
  for (const c of body.chain) {
    if (c.kind === 'Select' && !c.optional) path.push(c.field.str);
    else if (c.kind === 'Access' && c.optional === null && c.args.length === 1 && c.args[0].kind === 'Lit') {
      const v = c.args[0].value;
      if (v.kind === 'Str') path.push(v.value);
      else if (v.kind === 'Int') path.push(Number(v.value));
      else return undefined;
    } else return undefined;
  }
  return path.length > 0 ? path : undefined;
}

// ---- tokens ----

const TOKEN_VERSION = 1;

/** The token of a source starting at `start`; undefined when its set cannot be written down. */
export function eventSourceToken(src: EventSourceV, start: EventCursor): string | undefined {
  const s = setToJson(src.set);
  if (s === undefined) return undefined;
  const body = { v: TOKEN_VERSION, s, f: src.fields, c: [start.ts.toString(), start.ord] };
  return Buffer.from(JSON.stringify(body)).toString('base64');
}

/** A token back as its source (its cursor set), or undefined when it is not one of ours. */
export function eventSourceFromToken(token: string): (EventSourceV & { cursor: EventCursor }) | undefined {
  let o: unknown;
  try {
    o = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof o !== 'object' || o === null) return undefined;
  const { v, s, f, c } = o as { v?: unknown; s?: unknown; f?: unknown; c?: unknown };
  if (v !== TOKEN_VERSION || !Array.isArray(f) || !Array.isArray(c) || c.length !== 2) return undefined;
  const [ts, ord] = c as unknown[];
  if (typeof ts !== 'string' || !/^\d{1,19}$/.test(ts) || typeof ord !== 'number' || !Number.isSafeInteger(ord) || ord < 0) return undefined;
  const fields: FieldPath[] = [];
  for (const path of f as unknown[]) {
    if (!Array.isArray(path) || !path.every((x) => typeof x === 'string' || (typeof x === 'number' && Number.isSafeInteger(x)))) return undefined;
    fields.push(path as (string | number)[]);
  }
  const set = setFromJson(s);
  if (set === undefined || shapeOf(set) === undefined) return undefined;
  return new EventSourceV(set, fields, { ts: BigInt(ts), ord }) as EventSourceV & { cursor: EventCursor };
}
