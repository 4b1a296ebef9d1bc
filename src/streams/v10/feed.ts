// An event feed's page (runtime/stream/Feed.scala): the source's events after its cursor, up to
// the page size, read in one read-only transaction of the reader. The page stops at the first error
// event; its cursor resumes after the last change looked at, or, when nothing is left, at the
// snapshot (so polling an idle feed is never held back by history retention). A cursor below the
// collection's history retention gets only an `invalid_stream_start_time` error event.

import type { TxnContext } from '../../model/context';
import { cursorToString, type EventCursor } from '../../fql10/store/eventSources';
import { jsonString } from '../../wire/json';
import { failureEvent, openSource, readerContext, renderChange, replayChanges, replayRefusal, statsJson } from './events';
import type { EventsRequest } from './requests';

export async function feedPage(tx: TxnContext, req: EventsRequest, startedMs: number): Promise<string> {
  const ctx = readerContext(tx, 'change feeds requests');
  const from = req.override ?? req.source.cursor;
  const opened = await openSource(ctx, tx, req.source);
  // Below the retention: the error alone, and the cursor stays where it was (Feed.scala).
  const refusal = replayRefusal(opened, from);
  if (refusal !== undefined) {
    const stats = statsJson(1, tx.txn.metrics.reads, tx.txn.metrics.bytesRead, Math.round(performance.now() - startedMs));
    return `{"events":[${refusal}],"cursor":${jsonString(cursorToString(from))},"has_next":false,"stats":${stats}}`;
  }
  const changes = await replayChanges(tx, opened, from);
  const events: string[] = [];
  let last: EventCursor | undefined;
  let i = 0;
  for (; i < changes.length && events.length < req.pageSize; i++) {
    const c = changes[i];
    last = c.cursor;
    let text: string | undefined;
    try {
      text = await renderChange(ctx, opened, c);
    } catch (e) {
      text = failureEvent(e);
      if (text === undefined) throw e;
      events.push(text);
      i++;
      break;
    }
    if (text !== undefined) events.push(text);
  }
  const hasNext = i < changes.length;
  const next = hasNext && last !== undefined ? last : { ts: tx.txn.snapshotTs, ord: 0 };
  const stats = statsJson(Math.max(1, events.length), tx.txn.metrics.reads, tx.txn.metrics.bytesRead, Math.round(performance.now() - startedMs));
  return `{"events":[${events.join(',')}],"cursor":${jsonString(cursorToString(next))},"has_next":${hasNext},"stats":${stats}}`;
}
