// Ref constructors: Ref(coll, id), Collection/Database/Index/Function/Role/AccessProvider(name,
// scope?), and the native collection refs Collections(), Keys(), ….

import { define } from '../registry';
import { evalArg, evalOptional, argPos, asString, mismatch } from '../args';
import { errors } from '../../values/errors';
import { NATIVE_NAMES, Ref, SCHEMA_NATIVES, type Value } from '../../values/types';
import { parseDocId } from '../../model/resolve';
import type { EvalContext } from '../context';
import type { CallExpr } from '../../wire/expr';
import type { Env } from '../env';

async function scopeArg(call: CallExpr, key: string, env: Env, ctx: EvalContext): Promise<Ref | undefined> {
  const v = await evalOptional(call, key, env, ctx);
  if (v === undefined || v === null) return undefined;
  if (!(v instanceof Ref) || v.nativeParent !== 'databases') mismatch('Database Ref', v, argPos(call, key));
  return v;
}

define('ref', async (call, env, ctx) => {
  let coll: Value = await evalArg(call, 'ref', env, ctx);
  const idv = await evalArg(call, 'id', env, ctx);
  const scope = await scopeArg(call, 'scope', env, ctx);
  if (typeof coll === 'string') coll = Ref.collection(coll);
  if (!(coll instanceof Ref)) mismatch('Ref', coll, argPos(call, 'ref'));
  let id: string;
  if (typeof idv === 'bigint') id = idv.toString();
  else if (typeof idv === 'string') id = idv;
  else mismatch('String or Number', idv, argPos(call, 'id'));
  if (coll.collection === undefined && SCHEMA_NATIVES.has(coll.id))
    throw errors.invalidArgument('Regular Class Ref expected, Schema Class Ref provided.', argPos(call, 'ref'));
  parseDocId(id, argPos(call, 'id'));
  if (coll.collection === undefined) return new Ref(id, scope ? Ref.native(coll.id, scope) : coll);
  if (coll.nativeParent !== 'collections') mismatch('Collection Ref', coll, argPos(call, 'ref'));
  return new Ref(id, scope ? Ref.collection(coll.id, scope) : coll);
});

for (const [head, native] of [
  ['collection', 'collections'],
  ['database', 'databases'],
  ['index', 'indexes'],
  ['function', 'functions'],
  ['role', 'roles'],
  ['access_provider', 'access_providers'],
] as const) {
  define(head, async (call, env, ctx) => {
    const name = asString(await evalArg(call, head, env, ctx), argPos(call, head));
    const scope = await scopeArg(call, 'scope', env, ctx);
    return Ref.schema(native, name, scope);
  });
}

for (const native of NATIVE_NAMES) {
  define(native, async (call, env, ctx) => Ref.native(native, await scopeArg(call, native, env, ctx)));
}
