// The `role` a function or key is written with names a role once the query has run, not when
// written (Validators.NameValidationHook, a post-eval revalidation keyed by the document: its
// latest write in the query is the one checked), so a query may make a function and then its role.

import { isBuiltinRole } from '../../model/auth';
import { schemaOf } from '../../model/resolve';
import type { Value } from '../../values/types';
import { QueryRuntimeFailure } from '../runtime/failure';
import type { CallCtx } from '../runtime/table';
import { txnOf } from './hooks';

/**
 * After the query, refuses `role` (a name, or names) of document `doc` of `db` if a name is no
 * role then, with `summary` ("Failed to create Function.") at this call. Without a role (a
 * deleted document), an earlier write's check of the document is dropped.
 */
export function checkRoleLater(ctx: CallCtx, db: bigint, doc: string, role: Value | undefined, summary: string): void {
  const trace = ctx.trace;
  const names: [string, (string | number)[]][] = [];
  if (typeof role === 'string') names.push([role, ['role']]);
  else if (Array.isArray(role)) role.forEach((r, i) => typeof r === 'string' && names.push([r, ['role', i]]));
  ctx.addPostEvalHook(`role:${db}:${doc}`, async () => {
    const schema = await schemaOf(txnOf(ctx), db);
    const failures = names
      .filter(([name]) => !isBuiltinRole(name) && schema.get('roles', name) === undefined)
      .map(([name, path]) => ({ paths: [path], message: `Field refers to an unknown role name \`${name}\`.` }));
    if (failures.length) throw new QueryRuntimeFailure('constraint_failure', summary, trace, [], undefined, failures);
  });
}
