// Lambdas stored as FQL v10 source: a role's predicates (privileges and membership), an access
// provider's role predicates, a user-defined function's body. The core keeps either form in the
// same field (LambdaWrapper: a v4 Query lambda or a v10 source string) and decides per value by
// its stored form; so does Flora: a `Lambda` runs through `TxnContext.applyLambda` (v4), a string
// through this hook, which the v10 language sets on every TxnContext (`lambdaLanguage`), whichever
// language runs the request.

import type { Value } from '../values/types';
import type { TxnContext } from './context';

export interface LambdaLanguage {
  /**
   * Why `src` is not a v10 lambda taking one of `arities` arguments (any number when undefined),
   * in the core's words, its source named `*field*`; undefined when it is one.
   */
  lambdaFailure(src: string, field: string, arities?: readonly number[]): string | undefined;
  /**
   * Applies the lambda `src` to stored values (refs, objects, …) in `ctx` as it is (its scope,
   * refused writes): the result as a stored value (null for what cannot be stored). A failure
   * inside is thrown as a QueryError whose description is the v10 failure's message. `spread`:
   * `args[0]` is a v4 Call's one argument, spread over the lambda's parameters as the core does.
   */
  apply(ctx: TxnContext, src: string, srcName: string, args: Value[], spread?: boolean): Promise<Value>;
}
