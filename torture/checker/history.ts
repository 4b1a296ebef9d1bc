// Histories of transactions as Jepsen/Elle-style checkers read them: each transaction a list of
// micro-operations on keys, how it ended, when (client clock), and the time the server gave it;
// and the anomalies the checkers find in them.

/** Append `value` to the list under `key`. Values are unique per key. */
export type Append = { f: 'append'; key: string; value: number };
/** Read the list under `key`: null before the transaction ran (invoke) or when it did not answer. */
export type Read = { f: 'r'; key: string; value: number[] | null };
/** A list-append micro-operation. */
export type MicroOp = Append | Read;

/** Set the register `key` to `value` (unique per key; registers start at 0). */
export type Write = { f: 'w'; key: string; value: number };
/** Read the register `key`: null until known. */
export type RegisterRead = { f: 'r'; key: string; value: number | null };
export type RegisterOp = Write | RegisterRead;

export type Op = MicroOp | RegisterOp;

/**
 * ok: committed, reads known. fail: definitely not committed (e.g. 409 contended, 400 aborted).
 * info: indeterminate (timeout, connection lost, 5xx): it may or may not have committed.
 */
export type Outcome = 'ok' | 'fail' | 'info';

export interface Txn<O extends Op = MicroOp> {
  /** Position in the history (unique). */
  id: number;
  /** The client that ran it: a client runs one transaction at a time. */
  client: number;
  outcome: Outcome;
  ops: O[];
  /** Client clock (ms) when it was sent and when its answer (or failure) arrived. */
  start: number;
  end: number;
  /** The server's transaction time (X-Txn-Time, µs): commit time of a write, snapshot of a read. */
  ts?: number;
}

export const isRead = (op: MicroOp): op is Read => op.f === 'r';
export const isAppend = (op: MicroOp): op is Append => op.f === 'append';

/** Whether the transaction writes anything (read-only ones are serializable snapshots, not strict). */
export const writes = (t: Txn<Op>): boolean => t.ops.some((o) => o.f !== 'r');

/** A short, readable form of one transaction, for reports: `T12 ok client 3 ts … [append x 3] [r y [1,2]]`. */
export function show(t: Txn<Op>): string {
  const ops = t.ops.map((o) => `[${o.f} ${o.key} ${o.value === null ? 'nil' : JSON.stringify(o.value)}]`);
  return `T${t.id} ${t.outcome} client ${t.client}${t.ts !== undefined ? ` ts ${t.ts}` : ''} ${ops.join(' ')}`;
}

export type AnomalyKind =
  | 'G0'
  | 'G1a'
  | 'G1b'
  | 'G1c'
  | 'G-single'
  | 'G2'
  | 'internal'
  | 'duplicate'
  | 'garbage-read'
  | 'incompatible-order'
  | 'lost-update'
  | 'lost-write'
  | 'stale-read'
  | 'future-read'
  | 'ts-order'
  | 'realtime'
  | 'session';

export interface Anomaly {
  kind: AnomalyKind;
  detail: string;
  /** The transactions that show it: the minimal history to look at. */
  txns: Txn<Op>[];
}

export interface CheckResult {
  anomalies: Anomaly[];
  /** Transactions by outcome. */
  counts: { ok: number; fail: number; info: number };
  /** Dependencies found between transactions (a sign that the history was rich enough to mean something). */
  edges: number;
}

/** The anomalies of a result, one paragraph each, with their transactions. */
export function explain(anomalies: Anomaly[], limit = 10): string[] {
  return anomalies.slice(0, limit).map((a) => `${a.kind}: ${a.detail}\n${a.txns.map((t) => '    ' + show(t)).join('\n')}`);
}

export function countOutcomes(history: Txn<Op>[]): CheckResult['counts'] {
  const count = (o: Outcome) => history.filter((t) => t.outcome === o).length;
  return { ok: count('ok'), fail: count('fail'), info: count('info') };
}
