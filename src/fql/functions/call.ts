// Call: user-defined functions (fql-v4.md §3.1, §1.9, §6.3).
//
// `{"call": fn, "arguments": args?}`: fn is a function ref or a function name. The arguments value
// (absent → []) is the lambda's single argument, so `Lambda('x', …)` receives it whole and an
// array pattern `Lambda(['a','b'], …)` destructures it (what the driver's Call(f, a, b) sends).
//
// Errors raised by the body are wrapped in `call error` (at the Call's position) whose `cause`
// holds the inner error (positions relative to the function's lambda, e.g. ["expr", "let", 0]).
// DECISION: `stack overflow` is not wrapped — it passes through every enclosing call unchanged,
// instead of 200 nested `call error`s.

import { define } from '../registry';
import { argPos, evalArg, evalOptional, mismatch } from '../args';
import { applyLambda } from '../evaluator';
import { errors, QueryError } from '../../values/errors';
import { Lambda, Ref, type Value } from '../../values/types';
import { isBuiltinRole } from '../../model/auth';
import { resolveRef } from '../../model/resolve';
import type { SchemaEntry } from '../../model/catalog';
import type { EvalContext } from '../context';
import { decodeExpr } from '../../wire/decode';

/** Bodies whose positions were rebased (errors in a body point into the function's `@query`). */
const rebased = new WeakSet<Lambda>();

/** Positions inside a function body are relative to its lambda: `["expr", …]`, wherever the
 * function was created (a body compiled in the creating request would carry request positions). */
function rebase(body: Lambda): Lambda {
  if (!rebased.has(body)) {
    body.compiled = decodeExpr(body.body as never, ['expr']);
    rebased.add(body);
  }
  return body;
}

/** Built-in roles: admin and server may call any function; server-readonly and client may not,
 * except that a client may call a function whose `permissions` has `call: "public"`. */
function mayCall(ctx: EvalContext, entry: SchemaEntry): boolean {
  switch (ctx.scope.role as string) {
    case 'admin':
    case 'server':
      return true;
    case 'client': {
      const perms = entry.fields.get('permissions');
      return perms instanceof Map && perms.get('call') === 'public';
    }
    default:
      return false;
  }
}

define('call', async (call, env, ctx) => {
  const fnPos = argPos(call, 'call');
  let fn = await evalArg(call, 'call', env, ctx);
  const args: Value = (await evalOptional(call, 'arguments', env, ctx)) ?? [];
  if (typeof fn === 'string') fn = Ref.schema('functions', fn);
  if (!(fn instanceof Ref)) mismatch('Ref', fn, fnPos);
  if (fn.nativeParent !== 'functions') mismatch('User Function Ref', fn, fnPos);
  const target = await resolveRef(ctx, fn, fnPos);
  if (target.kind !== 'schema' || !target.entry)
    throw errors.invalidRef(`Ref refers to undefined function '${fn.id}'`, fnPos);
  const entry = target.entry;
  if (!mayCall(ctx, entry)) throw errors.permissionDenied(call.pos);
  const body = entry.fields.get('body');
  if (!(body instanceof Lambda)) mismatch('Lambda', body ?? null, fnPos);

  const saved = ctx.scope;
  const role = entry.fields.get('role');
  // User-defined roles (refs, arrays) are applied by the identity issue; for now the caller's stays.
  // The caller's identity stays visible, but a token's own allowances must not shadow the role
  // (permissions.allowed consults `token` before `role`), so the token address is dropped inside.
  if (isBuiltinRole(role)) ctx.scope = { ...saved, role, token: undefined };
  try {
    return await applyLambda(rebase(body), [args], ctx, call.pos);
  } catch (e) {
    if (!(e instanceof QueryError) || e.code === 'stack overflow') throw e;
    throw new QueryError('call error', 'Calling the function resulted in an error.', call.pos, 400, undefined, [e]);
  } finally {
    ctx.scope = saved;
  }
});
