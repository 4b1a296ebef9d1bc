// The crash part's indexes and their check: each must hold exactly the entries a full scan of its
// source gives (now, and at past timestamps from the acknowledged history), and the unique one
// must never hold a key twice.

import { query as q, values, type Client, type Expr } from 'faunadb';
import type { Data } from './model';
import { COLLECTION, indexEntries } from './observe';

export const BY_KEY = 'crash_by_key';
export const BY_OWNER = 'crash_by_owner';
export const ALL = 'crash_all';

export function createIndexes(): Expr[] {
  const source = q.Collection(COLLECTION);
  return [
    q.CreateIndex({ name: BY_KEY, source, terms: [{ field: ['data', 'key'] }], unique: true }),
    q.CreateIndex({ name: BY_OWNER, source, terms: [{ field: ['data', 'owner'] }], values: [{ field: ['data', 'n'] }, { field: ['ref'] }] }),
    q.CreateIndex({ name: ALL, source, values: [{ field: ['data', 'key'] }, { field: ['data', 'n'] }, { field: ['ref'] }] }),
  ];
}

/** An entry as text: refs by id, so entries of the scan and of the index compare as strings. */
export function entryText(entry: unknown): string {
  const one = (v: unknown): string => (v instanceof values.Ref ? `ref:${v.id}` : JSON.stringify(v));
  return Array.isArray(entry) ? entry.map(one).join(',') : one(entry);
}

function difference(what: string, want: string[], have: string[]): string[] {
  const w = new Map<string, number>();
  for (const x of want) w.set(x, (w.get(x) ?? 0) + 1);
  const out: string[] = [];
  for (const x of have) {
    const n = w.get(x) ?? 0;
    if (n === 0) out.push(`${what}: extra entry [${x}]`);
    else w.set(x, n - 1);
  }
  for (const [x, n] of w) for (let i = 0; i < n; i++) out.push(`${what}: missing entry [${x}]`);
  return out;
}

/** Mismatches between `index` over all documents and `docs` (id → data), as of `ts` when given. */
export async function checkAll(client: Client, docs: Map<string, Data>, ts?: bigint, index = ALL): Promise<string[]> {
  const want = [...docs].map(([id, d]) => entryText([d.key, d.n, new values.Ref(id)]));
  const have = (await indexEntries(client, index, [], ts)).map(entryText);
  return difference(ts === undefined ? index : `${index} at ${ts}`, want, have);
}

/** Mismatches of the per-owner index for `owners`. */
export async function checkByOwner(client: Client, docs: Map<string, Data>, owners: number[]): Promise<string[]> {
  const out: string[] = [];
  for (const owner of owners) {
    const want = [...docs].filter(([, d]) => d.owner === owner).map(([id, d]) => entryText([d.n, new values.Ref(id)]));
    const have = (await indexEntries(client, BY_OWNER, [owner])).map(entryText);
    out.push(...difference(`${BY_OWNER}[${owner}]`, want, have));
  }
  return out;
}

/** Mismatches of the unique index: each live key names its one document, each dead key none. */
export async function checkByKey(client: Client, docs: Map<string, Data>, deadKeys: string[]): Promise<string[]> {
  const want = new Map<string, string[]>();
  for (const [id, d] of docs) want.set(d.key, [...(want.get(d.key) ?? []), entryText(new values.Ref(id))]);
  for (const k of deadKeys) if (!want.has(k)) want.set(k, []);
  const keys = [...want.keys()];
  const out: string[] = [];
  for (let i = 0; i < keys.length; i += 500) {
    const batch = keys.slice(i, i + 500);
    const pages = (await client.query(q.Map(batch, q.Lambda('k', q.Select('data', q.Paginate(q.Match(q.Index(BY_KEY), q.Var('k')), { size: 10 })))))) as unknown[][];
    batch.forEach((k, j) => out.push(...difference(`${BY_KEY}[${k}]`, want.get(k)!, pages[j].map(entryText))));
  }
  for (const [k, ids] of want) if (ids.length > 1) out.push(`${BY_KEY}: key ${k} held by ${ids.length} documents`);
  return out;
}
