// A collection's v10 schema enforced on every write of one of its documents, whichever language
// writes (the core enforces schema under v4 too, FQL2SchemaV4Spec): computed fields cannot be
// written, defaults fill absent defined fields on create, the data is checked against the defined
// fields and wildcard, and once the version is written each check constraint must return true.

import type { Position } from '../../values/errors';
import { Ref, type Obj, type Value } from '../../values/types';
import type { SchemaEntry } from '../catalog';
import type { TxnContext } from '../context';
import { compiledSchema } from './compiled';
import { ConstraintFailureError, violationSummary } from './errors';
import { validate, type ConstraintFailure } from './schemaType';

export type WriteAction = 'create' | 'update' | 'replace';

/**
 * The stored fields (`data`, `ttl`) of a document about to be written, defaults applied; throws
 * ConstraintFailureError when they break the schema. Unchanged for a collection without one.
 */
export async function checkedFields(ctx: TxnContext, coll: SchemaEntry, fields: Obj, action: WriteAction, id: bigint, pos: Position): Promise<Obj> {
  const schema = compiledSchema(coll);
  if (!schema) return fields;
  const stored = fields.get('data');
  let data: Obj = stored instanceof Map ? stored : new Map<string, Value>();
  if (action === 'create' && schema.defaults.size) {
    const filled: Obj = new Map(data);
    for (const [name, src] of schema.defaults) {
      if (filled.has(name)) continue;
      const v = await language(ctx).evalDefault(ctx, src, `*field:${coll.name}:${name}*`);
      if (v !== null) filled.set(name, v);
    }
    data = filled;
  }
  const failures: ConstraintFailure[] = [];
  for (const name of schema.computed.keys())
    if (data.has(name)) failures.push({ paths: [[name]], message: 'Unexpected field provided' });
  failures.push(...validate(schema.data, [], data).filter((f) => !failures.some((g) => samePath(f, g))));
  if (failures.length) throw new ConstraintFailureError(violationSummary(action, coll.name, action === 'create' ? undefined : id), failures, pos);
  if (data === stored) return fields;
  const out: Obj = new Map(fields);
  out.set('data', data);
  return out;
}

/** Runs the check constraints on the version just written of document `ref`. */
export async function runChecks(ctx: TxnContext, coll: SchemaEntry, ref: Ref, action: WriteAction, id: bigint, pos: Position): Promise<void> {
  const schema = compiledSchema(coll);
  if (!schema?.checks.length) return;
  const failures: ConstraintFailure[] = [];
  for (const { name, body } of schema.checks) {
    const v = await language(ctx).applyToDoc(ctx, body, `*check_constraint:${name}*`, ref);
    if (v === true) continue;
    failures.push({
      paths: [],
      message: v === false || v === null
        ? `Document failed check constraint \`${name}\``
        : `Error evaluating check constraint \`${name}\`: function returned a non-boolean value`,
    });
  }
  if (failures.length)
    throw new ConstraintFailureError(violationSummary(action, coll.name, action === 'create' ? undefined : id), failures, pos, true);
}

function samePath(a: ConstraintFailure, b: ConstraintFailure): boolean {
  return JSON.stringify(a.paths) === JSON.stringify(b.paths);
}

function language(ctx: TxnContext): NonNullable<TxnContext['schemaLanguage']> {
  if (!ctx.schemaLanguage) throw new Error('this collection has a v10 schema, and no FQL v10 language is loaded to run it');
  return ctx.schemaLanguage;
}
