// What a v10 collection schema needs of the FQL v10 language, which lives above model/: parsing
// lambda bodies and default expressions when a definition is written, running check constraints,
// computed fields and defaults when a document is written. The v10 language sets it on TxnContext
// (`schemaLanguage`); whichever language writes a document, the schema runs through it.

import type { Ref, Value } from '../../values/types';
import type { TxnContext } from '../context';

export interface SchemaLanguage {
  /**
   * The core's failure text for a lambda body that does not parse or takes other than `arity`
   * parameters (Validators.LambdaParseValidator, its source named `*field*`); undefined if fine.
   */
  lambdaFailure(body: string, field: string, arity: number): string | undefined;
  /** The same for an expression (a defined field's `default`, Validators.ExprParseValidator). */
  exprFailure(src: string, field: string): string | undefined;
  /**
   * Applies a one-parameter lambda body to a document, read-only (check constraints, computed
   * fields). `srcName` names the source in diagnostics: `*check_constraint:name*`,
   * `*computed_field:Coll:name*`. The document's new version is already written in `ctx.txn`.
   */
  applyToDoc(ctx: TxnContext, body: string, srcName: string, doc: Ref): Promise<Value>;
  /** Evaluates a default expression (observation only); `srcName` is `*field:Coll:name*`. */
  evalDefault(ctx: TxnContext, src: string, srcName: string): Promise<Value>;
}
