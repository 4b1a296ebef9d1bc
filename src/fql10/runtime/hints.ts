// Performance hints (Hints.scala): added to the summary after the logs, once each, only when the
// request asks for them (`x-performance-hints: true`), at the span of the call that earned them.

import type { Span } from '../span';
import type { CallCtx } from './table';
import { frameSpan } from './table';
import type { ValueSet } from './sets';

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

/** A top-level field of a document from an index set that no term or value of the index holds
 *  (ReadBroker.maybeEmitHint); a field that a covered path runs through is not hinted. */
export function uncoveredField(ctx: CallCtx, src: IndexSrcHint, field: string, span: Span): void {
  if (ctx.hooks.performanceHints !== true || src.covered.some((p) => p.length === 0 || p[0] === field)) return;
  emitHint(ctx, 'non_covered_document_read', `.${field} is not covered by the ${src.collection}.${src.index} index`, span);
}
