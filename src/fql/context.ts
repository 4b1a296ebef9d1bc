// What one FQL v4 evaluation carries: the transaction context model/ defines, and the evaluator's own state.

import { TxnContext } from '../model/context';

export const MAX_CALL_DEPTH = 200;

export class EvalContext extends TxnContext {
  /** How deep the evaluator's calls are nested (refused beyond MAX_CALL_DEPTH). */
  callDepth = 0;
}
