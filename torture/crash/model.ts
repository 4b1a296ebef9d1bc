// What the crash part knows the store must hold: every document its writers touched, with each
// acknowledged version, and the transactions left without an answer when the server was killed.
// Pure: the part feeds it answers and, after each restart, the store's state, and it says what is
// lost (an acknowledged version missing), torn (an unanswered transaction half applied) or phantom
// (a document nobody acknowledged or left pending).

export interface Data {
  /** Unique across the collection (a unique index covers it). */
  key: string;
  /** The writer that owns the document: only it writes it, so its state is known exactly. */
  owner: number;
  n: number;
  /** The transaction that wrote this version. */
  tx: string;
}

export type Action = 'create' | 'update' | 'delete';

export interface Effect {
  id: string;
  action: Action;
  before: Data | null;
  after: Data | null;
}

export interface Version {
  ts: bigint;
  action: Action;
  data: Data | null;
}

/** An event of a document's history, as `Events` reports it (an update carries only what changed; `tx` always does). */
export interface ObservedEvent {
  ts: bigint;
  action: Action;
  tx: string | null;
}

/** One document as the store reports it: its current data (null: absent) and its events. */
export interface Observed {
  data: Data | null;
  events: ObservedEvent[];
}

export interface Verdict {
  /** Acknowledged versions missing or different (must be 0). */
  lost: string[];
  /** Unanswered transactions found half applied, or applied at more than one ts (must be 0). */
  torn: string[];
  /** Documents or versions no transaction explains (must be 0). */
  phantom: string[];
  /** Unanswered transactions found applied / not applied. */
  appliedPending: number;
  droppedPending: number;
}

interface Doc {
  state: Data | null;
  versions: Version[];
}

const same = (a: Data | null, b: Data | null): boolean =>
  a === null || b === null ? a === b : a.key === b.key && a.owner === b.owner && a.n === b.n && a.tx === b.tx;

const show = (d: Data | null): string => (d ? `{key ${d.key}, n ${d.n}, tx ${d.tx}}` : 'absent');

export class CrashModel {
  private readonly docs = new Map<string, Doc>();
  /** Transactions sent but not answered (the server died under them), by tx. */
  private readonly pending = new Map<string, Effect[]>();
  /** Documents written (or tried) since the last `settle`: their history is read back in full. */
  readonly touched = new Set<string>();
  acknowledged = 0;

  /** The current state of `id` as acknowledged (null: absent or never created). */
  state(id: string): Data | null {
    return this.docs.get(id)?.state ?? null;
  }

  ids(): string[] {
    return [...this.docs.keys()];
  }

  /** Live documents of `owner`. */
  liveOf(owner: number): { id: string; data: Data }[] {
    const out: { id: string; data: Data }[] = [];
    for (const [id, d] of this.docs) if (d.state && d.state.owner === owner) out.push({ id, data: d.state });
    return out;
  }

  /** A transaction is about to be sent. */
  begin(tx: string, effects: Effect[]): void {
    this.pending.set(tx, effects);
    for (const e of effects) this.touched.add(e.id);
  }

  /** The server answered 200 at `ts`. */
  ack(tx: string, ts: bigint): void {
    const effects = this.pending.get(tx);
    if (!effects) throw new Error(`ack of unknown transaction ${tx}`);
    this.pending.delete(tx);
    this.apply(effects, ts);
    this.acknowledged++;
  }

  /** The server refused it (a 4xx): nothing of it may be in the store. */
  refuse(tx: string): void {
    this.pending.delete(tx);
  }

  /** The unanswered transactions, the documents they touch included. */
  pendingIds(): string[] {
    return [...this.pending.values()].flatMap((es) => es.map((e) => e.id));
  }

  /** The state at `ts` of every document that existed then, from the acknowledged versions. */
  stateAt(ts: bigint): Map<string, Data> {
    const out = new Map<string, Data>();
    for (const [id, d] of this.docs) {
      let at: Data | null = null;
      for (const v of d.versions) if (v.ts <= ts) at = v.data;
      if (at) out.set(id, at);
    }
    return out;
  }

  /** Every acknowledged ts, oldest first. */
  timestamps(): bigint[] {
    const all = new Set<bigint>();
    for (const d of this.docs.values()) for (const v of d.versions) all.add(v.ts);
    return [...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /**
   * Compares the store after a restart with what was acknowledged; each unanswered transaction is
   * settled as applied (all of its effects there, at one ts) or not (none of them). `observed` holds
   * every document of the collection, and at least those `ids()` and `pendingIds()` name.
   * `withEvents`: the documents whose events were read (the others are checked by state alone).
   */
  settle(observed: Map<string, Observed>, withEvents: Set<string>): Verdict {
    const v: Verdict = { lost: [], torn: [], phantom: [], appliedPending: 0, droppedPending: 0 };
    const explained = new Set<string>();
    for (const [tx, effects] of this.pending) {
      const now = effects.map((e) => observed.get(e.id)?.data ?? null);
      const applied = effects.every((e, i) => same(now[i], e.after));
      const dropped = effects.every((e, i) => same(now[i], e.before));
      for (const e of effects) explained.add(e.id);
      if (applied && !dropped) {
        // Its effects must share one commit ts, found in each document's events.
        const tss = new Set<bigint>();
        for (const e of effects) {
          const evs = observed.get(e.id)?.events;
          const last = evs?.[evs.length - 1];
          if (last && withEvents.has(e.id)) tss.add(last.ts);
        }
        if (tss.size > 1) v.torn.push(`tx ${tx} applied at several ts: ${[...tss].join(', ')}`);
        const ts = tss.size ? [...tss][0] : this.lastTsOf(effects, observed);
        this.apply(effects, ts);
        v.appliedPending++;
      } else if (dropped) {
        v.droppedPending++;
      } else {
        v.torn.push(`tx ${tx} half applied: ${effects.map((e, i) => `${e.id} ${e.action} -> ${show(now[i])} (before ${show(e.before)}, after ${show(e.after)})`).join('; ')}`);
        // What the store holds is now the truth; later trials build on it.
        effects.forEach((e, i) => this.overwrite(e.id, now[i], observed.get(e.id)?.events));
      }
    }
    this.pending.clear();
    this.touched.clear();

    for (const [id, d] of this.docs) {
      const got = observed.get(id);
      if (!explained.has(id) && !same(got?.data ?? null, d.state)) v.lost.push(`${id}: acknowledged ${show(d.state)}, found ${show(got?.data ?? null)}`);
      if (got && withEvents.has(id)) {
        const want = d.versions;
        const have = got.events;
        const n = Math.max(want.length, have.length);
        for (let i = 0; i < n; i++) {
          const a = want[i];
          const b = have[i];
          if (a && b && a.ts === b.ts && a.action === b.action && (a.data?.tx ?? null) === b.tx) continue;
          const what = `${id} version ${i}: acknowledged ${a ? `${a.action}@${a.ts} tx ${a.data?.tx}` : 'none'}, history has ${b ? `${b.action}@${b.ts} tx ${b.tx}` : 'none'}`;
          (a ? v.lost : v.phantom).push(what);
          break;
        }
      }
    }
    for (const [id, o] of observed) if (!this.docs.has(id) && o.data) v.phantom.push(`${id}: ${show(o.data)} was never written`);
    return v;
  }

  private lastTsOf(effects: Effect[], observed: Map<string, Observed>): bigint {
    let ts = 0n;
    for (const e of effects) for (const ev of observed.get(e.id)?.events ?? []) if (ev.ts > ts) ts = ev.ts;
    return ts;
  }

  private apply(effects: Effect[], ts: bigint): void {
    for (const e of effects) {
      const d = this.docs.get(e.id) ?? { state: null, versions: [] };
      d.state = e.after;
      d.versions.push({ ts, action: e.action, data: e.after });
      this.docs.set(e.id, d);
    }
  }

  private overwrite(id: string, data: Data | null, events: ObservedEvent[] | undefined): void {
    const known = this.docs.get(id)?.versions ?? [];
    // Versions from the history as far as it goes; their data is only known for the last one.
    const versions = events ? events.map((e, i) => ({ ts: e.ts, action: e.action, data: i === events.length - 1 ? data : (known[i]?.data ?? null) })) : known;
    this.docs.set(id, { state: data, versions });
  }
}
