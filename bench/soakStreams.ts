// The soak benchmark's streams: document and set streams held open (some closed and reopened
// periodically), over the official driver (HTTP/2, `client.stream`) or plain HTTP/1.1 POST /stream,
// and the check that every write to what a stream follows reached it as exactly one event.
//
// Checking: the load records the transaction time of every write to a followed target. Events and
// writes are compared per stream over windows of transaction time (checkedTo, horizon]: the horizon
// is a time below which every write is known (no write sent before it is still unanswered, as a
// commit's ts is never below the wall clock at which it was sent) and old enough (`DELIVERY_US`)
// for its events to have arrived.

import * as http from 'node:http';
import type { Client, Expr } from 'faunadb';

type Transport = 'driver' | 'h1';

/** Events of a write must have reached every stream this long after its commit. */
export const DELIVERY_US = 5_000_000;

interface Watched {
  readonly id: number;
  /** What it follows: `doc:<id>` or `set`. */
  readonly key: string;
  readonly transport: Transport;
  /** Reopened periodically (the others stay open for the whole run). */
  readonly churn: boolean;
  startTs?: number;
  checkedTo: number;
  /** Transaction times of the events received and not yet checked. */
  received: number[];
  closed: boolean;
  close(): void;
}

export interface StreamTotals {
  open: number;
  events: number;
  /** Events compared with the writes so far (the rest arrived after the last horizon). */
  checked: number;
  opened: number;
  errors: number;
}

export class Streams {
  private readonly streams: Watched[] = [];
  /** Transaction times of the writes to each followed key, not yet checked by every stream. */
  private readonly writes = new Map<string, number[]>();
  private nextId = 1;
  events = 0;
  checked = 0;
  opened = 0;
  readonly errors: string[] = [];

  constructor(
    private readonly url: string,
    private readonly secret: string,
    private readonly driver: Client,
    private readonly exprOf: (key: string) => Expr,
  ) {}

  /** A write to `key` committed at `ts` (µs). */
  recordWrite(key: string, ts: number): void {
    let list = this.writes.get(key);
    if (!list) this.writes.set(key, (list = []));
    list.push(ts);
  }

  totals(): StreamTotals {
    return { open: this.streams.filter((s) => s.startTs !== undefined).length, events: this.events, checked: this.checked, opened: this.opened, errors: this.errors.length };
  }

  open(key: string, transport: Transport, churn: boolean): void {
    const w: Watched = { id: this.nextId++, key, transport, churn, checkedTo: 0, received: [], closed: false, close: () => undefined };
    this.streams.push(w);
    this.opened++;
    const label = `stream ${w.id} (${transport}, ${key})`;
    const onStart = (ts: number) => {
      w.startTs = ts;
      w.checkedTo = ts;
    };
    const onEvent = (txn: number) => {
      if (w.closed) return;
      this.events++;
      w.received.push(txn);
    };
    const onError = (msg: string) => {
      if (!w.closed) this.errors.push(`${label}: ${msg}`);
    };
    if (transport === 'driver') this.openDriver(w, onStart, onEvent, onError);
    else this.openH1(w, onStart, onEvent, onError);
  }

  private openDriver(w: Watched, onStart: (ts: number) => void, onEvent: (txn: number) => void, onError: (m: string) => void): void {
    type Ev = { txn?: number; event?: unknown };
    const sub = this.driver
      .stream(this.exprOf(w.key))
      .on('start', (data: unknown, ev: Ev) => onStart(Number(ev?.txn ?? data)))
      .on('version', (_: unknown, ev: Ev) => onEvent(Number(ev.txn)))
      .on('set', (_: unknown, ev: Ev) => onEvent(Number(ev.txn)))
      .on('history_rewrite', () => onError('unexpected history_rewrite event'))
      .on('error', (e: unknown) => onError(String((e as Error)?.message ?? JSON.stringify(e))));
    sub.start();
    w.close = () => sub.close();
  }

  /** Plain HTTP/1.1 on its own connection: one JSON event per line. */
  private openH1(w: Watched, onStart: (ts: number) => void, onEvent: (txn: number) => void, onError: (m: string) => void): void {
    const req = http.request(new URL('/stream', this.url), {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${this.secret}`, 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        if (res.statusCode !== 200) return void (buffer += chunk);
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (!line) continue;
          const ev = JSON.parse(line) as { type: string; txn: number };
          if (ev.type === 'start') onStart(ev.txn);
          else if (ev.type === 'version' || ev.type === 'set') onEvent(ev.txn);
          else onError(`unexpected event: ${line.slice(0, 300)}`);
        }
      });
      res.on('end', () => onError(res.statusCode === 200 ? 'stream ended by the server' : `status ${res.statusCode}: ${buffer.slice(0, 300)}`));
      res.on('error', (e) => onError(e.message));
    });
    req.on('error', (e) => onError(e.message));
    req.end(JSON.stringify(this.exprOf(w.key)));
    w.close = () => req.destroy();
  }

  /** Opened and sent their start event. */
  allStarted(): boolean {
    return this.streams.every((s) => s.startTs !== undefined);
  }

  /**
   * Compares events with writes in (checkedTo, horizon] for every started stream; returns the
   * number of events checked. A mismatch is an error naming the stream and the counts.
   */
  check(horizon: number): number {
    let checked = 0;
    for (const w of this.streams) checked += this.checkOne(w, horizon);
    this.trim(horizon);
    return checked;
  }

  private checkOne(w: Watched, horizon: number): number {
    if (w.startTs === undefined || horizon <= w.checkedTo) return 0;
    const inWindow = (ts: number) => ts > w.checkedTo && ts <= horizon;
    const expected = (this.writes.get(w.key) ?? []).filter(inWindow).sort((a, b) => a - b);
    const got = w.received.filter(inWindow).sort((a, b) => a - b);
    w.received = w.received.filter((ts) => ts > horizon);
    let missing = 0;
    let unexpected = 0;
    for (let i = 0, j = 0; i < expected.length || j < got.length; ) {
      if (j >= got.length || (i < expected.length && expected[i] < got[j])) (missing++, i++);
      else if (i >= expected.length || got[j] < expected[i]) (unexpected++, j++);
      else (i++, j++);
    }
    if (missing || unexpected) {
      this.errors.push(`stream ${w.id} (${w.transport}, ${w.key}): ${expected.length} writes in (${w.checkedTo}, ${horizon}], ${got.length} events: ${missing} missing, ${unexpected} unexpected`);
    }
    w.checkedTo = horizon;
    this.checked += got.length;
    return got.length;
  }

  /** Drops writes every stream has checked; a stream still opening starts above now - 60 s. */
  private trim(horizon: number): void {
    const floor = Math.min(horizon, Date.now() * 1000 - 60_000_000);
    for (const [key, list] of this.writes) {
      const followers = this.streams.filter((s) => s.key === key && s.startTs !== undefined);
      const keep = Math.min(floor, ...followers.map((s) => s.checkedTo));
      this.writes.set(key, list.filter((ts) => ts > keep));
    }
  }

  /** Checks the oldest of the streams that churn up to `horizon`, closes it and opens its like. */
  churnOne(horizon: number): void {
    const i = this.streams.findIndex((s) => s.churn && s.startTs !== undefined);
    if (i < 0) return;
    const [w] = this.streams.splice(i, 1);
    this.checkOne(w, horizon);
    w.closed = true;
    w.close();
    this.open(w.key, w.transport, true);
  }

  closeAll(): void {
    for (const w of this.streams) {
      w.closed = true;
      w.close();
    }
    this.streams.length = 0;
  }
}
