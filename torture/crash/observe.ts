// Reading back what a restarted server holds, through the official driver: every document of the
// collection with its data, the history of chosen documents, an index's whole contents (now or at
// a past ts), page by page with the driver's cursors.

import { query as q, type Client, type Expr } from 'faunadb';
import type { Action, Data, Observed, ObservedEvent } from './model';

export const COLLECTION = 'crash_docs';

const PAGE = 1000;

export const docRef = (id: string): Expr => q.Ref(q.Collection(COLLECTION), id);

interface Page<T> {
  data: T[];
  after?: unknown;
}

/** Every element of a paginated set, following `after` cursors; `page(after)` builds the query. */
export async function everything<T>(client: Client, page: (after: unknown) => Expr): Promise<T[]> {
  const out: T[] = [];
  let after: unknown;
  for (;;) {
    const p = (await client.query(page(after))) as Page<T>;
    out.push(...p.data);
    if (p.after === undefined) return out;
    after = p.after;
  }
}

const paginate = (set: Expr, after: unknown, size = PAGE): Expr => q.Paginate(set, after === undefined ? { size } : { size, after: after as Expr });

/** Every document of the collection: id → data. */
export async function allDocuments(client: Client): Promise<Map<string, Data>> {
  const rows = await everything<[string, Data]>(client, (after) =>
    q.Map(paginate(q.Documents(q.Collection(COLLECTION)), after), q.Lambda('r', [q.Select('id', q.Var('r')), q.Select('data', q.Get(q.Var('r')))])),
  );
  return new Map(rows);
}

interface RawEvent {
  ts: number | bigint;
  action: Action;
  data: { tx?: string } | null;
}

/** The history of each of `ids` (documents that never existed have none). */
export async function histories(client: Client, ids: string[]): Promise<Map<string, ObservedEvent[]>> {
  const out = new Map<string, ObservedEvent[]>();
  for (let i = 0; i < ids.length; i += 200) {
    const batch = ids.slice(i, i + 200);
    const pages = (await client.query(q.Map(batch.map(docRef), q.Lambda('r', q.Select('data', q.Paginate(q.Events(q.Var('r')), { size: 1000 })))))) as RawEvent[][];
    batch.forEach((id, j) => out.set(id, pages[j].map((e) => ({ ts: BigInt(e.ts), action: e.action, tx: e.data?.tx ?? null }))));
  }
  return out;
}

/** The observed state of the collection: every document, and the events of `withEvents`. */
export async function observe(client: Client, withEvents: string[]): Promise<Map<string, Observed>> {
  const docs = await allDocuments(client);
  const events = await histories(client, withEvents);
  const out = new Map<string, Observed>();
  for (const [id, data] of docs) out.set(id, { data, events: events.get(id) ?? [] });
  for (const [id, evs] of events) if (!out.has(id)) out.set(id, { data: null, events: evs });
  return out;
}

/** An index's entries (its values tuples) for `terms`, optionally as of `ts`. */
export async function indexEntries(client: Client, index: string, terms: unknown[], ts?: bigint): Promise<unknown[]> {
  const set = terms.length ? q.Match(q.Index(index), terms as Expr[]) : q.Match(q.Index(index));
  return everything<unknown>(client, (after) => (ts === undefined ? paginate(set, after, 10_000) : q.At(q.Time(isoOf(ts)), paginate(set, after, 10_000))));
}

/** A ts in µs since the epoch as an ISO time with microseconds (what `Time` takes). */
export function isoOf(ts: bigint): string {
  const ms = ts / 1000n;
  const base = new Date(Number(ms)).toISOString().slice(0, 19);
  return `${base}.${String(ts % 1_000_000n).padStart(6, '0')}Z`;
}
