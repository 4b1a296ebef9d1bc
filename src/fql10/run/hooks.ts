// The evaluator's hooks for a query running in a store transaction: compute, time and memory through
// the query's Budget (model/budget.ts), the snapshot's clock, ids, and what storage plugs in (the
// globals it defines, the cursor codec). Storage code reaches the transaction as `ctx.hooks.tx`.

import type { TxnContext } from '../../model/context';
import { newId } from '../../model/ids';
import { Time } from '../../values/types';
import type { CursorCodec, EvalHooks } from '../runtime/hooks';
import type { CallCtx } from '../runtime/table';
import type { RtValue } from '../runtime/values';

/** The core's fqlx_max_stack_frames. */
export const MAX_STACK_FRAMES = 2048;

/** Answers a global name the standard library does not define (a collection, a user function). */
export type GlobalResolver = (ctx: CallCtx, name: string) => Promise<RtValue | undefined> | RtValue | undefined;

export interface TxnHooksOptions {
  /** Set positions as `after` cursors and back: storage's serializable codec. */
  readonly cursors: CursorCodec;
  /** Globals beyond the standard library; none: only the standard library's names are bound. */
  readonly resolveGlobal?: GlobalResolver;
  /** The fixed globals (the standard library's and storage's native modules); none: the standard library's. */
  readonly globals?: ReadonlyMap<string, RtValue>;
  /** `Query.identity()` / `Query.token()` of the caller. */
  identity?(ctx: CallCtx): Promise<RtValue | undefined>;
  token?(ctx: CallCtx): Promise<RtValue | undefined>;
  isEnvTypechecked?: EvalHooks['isEnvTypechecked'];
  isEnvProtected?: EvalHooks['isEnvProtected'];
  eventSource?: EvalHooks['eventSource'];
  /** See StoreHooks.schemaPush. */
  schemaPush?: boolean;
}

export class TxnHooks implements EvalHooks {
  readonly maxStackFrames = MAX_STACK_FRAMES;
  readonly cursors: CursorCodec;
  readonly resolveGlobal: GlobalResolver | undefined;
  readonly globals: ReadonlyMap<string, RtValue> | undefined;
  readonly identity: ((ctx: CallCtx) => Promise<RtValue | undefined>) | undefined;
  readonly token: ((ctx: CallCtx) => Promise<RtValue | undefined>) | undefined;
  readonly isEnvTypechecked: EvalHooks['isEnvTypechecked'];
  readonly isEnvProtected: EvalHooks['isEnvProtected'];
  readonly eventSource: EvalHooks['eventSource'];
  readonly schemaPush: boolean | undefined;
  private snapshot: Time | undefined;

  constructor(
    /** The transaction the query runs in (its budget, scope, catalog, store transaction). */
    readonly tx: TxnContext,
    opts: TxnHooksOptions,
    /** x-performance-hints. */
    readonly performanceHints = false,
  ) {
    this.cursors = opts.cursors;
    this.resolveGlobal = opts.resolveGlobal;
    this.globals = opts.globals;
    this.identity = opts.identity;
    this.token = opts.token;
    this.isEnvTypechecked = opts.isEnvTypechecked;
    this.isEnvProtected = opts.isEnvProtected;
    this.eventSource = opts.eventSource;
    this.schemaPush = opts.schemaPush;
  }

  /** Query.addCompute: the Budget throws LimitExceeded past the compute limit, QueryTimeout past the deadline. */
  compute(n: number): void {
    if (n === 1) this.tx.budget.tick();
    else this.tx.budget.charge(n);
  }

  alloc(bytes: number): void {
    this.tx.budget.alloc(bytes);
  }

  breathe(clock?: boolean): Promise<void> | undefined {
    if (clock) this.tx.budget.poll();
    return this.tx.budget.breathe();
  }

  snapshotTime(): Time {
    return (this.snapshot ??= Time.fromMicros(this.tx.snapshotTs));
  }

  newId(): bigint {
    return newId();
  }
}
