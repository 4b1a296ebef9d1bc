// Sends writes in batches of one transaction each, several in flight, and keeps a record that
// fails from failing the others: Fauna's error position names the statement of the batch at
// fault (`[i, …]`), which is reported and the rest sent again; an error of the batch as a
// whole (too large, too much compute) halves it until the single record at fault is found. A
// record is written whole or not at all: each batch is one transaction.

import { QueryFailed, type QueryClient } from '../queryClient';
import { batch } from './statements';

/** 409 contended transaction, 429 too many requests, 503 unavailable. */
const RETRIED = new Set([409, 429, 503]);
const MAX_ATTEMPTS = 8;

export interface BatchOptions {
  /** Records per batch, and bytes of statements per batch, at most. */
  records: number;
  bytes: number;
  /** Batches in flight at once. */
  inFlight: number;
}

export interface Sink<T> {
  /** The statement that writes `item`. */
  statement(item: T): string;
  /** What the statement answered. */
  done(item: T, answer: unknown): void;
  /** The server refused the item (its own fault, not the batch's). */
  refused(item: T, error: QueryFailed): void;
}

export class Batcher<T> {
  private items: T[] = [];
  private statements: string[] = [];
  private bytes = 0;
  private readonly running = new Set<Promise<void>>();
  private failure: unknown;

  constructor(
    private readonly client: QueryClient,
    private readonly sink: Sink<T>,
    private readonly opts: BatchOptions,
  ) {}

  /** Queues `item`; waits while as many batches as allowed are in flight (memory stays bounded). */
  async add(item: T): Promise<void> {
    if (this.failure) throw this.failure;
    const s = this.sink.statement(item);
    if (this.items.length > 0 && (this.items.length >= this.opts.records || this.bytes + s.length > this.opts.bytes)) await this.send();
    this.items.push(item);
    this.statements.push(s);
    this.bytes += s.length;
  }

  /** Sends what is queued and waits for every batch. */
  async flush(): Promise<void> {
    if (this.items.length > 0) await this.send();
    await Promise.all(this.running);
    if (this.failure) throw this.failure;
  }

  private async send(): Promise<void> {
    const items = this.items;
    const statements = this.statements;
    this.items = [];
    this.statements = [];
    this.bytes = 0;
    const run = this.write(items, statements).catch((e: unknown) => {
      this.failure ??= e;
    });
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
    while (this.running.size >= this.opts.inFlight) await Promise.race(this.running);
    if (this.failure) throw this.failure;
  }

  private async write(items: T[], statements: string[], attempt = 1): Promise<void> {
    if (items.length === 0) return;
    let answer: unknown;
    try {
      answer = (await this.client.query(batch(statements))).resource;
    } catch (e) {
      if (!(e instanceof QueryFailed)) throw e;
      // Contention with other writers, or a server too busy: the same batch again, later.
      if (RETRIED.has(e.status) && attempt < MAX_ATTEMPTS) {
        await new Promise((r) => setTimeout(r, Math.min(5000, 50 * 2 ** attempt)));
        return this.write(items, statements, attempt + 1);
      }
      if (e.status >= 500 || RETRIED.has(e.status)) throw e;
      const at = typeof e.position[0] === 'number' ? e.position[0] : undefined;
      if (items.length === 1) return this.sink.refused(items[0], e);
      if (at !== undefined && at < items.length) {
        this.sink.refused(items[at], e);
        return this.write([...items.slice(0, at), ...items.slice(at + 1)], [...statements.slice(0, at), ...statements.slice(at + 1)]);
      }
      const half = items.length >> 1;
      await this.write(items.slice(0, half), statements.slice(0, half));
      return this.write(items.slice(half), statements.slice(half));
    }
    const answers = Array.isArray(answer) ? answer : [];
    items.forEach((item, i) => this.sink.done(item, answers[i]));
  }
}
