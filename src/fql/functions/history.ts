// Insert and Remove: writing and deleting versions in a document's history (fql-v4.md §3.5, §7).

import { define } from '../registry';
import { evalArg, evalOptional, argPos, asObj, asTimestamp } from '../args';
import { errors } from '../../values/errors';
import { Ref, typeName, type Value } from '../../values/types';
import { insertVersion, removeVersion, type HistoryAction } from '../../model/documents';
import type { CallExpr } from '../../wire/expr';
import type { Env } from '../env';
import type { EvalContext } from '../context';

function refArg(v: Value, call: CallExpr, key: string): Ref {
  if (v instanceof Ref) return v;
  throw errors.typeMismatch('Ref', typeName(v), argPos(call, key));
}

async function actionArg(call: CallExpr, env: Env, ctx: EvalContext): Promise<HistoryAction> {
  const v = await evalArg(call, 'action', env, ctx);
  if (v === 'create' || v === 'update' || v === 'delete') return v as HistoryAction;
  throw errors.invalidArgument(`String 'create', 'update', or 'delete' expected, ${typeName(v)} provided.`, argPos(call, 'action'));
}

define('insert', async (call, env, ctx) => {
  const ref = refArg(await evalArg(call, 'insert', env, ctx), call, 'insert');
  const ts = asTimestamp(await evalArg(call, 'ts', env, ctx), argPos(call, 'ts'));
  const action = await actionArg(call, env, ctx);
  const p = await evalOptional(call, 'params', env, ctx);
  const params = p === undefined || p === null ? new Map<string, Value>() : asObj(p, argPos(call, 'params'));
  return insertVersion(ctx, ref, ts, action, params, argPos(call, 'insert'));
});

define('remove', async (call, env, ctx) => {
  const ref = refArg(await evalArg(call, 'remove', env, ctx), call, 'remove');
  const ts = asTimestamp(await evalArg(call, 'ts', env, ctx), argPos(call, 'ts'));
  const action = await actionArg(call, env, ctx);
  return removeVersion(ctx, ref, ts, action, argPos(call, 'remove'));
});
