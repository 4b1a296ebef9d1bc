// Streams (fql-v4.md §1.12, wire.md §6): a stream's body is evaluated read-only to a streamable
// value, then its response (server/stream.ts) stays open and carries one JSON event per line: `start`,
// then `version` / `history_rewrite` (document streams) or `set` (Documents and Match streams),
// and an `error` before the server ends a stream.
//
// The hub subscribes to the store's commit feed only while a stream is open, and dispatches each
// commit to the streams it concerns through maps keyed by document, collection and index, so the
// cost per commit does not grow with the number of open streams. A session is subscribed before
// its start time is taken (its snapshot waits for every commit validated before that), and keeps
// exactly the commits above it: none is lost or seen twice.
//
// Delivery runs in rounds: the sessions with queued changes are grouped by secret, and each group
// renders its changes in one read-only transaction. That re-authenticates the secret (a deleted
// key or a logged-out token ends the stream with `permission denied`), filters out events for
// documents the caller may not read, and renders a change once for all the streams of that secret
// that follow the same thing. A reader that does not keep up is bounded: past maxQueuedEvents
// unsent changes (or maxBufferedBytes unsent bytes), its stream ends with an error event.
// Past maxOpen open streams, or when its body times out, a stream opens with only an error event.

import type { LoggedDatabase } from '../logs/types';
import { randomBytes } from 'node:crypto';
import type { QueryMetrics, QueryService } from '../fql/api';
import { QueryTimeout } from '../model/budget';
import { Env } from '../fql/env';
import { evalExpr } from '../fql/evaluator';
import { NATIVE_IDS } from '../model/catalog';
import type { CommitEvent, CommittedIndexEntry, CommittedVersion } from '../storage/types';
import { ProtocolError, QueryError } from '../values/errors';
import { decodeRequest } from '../wire/decode';
import type { Expr } from '../wire/expr';
import type { StreamSink } from './sink';
import {
  collKeyString,
  docKeyString,
  entryConcerns,
  errorLine,
  eventLine,
  indexKeyString,
  PERMISSION_LOST,
  Renderer,
  streamTarget,
  versionConcerns,
  type Change,
  type StreamField,
  type StreamTarget,
} from './events';
import { log } from '../diag/log';

export interface StreamLimits {
  /** Changes waiting to be rendered and sent, per stream, before it is ended as too slow. */
  maxQueuedEvents: number;
  /** Rendered bytes the connection has not taken yet, per stream, before it is ended as too slow. */
  maxBufferedBytes: number;
  /** Changes rendered in one transaction. */
  batchSize: number;
  /** How long an ended stream may take to flush before it is dropped (slow readers, shutdown). */
  graceMs: number;
  /** Open streams on the server; one more gets a `too many requests` error event (fql-v4.md §1.12). */
  maxOpen: number;
  /** FQL v10: how often a stream sends a status event with its current cursor (Subscription.scala: 5 minutes). */
  statusEventMs: number;
}

const DEFAULT_LIMITS: StreamLimits = {
  maxQueuedEvents: 10_000,
  maxBufferedBytes: 8 * 1024 * 1024,
  batchSize: 256,
  graceMs: 5_000,
  maxOpen: 50_000,
  statusEventMs: 5 * 60_000,
};

/**
 * Limits can be lowered through the environment (tests of slow readers):
 * FLORA_STREAM_MAX_QUEUED_EVENTS, FLORA_STREAM_MAX_BUFFERED_BYTES, FLORA_STREAM_GRACE_MS,
 * FLORA_STREAM_MAX_OPEN, FLORA_STREAM_STATUS_EVENT_MS.
 */
export function limitsFromEnv(env: NodeJS.ProcessEnv): Partial<StreamLimits> {
  const out: Partial<StreamLimits> = {};
  const read = (name: string, key: keyof StreamLimits) => {
    const raw = env[name];
    if (raw !== undefined && /^\d+$/.test(raw) && Number(raw) > 0) out[key] = Number(raw);
  };
  read('FLORA_STREAM_MAX_QUEUED_EVENTS', 'maxQueuedEvents');
  read('FLORA_STREAM_MAX_BUFFERED_BYTES', 'maxBufferedBytes');
  read('FLORA_STREAM_GRACE_MS', 'graceMs');
  read('FLORA_STREAM_MAX_OPEN', 'maxOpen');
  read('FLORA_STREAM_STATUS_EVENT_MS', 'statusEventMs');
  return out;
}

/** Writes to these collections can revoke a stream's secret: every stream re-authenticates. */
const AUTH_COLLECTIONS = new Set<number>([NATIVE_IDS.keys, NATIVE_IDS.tokens, NATIVE_IDS.databases]);
/** A session that got its result but no response within this time is dropped (should not happen). */
const ATTACH_TIMEOUT_MS = 60_000;
const BATCH_TIMEOUT_MS = 60_000;

const PERMISSION_LOST_TEXT = 'Authorization lost during stream evaluation.';
const SHUTTING_DOWN = () => new ProtocolError(503, 'unavailable', 'The server is shutting down.');

export interface OpenRequest {
  authorization: string | undefined;
  body: string;
  /** The `fields` parameter, or its error (reported once the caller is authenticated). */
  fields: readonly StreamField[] | ProtocolError;
  lastSeenTxn?: bigint;
  timeoutMs: number;
}

export type Opened =
  | { ok: true; session: Session; ts: bigint; metrics?: QueryMetrics; database?: LoggedDatabase; open: number }
  | { ok: false; error: unknown; database?: LoggedDatabase };

export class StreamHub {
  private readonly sessions = new Set<Session>();
  /** Sessions still evaluating their body: they see every commit. */
  private readonly evaluating = new Set<Session>();
  private readonly byDoc = new Map<string, Set<Session>>();
  private readonly byColl = new Map<string, Set<Session>>();
  private readonly byIndex = new Map<string, Set<Session>>();
  private unsubscribe: (() => void) | undefined;
  private closing = false;
  /** Sessions with something to deliver (changes or a re-authentication). */
  private readonly dirty = new Set<Session>();
  private delivering = false;
  private deliveryScheduled = false;
  /** The delivery round in progress (its transactions must end before storage closes). */
  private round: Promise<void> = Promise.resolve();
  readonly limits: StreamLimits;

  constructor(
    readonly service: QueryService,
    limits: Partial<StreamLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limitsFromEnv(process.env), ...limits };
  }

  /** Open streams, including those still evaluating their body. */
  get size(): number {
    return this.sessions.size;
  }

  /** Whether the hub is subscribed to the commit feed (only while a stream is open). */
  get subscribed(): boolean {
    return this.unsubscribe !== undefined;
  }

  /**
   * Opens a stream: evaluates `body` read-only as the caller, to a streamable value, with the
   * session subscribed first. Fails (`ok: false`) with a ProtocolError or QueryError.
   * A body that times out, or a stream beyond `maxOpen`, gives a refused session: a 200 response
   * with one error event (fql-v4.md §1.12 lists both as error events).
   */
  async open(req: OpenRequest): Promise<Opened> {
    let database: LoggedDatabase | undefined;
    if (this.closing) return { ok: false, error: SHUTTING_DOWN(), database };
    // Like queries: the body is parsed, and the fields parameter judged, once the caller is known.
    let parsed: Expr | undefined;
    const { fields } = req;
    const session = new Session(this, req.authorization, fields instanceof ProtocolError ? [] : fields);
    this.add(session);
    let run;
    try {
      // Subscribed first, then a snapshot no older than every commit validated before: the
      // commits above the snapshot are exactly those the session must deliver.
      const now = this.service.now();
      run = await this.service.transact(
        req.authorization,
        async (tctx) => {
          database = { id: tctx.scope.db, path: tctx.scope.path };
          if (fields instanceof ProtocolError) throw fields;
          parsed ??= await decodeRequest(req.body, tctx.budget);
          return streamTarget(tctx, await evalExpr(parsed, Env.empty, tctx));
        },
        {
          readOnly: true,
          refuseWritesIn: 'stream requests',
          timeoutMs: req.timeoutMs,
          lastSeenTxn: req.lastSeenTxn !== undefined && req.lastSeenTxn > now ? req.lastSeenTxn : now,
        },
      );
    } catch (e) {
      // A body that outlives X-Query-Timeout is Fauna's `request timeout` event, not an HTTP error.
      if (e instanceof QueryTimeout) {
        if (session.closed) return { ok: false, error: SHUTTING_DOWN(), database };
        const ts = this.service.now();
        session.refuse(ts, 'request timeout', 'Request timed out while opening stream.');
        return { ok: true, session, ts, database, open: this.size };
      }
      session.close();
      return { ok: false, error: e, database };
    }
    if (session.closed) return { ok: false, error: SHUTTING_DOWN(), database };
    // Judged once the caller is authenticated and the body valid, like Fauna's error event.
    if (this.sessions.size - this.evaluating.size >= this.limits.maxOpen) {
      session.refuse(run.ts, 'too many requests', 'Too many open streams.');
      return { ok: true, session, ts: run.ts, metrics: run.metrics, database, open: this.size };
    }
    session.begin(run.result, run.ts);
    this.index(session);
    return { ok: true, session, ts: run.ts, metrics: run.metrics, database, open: this.size };
  }

  /** Ends every stream (server shutdown); new stream requests get 503. */
  closeAll(): void {
    this.closing = true;
    for (const s of [...this.sessions]) s.shutdown();
    for (const fn of this.onCloseAll) fn();
  }

  /** Other streams on the same commit feed (FQL v10's) end with these. */
  private readonly onCloseAll: (() => void)[] = [];
  alsoCloseAll(fn: () => void): void {
    this.onCloseAll.push(fn);
  }

  /** Resolves once no delivery round is running (after closeAll: before storage is closed). */
  async idle(): Promise<void> {
    while (this.delivering || this.deliveryScheduled) {
      await this.round;
      if (this.deliveryScheduled) await new Promise((r) => setImmediate(r));
    }
  }

  private add(session: Session): void {
    this.sessions.add(session);
    this.evaluating.add(session);
    this.unsubscribe ??= this.service.onCommit((c) => this.dispatch(c));
  }

  private index(session: Session): void {
    this.evaluating.delete(session);
    const t = session.target!;
    switch (t.kind) {
      case 'document':
        return addTo(this.byDoc, docKeyString(t.key), session);
      case 'documents':
        return addTo(this.byColl, collKeyString(t.db, t.coll), session);
      case 'match':
        return addTo(this.byIndex, indexKeyString(t.db, t.id), session);
    }
  }

  /** Called once by a session when it closes. */
  remove(session: Session): void {
    this.sessions.delete(session);
    this.evaluating.delete(session);
    this.dirty.delete(session);
    const t = session.target;
    if (t?.kind === 'document') removeFrom(this.byDoc, docKeyString(t.key), session);
    else if (t?.kind === 'documents') removeFrom(this.byColl, collKeyString(t.db, t.coll), session);
    else if (t?.kind === 'match') removeFrom(this.byIndex, indexKeyString(t.db, t.id), session);
    if (this.sessions.size === 0 && this.unsubscribe) {
      this.unsubscribe();
      this.unsubscribe = undefined;
    }
  }

  /** A session has something to deliver. */
  wake(session: Session): void {
    this.dirty.add(session);
    this.schedule();
  }

  private schedule(): void {
    if (this.delivering || this.deliveryScheduled) return;
    this.deliveryScheduled = true;
    // A macrotask later: the writer's own continuation (e.g. dropping cached secrets after a key
    // was deleted) runs first, and the changes of several commits gather into one round.
    setImmediate(() => {
      this.deliveryScheduled = false;
      this.round = this.deliver();
    });
  }

  /** One delivery round: per secret, one transaction renders what every ready session has queued. */
  private async deliver(): Promise<void> {
    this.delivering = true;
    try {
      const groups = new Map<string | undefined, Session[]>();
      for (const s of this.dirty) {
        if (!s.ready) continue; // closed, blocked on a slow reader (woken again on drain), or idle
        let group = groups.get(s.authorization);
        if (!group) groups.set(s.authorization, (group = []));
        group.push(s);
      }
      this.dirty.clear();
      await Promise.all([...groups].map(([authorization, sessions]) => this.deliverGroup(authorization, sessions)));
    } catch (e) {
      log.error('stream delivery failed', { err: e });
    } finally {
      this.delivering = false;
      if (this.dirty.size > 0) this.schedule();
    }
  }

  private async deliverGroup(authorization: string | undefined, sessions: Session[]): Promise<void> {
    const work = sessions.map((s) => ({ s, batch: s.takeBatch() }));
    let last: bigint | undefined;
    for (const w of work) {
      const ts = w.batch.length > 0 ? w.batch[w.batch.length - 1].ts : undefined;
      if (ts !== undefined && (last === undefined || ts > last)) last = ts;
    }
    let texts: (string | typeof PERMISSION_LOST)[];
    try {
      const run = await this.service.transact(
        authorization,
        async (ctx) => {
          const renderer = new Renderer(ctx);
          const out: (string | typeof PERMISSION_LOST)[] = [];
          for (const w of work) out.push(w.batch.length > 0 ? await renderer.render(w.s.target!, w.s.fields, w.s.fieldsKey, w.batch) : '');
          return out;
        },
        // Snapshot at or after the last change: the permission checks see the documents as changed.
        { readOnly: true, refuseWritesIn: 'stream requests', timeoutMs: BATCH_TIMEOUT_MS, lastSeenTxn: last },
      );
      texts = run.result;
    } catch (e) {
      for (const w of work) w.s.fail(e);
      return;
    }
    work.forEach((w, i) => {
      const text = texts[i];
      if (text === PERMISSION_LOST) w.s.endWith('permission denied', PERMISSION_LOST_TEXT);
      else w.s.send(text);
    });
  }

  /** The commit feed listener: hands each change to the sessions it concerns. */
  private dispatch(c: CommitEvent): void {
    for (const s of this.evaluating) s.offerRaw(c);
    let recheck = false;
    for (const v of c.versions) {
      if (this.byDoc.size > 0) {
        const set = this.byDoc.get(docKeyString(v.key));
        if (set) for (const s of set) s.offerVersion(c.ts, v);
      }
      if (this.byColl.size > 0 && !v.rewrite && v.action !== 'update') {
        const set = this.byColl.get(collKeyString(v.key.db, v.key.coll));
        if (set) for (const s of set) s.offerVersion(c.ts, v);
      }
      if (AUTH_COLLECTIONS.has(v.key.coll)) recheck = true;
    }
    if (this.byIndex.size > 0) {
      for (const e of c.indexes) {
        const set = this.byIndex.get(indexKeyString(e.db, e.index));
        if (set) for (const s of set) if (entryConcerns(s.target!, e)) s.offerEntry(c.ts, e);
      }
    }
    if (recheck) for (const s of this.sessions) s.requestRecheck();
  }
}

function addTo(map: Map<string, Set<Session>>, key: string, s: Session): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(s);
}

function removeFrom(map: Map<string, Set<Session>>, key: string, s: Session): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(s);
  if (set.size === 0) map.delete(key);
}

type State = 'evaluating' | 'ready' | 'open' | 'closed';

export class Session {
  readonly id = randomBytes(8).toString('hex');
  target: StreamTarget | undefined;
  private state: State = 'evaluating';
  private startTs = 0n;
  /** Every commit seen while evaluating (filtered once the target and start time are known). */
  private raw: CommitEvent[] = [];
  private queue: Change[] = [];
  private queued = 0;
  private overflowed = false;
  private recheck = false;
  /** Waiting for a slow reader's connection to drain. */
  private blocked = false;
  private sink: StreamSink | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The error line a refused stream answers with instead of its events. */
  private refusal: string | undefined;

  constructor(
    private readonly hub: StreamHub,
    readonly authorization: string | undefined,
    readonly fields: readonly StreamField[],
  ) {
    this.fieldsKey = fields.join(',');
  }

  readonly fieldsKey: string;

  get closed(): boolean {
    return this.state === 'closed';
  }

  /** Open, not waiting for the client, and with something to deliver. */
  get ready(): boolean {
    return this.state === 'open' && !this.blocked && (this.queue.length > 0 || this.recheck);
  }

  // ---- feeding -----------------------------------------------------------------------------

  offerRaw(c: CommitEvent): void {
    if (this.state !== 'evaluating') return;
    if (this.raw.length >= this.hub.limits.maxQueuedEvents) this.overflowed = true;
    else this.raw.push(c);
  }

  /** The evaluation is done: `ts` is the start time; keeps the buffered commits above it. */
  begin(target: StreamTarget, ts: bigint): void {
    this.target = target;
    this.startTs = ts;
    this.state = 'ready';
    const raw = this.raw;
    this.raw = [];
    for (const c of raw) {
      for (const v of c.versions) if (versionConcerns(target, v)) this.offerVersion(c.ts, v);
      for (const e of c.indexes) if (entryConcerns(target, e)) this.offerEntry(c.ts, e);
    }
    this.timer = setTimeout(() => {
      if (this.state === 'ready') this.close();
    }, ATTACH_TIMEOUT_MS);
    this.timer.unref();
  }

  offerVersion(ts: bigint, v: CommittedVersion): void {
    if (!this.accepts(ts)) return;
    this.changeAt(ts).versions.push(v);
    this.counted();
  }

  offerEntry(ts: bigint, e: CommittedIndexEntry): void {
    if (!this.accepts(ts)) return;
    this.changeAt(ts).entries.push(e);
    this.counted();
  }

  requestRecheck(): void {
    if (this.state !== 'ready' && this.state !== 'open') return;
    this.recheck = true;
    this.wake();
  }

  private accepts(ts: bigint): boolean {
    return (this.state === 'ready' || this.state === 'open') && !this.overflowed && ts > this.startTs;
  }

  private changeAt(ts: bigint): Change {
    const last = this.queue[this.queue.length - 1];
    if (last && last.ts === ts) return last;
    const change: Change = { ts, versions: [], entries: [] };
    this.queue.push(change);
    return change;
  }

  private counted(): void {
    if (++this.queued <= this.hub.limits.maxQueuedEvents) return this.wake();
    // Called from the commit feed: whatever happens here must not reach the other streams.
    try {
      this.overflow();
    } catch (e) {
      log.error(`stream ${this.id} failed`, { streamId: this.id, err: e });
      this.close();
    }
  }

  private wake(): void {
    if (this.state === 'open' && !this.blocked && (this.queue.length > 0 || this.recheck)) this.hub.wake(this);
  }

  /** Refused after evaluation: closed now, its response will carry only an error event. */
  refuse(ts: bigint, code: string, description: string): void {
    this.refusal = errorLine(ts, code, description);
    this.close();
  }

  // ---- the response ----------------------------------------------------------------------------

  attach(sink: StreamSink): void {
    clearTimeout(this.timer);
    if (this.refusal !== undefined) {
      sink.write(this.refusal);
      sink.end();
      return;
    }
    if (this.state !== 'ready' || sink.closed) {
      sink.end();
      this.close();
      return;
    }
    this.sink = sink;
    this.state = 'open';
    sink.onClose(() => this.close());
    sink.write(eventLine('start', this.startTs, String(this.startTs)));
    if (this.overflowed) this.overflow();
    else if (this.queue.length > 0 || this.recheck) this.wake();
  }

  /** The oldest queued changes, at most batchSize of them (at least one commit), and the recheck. */
  takeBatch(): Change[] {
    const batch: Change[] = [];
    let n = 0;
    while (this.queue.length > 0 && (n === 0 || n < this.hub.limits.batchSize)) {
      const c = this.queue.shift()!;
      n += c.versions.length + c.entries.length;
      batch.push(c);
    }
    this.queued -= n;
    this.recheck = false;
    return batch;
  }

  /** Writes what a delivery round rendered; waits for a slow reader before the next round. */
  send(text: string): void {
    const sink = this.sink;
    if (this.state !== 'open' || !sink) return;
    if (text && !sink.write(text)) {
      if (sink.buffered > this.hub.limits.maxBufferedBytes) return this.overflow();
      this.blocked = true; // meanwhile changes queue up, bounded by maxQueuedEvents
      void sink.drained().then(() => {
        this.blocked = false;
        this.wake();
      });
      return;
    }
    if (this.queue.length > 0 || this.recheck) this.wake();
  }

  /** A delivery round failed: ends the stream with an error event. */
  fail(e: unknown): void {
    if (e instanceof ProtocolError && (e.status === 401 || e.status === 403)) {
      this.endWith('permission denied', PERMISSION_LOST_TEXT);
    } else if (e instanceof QueryTimeout) {
      this.endWith('time out', 'Stream events timed out.');
    } else {
      if (!(e instanceof QueryError)) log.error(`stream ${this.id} failed`, { streamId: this.id, err: e });
      const message = e instanceof Error ? e.message : String(e);
      this.endWith('internal server error', message);
    }
  }

  /** The reader is too slow: an error event (delivered if it ever catches up), then the end. */
  private overflow(): void {
    if (this.state !== 'open') {
      this.overflowed = true; // reported when the response opens
      this.queue = [];
      this.queued = 0;
      return;
    }
    this.endWith(
      'time out',
      `Stream client is too slow: more than ${this.hub.limits.maxQueuedEvents} events or ${this.hub.limits.maxBufferedBytes} bytes were waiting to be sent.`,
    );
  }

  endWith(code: string, description: string): void {
    const sink = this.sink;
    if (!sink || this.state !== 'open') return this.close();
    sink.write(errorLine(this.hub.service.now(), code, description));
    this.finish(sink);
  }

  /** Server shutdown: ends the response (no error event). */
  shutdown(): void {
    if (this.sink && this.state === 'open') this.finish(this.sink);
    else this.close();
  }

  /** Ends the response; drops it if it has not flushed within the grace period. */
  private finish(sink: StreamSink): void {
    sink.end();
    this.close();
    const t = setTimeout(() => sink.destroy(), this.hub.limits.graceMs);
    t.unref();
    sink.onClose(() => clearTimeout(t));
  }

  /** Stops listening and frees what the session holds; idempotent. */
  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    clearTimeout(this.timer);
    this.raw = [];
    this.queue = [];
    this.queued = 0;
    this.hub.remove(this);
    this.sink?.end();
  }
}
