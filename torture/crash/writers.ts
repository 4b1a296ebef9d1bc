// The crash part's writers: each creates, updates and deletes its own documents, one to three at a
// time in one query, and tells the model what it sent and how it was answered. Now and then one
// breaks the unique index on purpose with another write beside it: refused, none of it may stay.
// A writer stops at the kill, or at any answer that leaves the store's state unknown to it.

import { query as q, type Client, type Expr } from 'faunadb';
import type { CrashModel, Data, Effect } from './model';
import { COLLECTION, docRef } from './observe';

export interface WriterCounts {
  sent: number;
  acknowledged: number;
  /** Refused by design (the unique index) or by a conflict: 4xx answers. */
  refused: number;
  /** Answers ≥ 500 while the server was up (must be 0; 503 `time out` aside). */
  serverErrors: string[];
}

export interface Writer {
  client: Client;
  model: CrashModel;
  owner: number;
  rand: () => number;
  /** A fresh document id (numeric, as Fauna's). */
  nextId: () => string;
  /** Names transactions: unique across the run. */
  txPrefix: string;
  /** Settles when the server has been killed. */
  killed: Promise<void>;
  counts: WriterCounts;
}

type Answer = { ok: true; ts: bigint } | { ok: false; status: number; code: string; description: string } | { ok: false; status: 0; code: 'unknown'; description: string };

async function send(client: Client, expr: Expr[], killed: Promise<void>): Promise<Answer | 'killed'> {
  let ts: string | undefined;
  const run = client
    .query(q.Do(...expr), { observer: (res) => void (ts = String((res.responseHeaders as Record<string, string>)['x-txn-time'])) })
    .then(
      (): Answer => ({ ok: true, ts: BigInt(ts!) }),
      (err: { requestResult?: { statusCode: number; responseContent?: { errors?: { code: string; description: string }[] } }; message?: string }): Answer => {
        const status = err.requestResult?.statusCode;
        if (!status) return { ok: false, status: 0, code: 'unknown', description: String(err.message ?? err) };
        const e = err.requestResult!.responseContent?.errors?.[0];
        return { ok: false, status, code: e?.code ?? '?', description: e?.description ?? '' };
      },
    );
  return Promise.race([run, killed.then(() => 'killed' as const)]);
}

function draw(w: Writer, tx: string): Effect[] {
  const live = w.model.liveOf(w.owner);
  const effects: Effect[] = [];
  const used = new Set<string>();
  const count = 1 + Math.floor(w.rand() * 3);
  for (let i = 0; i < count; i++) {
    const roll = w.rand();
    const target = live.length ? live[Math.floor(w.rand() * live.length)] : undefined;
    if (target && !used.has(target.id) && roll < 0.45) {
      used.add(target.id);
      const after: Data = { ...target.data, n: Math.floor(w.rand() * 1000), tx };
      effects.push({ id: target.id, action: 'update', before: target.data, after });
    } else if (target && !used.has(target.id) && roll < 0.6) {
      used.add(target.id);
      effects.push({ id: target.id, action: 'delete', before: target.data, after: null });
    } else {
      const id = w.nextId();
      effects.push({ id, action: 'create', before: null, after: { key: `k${id}`, owner: w.owner, n: Math.floor(w.rand() * 1000), tx } });
    }
  }
  return effects;
}

function exprOf(effects: Effect[]): Expr[] {
  return effects.map((e) =>
    e.action === 'create'
      ? q.Create(docRef(e.id), { data: e.after })
      : e.action === 'update'
        ? q.Update(docRef(e.id), { data: { n: e.after!.n, tx: e.after!.tx } })
        : q.Delete(docRef(e.id)),
  );
}

/** Writes until the kill (or an answer it cannot place). */
export async function runWriter(w: Writer): Promise<void> {
  for (let seq = 0; ; seq++) {
    const tx = `${w.txPrefix}w${w.owner}s${seq}`;
    const effects = draw(w, tx);
    // Now and then a key already taken: the unique index refuses the whole transaction.
    const live = w.model.liveOf(w.owner).filter((d) => !effects.some((e) => e.id === d.id));
    const clash = live.length > 0 && w.rand() < 0.05 ? live[0] : undefined;
    const expr = clash
      ? [...exprOf(effects), q.Create(q.Ref(q.Collection(COLLECTION), w.nextId()), { data: { ...clash.data, tx } })]
      : exprOf(effects);
    w.model.begin(tx, effects);
    w.counts.sent++;
    const a = await send(w.client, expr, w.killed);
    if (a === 'killed') return;
    if (a.ok && !clash) {
      w.model.ack(tx, a.ts);
      w.counts.acknowledged++;
    } else if (a.ok) {
      w.counts.serverErrors.push(`tx ${tx}: a duplicate of key ${clash!.data.key} was accepted`);
      return;
    } else if (a.status >= 400 && a.status < 500) {
      w.model.refuse(tx);
      w.counts.refused++;
      if (clash ? a.code !== 'instance not unique' : a.status !== 409) w.counts.serverErrors.push(`tx ${tx}: ${a.status} ${a.code}: ${a.description}`);
    } else {
      // A 5xx or a lost connection while the server was up: what the store holds is unknown until
      // the next restart settles it.
      if (!(a.status === 503 && a.code === 'time out') && a.status !== 0) w.counts.serverErrors.push(`tx ${tx}: ${a.status} ${a.code}: ${a.description}`);
      if (a.status === 0) w.counts.serverErrors.push(`tx ${tx}: connection failed while the server was up: ${a.description}`);
      return;
    }
  }
}
