// Lambdas stored as FQL v10 source: a role's predicates (privileges and membership), an access
// provider's role predicates, a user-defined function's body. The core keeps either form in the
// same field (LambdaWrapper: a v4 Query lambda or a v10 source string) and decides per value by
// its stored form; so does Flora: a `Lambda` runs through `TxnContext.applyLambda` (v4), a string
// through this hook, which the v10 language sets on every TxnContext (`lambdaLanguage`), whichever
// language runs the request.

import type { Obj, Ref, Value } from '../values/types';
import type { TxnContext } from './context';

/**
 * A document as a write is about to leave it (the core's `Value.Doc` with a `versionOverride`):
 * what v10 `create` predicates and the second argument of v10 `write` predicates receive
 * (RoleEvalAction.scala fqlxLambdaArgs). `fields` are the version's stored fields (a user
 * document's `data` and `ttl`, a native document's as the model keeps them); `ref` names the
 * document in the scope's database (a named native one by its new name), `id` is a named native
 * document's internal id.
 */
export class PendingDoc {
  constructor(
    readonly ref: Ref,
    readonly fields: Obj,
    readonly id?: bigint,
  ) {}
}

/** An argument of a v10 lambda: a stored value (a ref to a document is the document), or a pending document. */
export type LambdaArg = Value | PendingDoc;

export interface LambdaLanguage {
  /**
   * Why `src` is not a v10 lambda taking one of `arities` arguments (any number when undefined),
   * in the core's words, its source named `*field*`; undefined when it is one.
   */
  lambdaFailure(src: string, field: string, arities?: readonly number[]): string | undefined;
  /**
   * Applies the lambda `src` to `args` in `ctx` as it is (its scope, refused writes): the result
   * as a stored value (null for what cannot be stored). A failure inside, a wrong number of
   * arguments included, is thrown as a QueryError whose description is the v10 failure's message.
   * `spread`: `args[0]` is a v4 Call's one argument, spread over the lambda's parameters as the
   * core does.
   */
  apply(ctx: TxnContext, src: string, srcName: string, args: readonly LambdaArg[], spread?: boolean): Promise<Value>;
}
