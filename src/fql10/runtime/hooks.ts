// What the evaluator needs from whoever runs it (the endpoint, the storage layer, tests): the
// compute budget, the query's clock and ids, set cursors, and the globals storage defines.

import type { Time } from '../../values/types';
import type { PageTok, ValueSet } from './sets';
import type { CallCtx } from './table';
import type { Func, RtValue } from './values';

export interface EvalHooks {
  /** Counts `n` compute units (Query.addCompute: one per native call and per function applied).
   *  Throws, ending the query, when the budget is spent; may also check a deadline. */
  compute(n: number): void;
  /**
   * Lets the rest of the process run once the query's slice of the event loop is used up: called at
   * every function application and before every page an in-memory set source produces (`clock`:
   * look at the clock now, the page's work shows in no compute count). Answers a promise to await,
   * or (nearly always) undefined to go on at once. Throws, ending the query, once its deadline has
   * passed. Absent: the query never yields (tests).
   */
  breathe?(clock?: boolean): Promise<void> | undefined;
  /** Charges `bytes` of memory a value the query built holds; throws, ending the query, past its
   *  memory limit (a public key must not be able to grow a worker's heap until it dies). */
  alloc?(bytes: number): void;
  /** The query's snapshot time (`Time.now()`, the bound `at` checks against). */
  snapshotTime(): Time;
  /** A new unique document id (`newId()`). */
  newId(): bigint;
  /** Stack frames a query may use (the core's fqlx_max_stack_frames, 2048). */
  readonly maxStackFrames: number;
  /** Turns a set position into an opaque `after` cursor, and back (undefined: not a cursor). */
  readonly cursors: CursorCodec;
  /** The globals, when the host's replace the standard library's (storage's native collections:
   *  its `Function` collection replaces the pure `Function` companion). Default: STDLIB_GLOBALS. */
  readonly globals?: ReadonlyMap<string, RtValue>;
  /** A global name the standard library does not define (collections, user functions). */
  resolveGlobal?(ctx: CallCtx, name: string): Promise<RtValue | undefined> | RtValue | undefined;
  /** Whether the request asked for performance hints (x-performance-hints). */
  readonly performanceHints?: boolean;
  /** `Query.isEnvTypechecked()` / `Query.isEnvProtected()` of the caller's database (none: false). */
  isEnvTypechecked?(ctx: CallCtx): Promise<boolean>;
  isEnvProtected?(ctx: CallCtx): Promise<boolean>;
  /** `Query.identity()` / `Query.token()`: the identity document, and the token document or JWT
   *  payload, of the request's secret; undefined when it has none. */
  identity?(ctx: CallCtx): Promise<RtValue | undefined>;
  token?(ctx: CallCtx): Promise<RtValue | undefined>;
  /** `set.eventSource()` / `set.eventsOn(fields…)` (and `toStream()`, `changesOn()`) on a set that
   *  may stream; absent: no set streams. */
  eventSource?(ctx: CallCtx, set: ValueSet, fields: readonly Func[], method: string): Promise<RtValue>;
}

export interface CursorCodec {
  encode(tok: PageTok, pageSize: number): string;
  decode(token: string): { readonly tok: PageTok; readonly pageSize: number } | undefined;
}

