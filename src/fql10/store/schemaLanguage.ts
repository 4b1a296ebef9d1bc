// The v10 language behind model/schema10 (language.ts): a collection schema's lambdas and
// default expressions parsed by the v10 parser and run by the v10 evaluator, whichever language
// writes the document. Each executor installs it on the TxnContexts it makes:
// `installSchemaLanguage(ctx)`, which installs the v10 role predicates and function bodies
// (lambdaLanguage.ts) as well.

import type { TxnContext } from '../../model/context';
import type { SchemaLanguage } from '../../model/schema10/language';
import type { Ref, Value } from '../../values/types';
import { renderSummary } from '../diagnostic';
import { Interp, QueryRun } from '../eval/interpreter';
import { parseExpr, parseLambda } from '../parser';
import { toStored } from './convert';
import { schemaLambda } from './computed';
import { storeCursors } from './cursors';
import { DocV } from './docs';
import { installLambdaLanguage } from './lambdaLanguage';
import { STORE_GLOBALS } from './resolver';
import { BareTxnHooks } from './txnHooks';

const PARSE_FAILED = 'Unable to parse FQL source code.';

function interp(tx: TxnContext, reason: string): Interp {
  return new Interp(new QueryRun(new BareTxnHooks(tx, storeCursors), STORE_GLOBALS)).readOnly(reason);
}

const language: SchemaLanguage = {
  lambdaFailure(body, field, arity) {
    const r = parseLambda(body, { name: `*${field}*`, text: body });
    if (!r.ok) return `${PARSE_FAILED}\n${renderSummary(r.errors).trim()}`;
    const n = r.value.kind === 'ShortLambda' ? 1 : r.value.params.length;
    if (r.value.kind === 'LongLambda' && r.value.variadic !== null) return undefined;
    return n === arity ? undefined : `Invalid function arity. Expected exactly ${arity} argument${arity === 1 ? '' : 's'}, but the function was defined with ${n} arguments`;
  },
  exprFailure(src, field) {
    const r = parseExpr(src, { name: `*${field}*`, text: src });
    return r.ok ? undefined : `${PARSE_FAILED}\n${renderSummary(r.errors).trim()}`;
  },
  async applyToDoc(tx, body, srcName, ref: Ref): Promise<Value> {
    const fn = schemaLambda(body, srcName);
    if (fn === null || ref.addr === undefined) return null;
    const doc = new DocV(ref.addr.db, BigInt(ref.addr.coll), ref.collection?.id ?? '', ref.addr.id);
    const ctx = interp(tx, srcName.startsWith('*check') ? 'check constraints' : 'computed fields');
    return toStored(await ctx.apply(fn, [doc]), null);
  },
  async evalDefault(tx, src, srcName): Promise<Value> {
    const r = parseExpr(src, { name: srcName, text: src });
    if (!r.ok) return null;
    return toStored(await interp(tx, 'field defaults').eval(r.value, null), null);
  },
};

/** Makes collection schemas runnable in `ctx` (model/schema10 calls back into v10 through it). */
export function installSchemaLanguage(ctx: TxnContext): void {
  ctx.schemaLanguage = language;
  installLambdaLanguage(ctx);
}
