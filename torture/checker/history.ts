// A history of transactions as a Jepsen/Elle-style checker reads it: each transaction a list of
// micro-operations on keys, how it ended, when (client clock), and the time the server gave it.

/** Append `value` to the list under `key`. Values are unique per key. */
export type Append = { f: 'append'; key: string; value: number };
/** Read the list under `key`: null before the transaction ran (invoke) or when it did not answer. */
export type Read = { f: 'r'; key: string; value: number[] | null };
export type MicroOp = Append | Read;

/**
 * ok: committed, reads known. fail: definitely not committed (e.g. 409 contended, 400 aborted).
 * info: indeterminate (timeout, connection lost, 5xx): it may or may not have committed.
 */
export type Outcome = 'ok' | 'fail' | 'info';

export interface Txn {
  /** Position in the history (unique). */
  id: number;
  /** The client that ran it: a client runs one transaction at a time. */
  client: number;
  outcome: Outcome;
  ops: MicroOp[];
  /** Client clock (ms) when it was sent and when its answer (or failure) arrived. */
  start: number;
  end: number;
  /** The server's transaction time (X-Txn-Time, µs): commit time of a write, snapshot of a read. */
  ts?: number;
}

export const isRead = (op: MicroOp): op is Read => op.f === 'r';
export const isAppend = (op: MicroOp): op is Append => op.f === 'append';

/** Whether the transaction writes anything (read-only ones are serializable snapshots, not strict). */
export const writes = (t: Txn): boolean => t.ops.some(isAppend);

/** A short, readable form of one transaction, for reports: `T12 ok ts=… [append x 3] [r y [1,2]]`. */
export function show(t: Txn): string {
  const ops = t.ops.map((o) => (o.f === 'append' ? `[append ${o.key} ${o.value}]` : `[r ${o.key} ${o.value === null ? 'nil' : JSON.stringify(o.value)}]`));
  return `T${t.id} ${t.outcome} client ${t.client}${t.ts !== undefined ? ` ts ${t.ts}` : ''} ${ops.join(' ')}`;
}
