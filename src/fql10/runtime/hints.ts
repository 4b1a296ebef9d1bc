// Performance hints (Hints.scala): added to the summary after the logs, once each, only when the
// request asks for them (`x-performance-hints: true`), at the span of the call that earned them.

import type { Span } from '../span';
import type { CallCtx } from './table';
import { frameSpan } from './table';
import type { ValueSet } from './sets';
import type { RtValue, Struct } from './values';

const LINK = 'https://docs.fauna.com/performance_hint/';

function emitHint(ctx: CallCtx, code: string, text: string, span: Span = frameSpan(ctx)): void {
  if (ctx.hooks.performanceHints !== true) return;
  ctx.emit({ name: 'performance_hint', message: `${code} - ${text}. See ${LINK}${code}.`, span });
}

/** A set method that reads all of `set` (Sets.maybeEmitSetHint). */
export function fullSetRead(ctx: CallCtx, set: ValueSet, method: string): void {
  if (set.readsFullStorageSet()) emitHint(ctx, 'full_set_read', `Using ${method}() causes the full set to be read`);
}

/** `where` or `firstWhere` on a collection (CollectionCompanion.maybeEmitHint). */
export function collectionScan(ctx: CallCtx, collection: string, method: string): void {
  emitHint(ctx, 'collection_scan', `Using ${method}() on collection ${collection} can cause a read of every document`);
}

/** Where a document came from when an index set returned it (ReadCache.SetSrcHint): the fields its
 *  entries hold, and the span of the index call. */
export interface IndexSrcHint {
  readonly collection: string;
  readonly index: string;
  /** The index's terms and values without array steps, as paths of the user's fields (`.a.b`:
   *  ['a', 'b']; `.data`: [], all of them). */
  readonly covered: readonly (readonly string[])[];
  readonly span: Span;
}

/** A document from an index set returned whole (ReadBroker.maybeEmitDocHint). */
export function indexDocMaterialized(ctx: CallCtx, src: IndexSrcHint): void {
  emitHint(ctx, 'non_covered_document_read', `Full documents returned from ${src.collection}.${src.index}`, src.span);
}

/** Whether a term or value of the index can hold `path` or a field under it (ReadBroker.isPathPossiblyCoveredInSrcs). */
function possiblyCovered(src: IndexSrcHint, path: readonly string[]): boolean {
  return src.covered.some((p) => startsWith(p, path) || startsWith(path, p));
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((s, i) => path[i] === s);
}

function notCovered(ctx: CallCtx, src: IndexSrcHint, path: readonly string[], span: Span): void {
  emitHint(ctx, 'non_covered_document_read', `${path.map((s) => `.${s}`).join('')} is not covered by the ${src.collection}.${src.index} index`, span);
}

/** A struct read from a document an index set returned, of which the index holds only some fields
 *  (the core's Value.Struct.Partial): where it is, and the span of the access that read it. */
interface PartialStruct {
  readonly src: IndexSrcHint;
  readonly path: readonly string[];
  readonly span: Span;
}

const partials = new WeakMap<Struct, PartialStruct>();

/**
 * The field at `path` (user fields, `.data` left out: [] is the data itself) of a document from
 * an index set, read at `span`, is `value` (ReadBroker.maybeEmitHint): hinted when no term or
 * value of the index can hold it; a struct the index holds only some of is followed, so that
 * reading a field of it the index lacks, or returning it whole, is hinted in turn.
 */
export function coveredRead(ctx: CallCtx, src: IndexSrcHint, path: readonly string[], span: Span, value: RtValue | undefined): void {
  if (ctx.hooks.performanceHints !== true) return;
  if (!possiblyCovered(src, path)) return notCovered(ctx, src, path, span);
  if (value instanceof Map && !src.covered.some((p) => startsWith(path, p))) partials.set(value, { src, path, span });
}

/** Field `name` of struct `self`, read at `span`, is `value`: checked when `self` is a followed struct (Structs.getField0). */
export function structFieldRead(ctx: CallCtx, self: Struct, name: string, span: Span, value: RtValue | undefined): void {
  if (ctx.hooks.performanceHints !== true) return;
  const p = partials.get(self);
  if (p !== undefined) coveredRead(ctx, p.src, [...p.path, name], span, value);
}

/** A followed struct returned whole: the index could not give it (MaterializedValue, checkPaths = false). */
export function structMaterialized(ctx: CallCtx, s: Struct): void {
  if (ctx.hooks.performanceHints !== true) return;
  const p = partials.get(s);
  if (p !== undefined && p.path.length > 0) notCovered(ctx, p.src, p.path, p.span);
}
