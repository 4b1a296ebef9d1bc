// Performance hints (Hints.scala): added to the summary after the logs, once each, only when the
// request asks for them (`x-performance-hints: true`), at the span of the call that earned them.

import type { CallCtx } from './table';
import { frameSpan } from './table';
import type { ValueSet } from './sets';

const LINK = 'https://docs.fauna.com/performance_hint/';

function emitHint(ctx: CallCtx, code: string, text: string): void {
  if (ctx.hooks.performanceHints !== true) return;
  ctx.emit({ name: 'performance_hint', message: `${code} - ${text}. See ${LINK}${code}.`, span: frameSpan(ctx) });
}

/** A set method that reads all of `set` (Sets.maybeEmitSetHint). */
export function fullSetRead(ctx: CallCtx, set: ValueSet, method: string): void {
  if (set.readsFullStorageSet()) emitHint(ctx, 'full_set_read', `Using ${method}() causes the full set to be read`);
}

/** `where` or `firstWhere` on a collection (CollectionCompanion.maybeEmitHint). */
export function collectionScan(ctx: CallCtx, collection: string, method: string): void {
  emitHint(ctx, 'collection_scan', `Using ${method}() on collection ${collection} can cause a read of every document`);
}
