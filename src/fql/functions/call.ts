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
import { resolveRef, schemaOf, type Target } from '../../model/resolve';
import { allowed, roleIdsOf, usesRoles, actingAs } from '../../model/permissions';
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
async function mayCall(ctx: EvalContext, t: Target, entry: SchemaEntry, args: Value): Promise<boolean> {
  // User roles (keys with roles, tokens by membership, UDFs with roles): the `call` action, whose
  // predicate receives the call's arguments.
  if (usesRoles(ctx.scope)) {
    const perms = entry.fields.get('permissions');
    if ((ctx.scope.token || ctx.scope.docScoped || ctx.scope.jwtRoles) && !ctx.scope.roles && perms instanceof Map && perms.get('call') === 'public') return true;
    return allowed(ctx, 'call', t, [args]);
  }
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
  if (!(await mayCall(ctx, target, entry, args))) throw errors.permissionDenied(call.pos);
  const body = entry.fields.get('body');
  if (!(body instanceof Lambda)) mismatch('Lambda', body ?? null, fnPos);

  const caller = ctx.scope;
  const role = entry.fields.get('role');
  // User-defined roles (names, refs, arrays) run the body with exactly those roles.
  let scope = caller;
  if (isBuiltinRole(role)) scope = actingAs(caller, role);
  else if (role !== undefined && role !== null) {
    const schema = await schemaOf(ctx, target.db);
    const roles = target.db === caller.db ? roleIdsOf(role, (name) => schema.get('roles', name)?.id) : undefined;
    scope = actingAs(caller, 'client', roles ?? []);
  }
  try {
    return await ctx.within({ scope }, () => applyLambda(rebase(body), [args], ctx, call.pos));
  } catch (e) {
    if (!(e instanceof QueryError) || e.code === 'stack overflow') throw e;
    const cause = [e, ...e.also];
    e.also = [];
    throw new QueryError('call error', 'Calling the function resulted in an error.', call.pos, 400, undefined, cause);
  }
});
