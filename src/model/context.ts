// Everything one transaction of a query carries, whichever language asks: its transaction, who is
// asking, its budget, and what it has changed. The language's evaluator extends it (fql/context.ts)
// and plugs itself in through the hooks, since model/ sits below every evaluator.

import type { Txn } from '../storage/types';
import { QueryError, type Position } from '../values/errors';
import type { Lambda, Obj, Value } from '../values/types';
import type { Scope } from './auth';
import type { Budget } from './budget';
import type { Catalog } from './catalog';
import type { BindingEvaluator } from './indexDef';
import type { LoginThrottle } from './loginThrottle';
import type { Purge } from './purge';
import type { SchemaLanguage } from './schema10/language';
import type { LambdaLanguage } from './lambdaLanguage';
import { RefNames } from './refNames';
import { MigrationView } from './schema10/migrationView';
import type { LearnedCheck } from './secretLocation';
import { checkBuilt } from './valueSize';

// Defaults shared by every context (not three closures per query); the language sets real ones.
const NO_BINDINGS: BindingEvaluator = () => Promise.reject(new Error('no binding evaluator'));
const NO_LAMBDAS = (): Promise<Value> => Promise.reject(new Error('no lambda evaluator'));
const NO_SECRETS = (): Promise<Scope | undefined> => Promise.resolve(undefined);
const NOT_LEARNED = (): void => {};

export class TxnContext {
  /** Databases whose schema this transaction changed (their cached catalog must not be used). */
  readonly schemaWrites = new Set<bigint>();
  /** Bumped by every schema write (names looked up before it may be stale). */
  schemaGeneration = 0;
  /** Set when the transaction wrote keys or tokens: the secret cache must be dropped. */
  secretsChanged = false;
  /** Documents created by this transaction (for the 201 status of a top-level create); made on the first. */
  private fresh: WeakSet<Obj> | undefined;
  /** Deleted databases and collections whose contents are removed once the delete is durable. */
  readonly purges: Purge[] = [];
  /** Indexes created by this transaction that are built in the background once it commits. */
  readonly indexBuilds: { db: bigint; index: number }[] = [];
  /** Collections this transaction left to migrate in the background once it commits. */
  readonly migrations: { db: bigint; coll: number }[] = [];
  /** Evaluates an index binding lambda purely (set by the language: its evaluator lives above model/). */
  evalBinding: BindingEvaluator = NO_BINDINGS;
  /** Applies a lambda value in this context (set by the language: its evaluator lives above model/); used by auth predicates. */
  applyLambda: (lambda: Lambda, args: Value[]) => Promise<Value> = NO_LAMBDAS;
  /** Parses and runs the lambdas of v10 collection schemas (set by the v10 language whichever language writes; none: such schemas refuse writes). */
  schemaLanguage: SchemaLanguage | undefined;
  /** Runs v10 role predicates and function bodies stored as source (set by the v10 language whichever language runs; none: they deny / cannot be called). */
  lambdaLanguage: LambdaLanguage | undefined;
  /** Set while the v10 language writes a native document: lambdas given as v10 source are taken (v4 refuses strings there, as the core does). */
  writingV10 = false;
  /** Resolves a secret as the Authorization header would (set by the executor; used by KeyFromSecret for JWTs). */
  authenticate: (secret: string) => Promise<Scope | undefined> = NO_SECRETS;
  /** Stores a secret's check learned by BCrypt (set by the executor; used by KeyFromSecret). */
  learnCheck: (learned: LearnedCheck) => void = NOT_LEARNED;
  /** The client's address as the failed-login throttle counts it (net/addresses clientAddressKey; none from this machine). */
  clientAddressKey: string | undefined;
  /** The process's failed-login throttle (set by the executor; none for background work). */
  loginThrottle: LoginThrottle | undefined;
  /** Valid time for reads under At(); undefined = the snapshot. */
  readAt: bigint | undefined;
  /** Why writes are refused right now ("get requests", "set filters", "auth predicates"), if they are. */
  writesRefusedIn: string | undefined;

  constructor(
    readonly txn: Txn,
    /** Who is asking; a user-defined function's role replaces it while the function body runs. */
    public scope: Scope,
    readonly catalog: Catalog,
    /** The query's compute, memory and time: shared with every context the query makes. */
    readonly budget: Budget,
    readOnly: boolean,
  ) {
    this.writesRefusedIn = readOnly ? 'get requests' : undefined;
    txn.names = new RefNames(this, scope.db);
    txn.versionView = new MigrationView(this);
  }

  /** Marks `doc` as created by this transaction. */
  created(doc: Obj): void {
    (this.fresh ??= new WeakSet()).add(doc);
  }

  isFresh(doc: Obj): boolean {
    return this.fresh?.has(doc) ?? false;
  }

  /** Records a write to the schema of `db` (the catalog must not serve this transaction from cache). */
  schemaChanged(db: bigint): void {
    this.schemaWrites.add(db);
    this.schemaGeneration++;
  }

  get computeUnits(): number {
    return this.budget.units;
  }

  get readOnly(): boolean {
    return this.writesRefusedIn !== undefined;
  }

  /**
   * Runs `fn` with some of this context's state replaced (a set lambda's read time, a predicate's
   * scope, refused writes), restoring it afterwards. Evaluation within one query is sequential,
   * so the transaction's shared state (compute units, schema writes, …) stays one.
   */
  async within<T>(
    overrides: { readAt?: bigint | undefined; scope?: Scope; refuseWritesIn?: string },
    fn: () => Promise<T>,
  ): Promise<T> {
    const saved = { readAt: this.readAt, scope: this.scope, writesRefusedIn: this.writesRefusedIn };
    if ('readAt' in overrides) this.readAt = overrides.readAt;
    if (overrides.scope) this.scope = overrides.scope;
    if (overrides.refuseWritesIn) this.writesRefusedIn = overrides.refuseWritesIn;
    try {
      return await fn();
    } finally {
      this.readAt = saved.readAt;
      this.scope = saved.scope;
      this.writesRefusedIn = saved.writesRefusedIn;
    }
  }

  get snapshotTs(): bigint {
    return this.txn.snapshotTs;
  }

  /** A value the query has just built: no larger than a value may be (as JSON), nor nested too deep. */
  built<T extends Value>(v: T): T {
    return checkBuilt(v, this.budget.limits.maxValueBytes);
  }

  /** Charges one compute unit; enforces the compute limit and the query timeout. */
  tick(): void {
    this.budget.tick();
  }

  assertWritable(position: Position): void {
    if (this.writesRefusedIn !== undefined)
      throw new QueryError(
        'invalid expression',
        `Call performs a write, which is not allowed in ${this.writesRefusedIn}.`,
        position,
      );
    if (this.readAt !== undefined && this.readAt !== this.txn.snapshotTs)
      throw new QueryError('invalid write time', 'Cannot write outside of snapshot time.', position);
    this.txn.intendsWrite();
  }
}
