// FQL v10 event streams (runtime/stream/Subscription.scala) on v4's stream machinery: the store's
// commit feed (commits of every worker of a tier), the response sink that tells a slow reader, and
// the hub's limits (open streams, queued changes, unsent bytes). A stream subscribes to the commit
// feed before its opening transaction takes its snapshot, so every commit above the snapshot is
// delivered once; it opens with a status event at its start cursor, then the replayed events after
// that cursor, then live events, each rendered in a read-only transaction of the reader's secret
// (a revoked secret ends the stream with `permission_loss`). Every `statusEventMs` (5 minutes, as the
// core's Subscription) an idle stream sends a status event: its cursor lets a client that reconnects
// resume from there rather than from the start.

import type { QueryService } from '../../fql/api';
import type { TxnContext } from '../../model/context';
import type { CommitEvent } from '../../storage/types';
import { ProtocolError } from '../../values/errors';
import { badRequest, ProtocolFailure } from '../../wire/v10/errors';
import type { StreamLimits } from '../hub';
import type { StreamSink } from '../sink';
import {
  commitChanges,
  commitConcerns,
  errorEvent,
  failureEvent,
  openSource,
  readerContext,
  renderChange,
  replayChanges,
  replayRefusal,
  SourceRefused,
  statusEvent,
  type Change,
  type OpenedSource,
} from './events';
import type { EventsRequest } from './requests';

const LINE_END = '\r\n';
const REASON = 'stream subscriptions';

export class V10Streams {
  private readonly open = new Set<V10Stream>();

  constructor(
    readonly service: QueryService,
    readonly limits: StreamLimits,
  ) {}

  /** Streams open now. */
  get size(): number {
    return this.open.size;
  }

  /** Opens a stream; throws ProtocolFailure or the transaction's errors (ProtocolError, QueryTimeout). */
  async start(authorization: string | undefined, req: EventsRequest, timeoutMs: number): Promise<V10Stream> {
    if (this.closing) throw new ProtocolFailure('service_timeout', 'The server is shutting down.');
    if (this.open.size >= this.limits.maxOpen) throw new ProtocolFailure('too_many_requests', 'Too many open streams.');
    const from = req.override ?? req.source.cursor;
    if (req.override !== undefined && req.override.ts < req.source.cursor.ts)
      throw badRequest('Invalid stream start time: Stream start time can not be before the stream create time.');
    const stream = new V10Stream(this, authorization);
    this.open.add(stream);
    try {
      const run = await this.service.transact(
        authorization,
        async (tx: TxnContext) => {
          const ctx = readerContext(tx, REASON);
          let opened: OpenedSource;
          try {
            opened = await openSource(ctx, tx, req.source);
          } catch (e) {
            if (e instanceof SourceRefused) throw badRequest(`Error evaluating provided stream, ${e.message}`);
            throw e;
          }
          const lines = [statusEvent(from.ts)];
          const refusal = replayRefusal(opened, from);
          if (refusal !== undefined) return { opened, lines: [...lines, refusal] };
          const changes = await replayChanges(tx, opened, from);
          if (changes.length > this.limits.maxQueuedEvents) {
            lines.push(errorEvent('stream_replay_volume_exceeded', 'Too many events to replay. Recreate the stream and try again.'));
            return { opened, lines };
          }
          for (const c of changes) {
            const line = await renderOrFail(ctx, opened, c);
            if (line !== undefined) lines.push(line);
            if (line?.startsWith('{"type":"error"')) break;
          }
          return { opened, lines };
        },
        { readOnly: true, refuseWritesIn: REASON, timeoutMs, lastSeenTxn: this.service.now() },
      );
      stream.begin(run.result.opened, run.ts, run.result.lines);
      return stream;
    } catch (e) {
      stream.close();
      throw e;
    }
  }

  /** Server shutdown: every stream ends (no error event), new ones are refused. */
  closeAll(): void {
    this.closing = true;
    for (const s of [...this.open]) s.close();
  }
  private closing = false;

  subscribe(s: V10Stream): () => void {
    return this.service.onCommit((c) => s.offer(c));
  }

  removed(s: V10Stream): void {
    this.open.delete(s);
  }
}

async function renderOrFail(ctx: ReturnType<typeof readerContext>, o: OpenedSource, c: Change): Promise<string | undefined> {
  try {
    return await renderChange(ctx, o, c);
  } catch (e) {
    const line = failureEvent(e);
    if (line === undefined) throw e;
    return line;
  }
}

export class V10Stream {
  private opened: OpenedSource | undefined;
  private startTs = 0n;
  private raw: CommitEvent[] | undefined = [];
  private queue: Change[] = [];
  private pending: string[] = [];
  private sink: StreamSink | undefined;
  private closed = false;
  private delivering = false;
  private overflowed = false;
  private readonly unsubscribe: () => void;
  /** The newest commit the feed handed this stream (the feed goes in ts order): every change up to it is queued or sent. */
  private seenTs = 0n;
  private statusTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly owner: V10Streams,
    private readonly authorization: string | undefined,
  ) {
    this.unsubscribe = owner.subscribe(this);
  }

  /** The commit feed: buffered until the source is known, then the changes above the start. */
  offer(c: CommitEvent): void {
    if (this.closed) return;
    if (this.raw !== undefined) {
      if (this.raw.length < this.owner.limits.maxQueuedEvents) this.raw.push(c);
      else this.overflowed = true;
      return;
    }
    if (c.ts > this.seenTs) this.seenTs = c.ts;
    if (c.ts <= this.startTs || !commitConcerns(this.opened!, c)) return;
    this.queue.push(...commitChanges(this.opened!, c));
    if (this.queue.length > this.owner.limits.maxQueuedEvents) this.overflowed = true;
    this.wake();
  }

  begin(opened: OpenedSource, ts: bigint, lines: string[]): void {
    this.opened = opened;
    this.startTs = ts;
    if (ts > this.seenTs) this.seenTs = ts;
    this.pending = lines;
    const raw = this.raw ?? [];
    this.raw = undefined;
    for (const c of raw) this.offer(c);
  }

  attach(sink: StreamSink): void {
    if (this.closed) return sink.end();
    this.sink = sink;
    sink.onClose(() => this.close());
    this.writeAll(this.pending.splice(0));
    this.wake();
    this.statusTimer = setInterval(() => this.sendStatus(), this.owner.limits.statusEventMs);
    this.statusTimer.unref();
  }

  /** A status event at the newest commit seen, when nothing before it is still to be sent. */
  private sendStatus(): void {
    if (this.closed || this.delivering || this.queue.length > 0 || this.sink === undefined) return;
    if (this.sink.buffered > 0) return; // a slow reader: it has events to read before a status
    this.writeAll([statusEvent(this.seenTs)]);
  }

  /**
   * Writes `lines` at once, up to an error event (which ends the stream). One write each time: the
   * `fauna` driver resolves one promise per chunk it receives and awaits only the newest, so lines
   * that reach it as two chunks while its reader is not waiting are lost (node-http2-client.ts).
   */
  private writeAll(lines: string[]): void {
    const failed = lines.findIndex((l) => l.startsWith('{"type":"error"'));
    const sent = failed < 0 ? lines : lines.slice(0, failed);
    if (sent.length > 0) this.sink!.write(sent.join(LINE_END) + LINE_END);
    if (failed >= 0) this.endWith(lines[failed]);
  }

  private endWith(line: string): void {
    this.sink?.write(line + LINE_END);
    this.close();
  }

  private wake(): void {
    if (this.sink === undefined || this.closed || this.delivering) return;
    if (this.overflowed) return this.endWith(errorEvent('stream_overflow', 'Too many events to process.'));
    if (this.queue.length === 0) return;
    this.delivering = true;
    void this.deliver().finally(() => {
      this.delivering = false;
      if (this.queue.length > 0 || this.overflowed) this.wake();
    });
  }

  /** One round: the queued changes rendered in one read-only transaction of the reader. */
  private async deliver(): Promise<void> {
    const sink = this.sink!;
    if (sink.buffered > this.owner.limits.maxBufferedBytes) return this.endWith(errorEvent('stream_overflow', 'Too many events to process.'));
    if (sink.buffered > 0) await sink.drained();
    const batch = this.queue.splice(0, this.owner.limits.batchSize);
    const last = batch[batch.length - 1].cursor.ts;
    const opened = this.opened!;
    let lines: string[];
    try {
      const run = await this.owner.service.transact(
        this.authorization,
        async (tx: TxnContext) => {
          const ctx = readerContext(tx, REASON);
          const out: string[] = [];
          for (const c of batch) {
            const line = await renderOrFail(ctx, opened, c);
            if (line !== undefined) out.push(line);
          }
          return out;
        },
        { readOnly: true, refuseWritesIn: REASON, lastSeenTxn: last },
      );
      lines = run.result;
    } catch (e) {
      if (e instanceof ProtocolError && (e.status === 401 || e.status === 403))
        return this.endWith(errorEvent('permission_loss', 'Stream authentication is no longer valid.'));
      return this.endWith(errorEvent('internal_error', e instanceof Error ? e.message : String(e)));
    }
    if (!this.closed) this.writeAll(lines);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.statusTimer);
    this.unsubscribe();
    this.queue = [];
    this.raw = undefined;
    this.owner.removed(this);
    this.sink?.end();
  }
}
