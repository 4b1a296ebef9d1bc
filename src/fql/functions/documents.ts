// Document reads and writes, schema document creation, keys, NewId, Now and At.

import { define } from '../registry';
import { evalArg, evalOptional, argPos, asObj, asString, asTimestamp, mismatch, readTimeOf } from '../args';
import { evalExpr } from '../evaluator';
import { errors } from '../../values/errors';
import { Ref, SetV, type Obj, type Value } from '../../values/types';
import {
  createDocument,
  databaseEntry,
  deleteDocument,
  documentExists,
  getDocument,
} from '../../model/documents';
import { moveDatabase } from '../../model/databases';
import { keyFromSecret } from '../../model/keys';
import { newId } from '../../model/ids';
import { writeDocument } from '../../model/documents';
import { firstOfSet, isSetLike } from '../sets';
import type { CallExpr } from '../../wire/expr';
import type { Env } from '../env';
import type { EvalContext } from '../context';

async function tsArg(call: CallExpr, env: Env, ctx: EvalContext): Promise<bigint | undefined> {
  const v = await evalOptional(call, 'ts', env, ctx);
  if (v === undefined || v === null) return undefined;
  return readTimeOf(ctx, asTimestamp(v, argPos(call, 'ts')));
}

function refArg(v: Value, call: CallExpr, key: string): Ref {
  if (v instanceof Ref) return v;
  mismatch('Ref', v, argPos(call, key));
}

define('get', async (call, env, ctx) => {
  const target = await evalArg(call, 'get', env, ctx);
  const at = await tsArg(call, env, ctx);
  if (isSetLike(target)) {
    const first = await firstOfSet(ctx, target, call.pos, at);
    if (!(first instanceof Ref)) throw errors.notFound('Set not found.', call.pos);
    return getDocument(ctx, first, call.pos, at);
  }
  return getDocument(ctx, refArg(target, call, 'get'), call.pos, at, argPos(call, 'get'));
});

define('exists', async (call, env, ctx) => {
  const target = await evalArg(call, 'exists', env, ctx);
  const at = await tsArg(call, env, ctx);
  if (target instanceof SetV) return (await firstOfSet(ctx, target, call.pos, at)) !== undefined;
  return documentExists(ctx, refArg(target, call, 'exists'), call.pos, at);
});

async function paramsArg(call: CallExpr, env: Env, ctx: EvalContext): Promise<Obj> {
  const v = await evalOptional(call, 'params', env, ctx);
  if (v === undefined || v === null) return new Map();
  return asObj(v, argPos(call, 'params'));
}

define('create', async (call, env, ctx) => {
  let target = await evalArg(call, 'create', env, ctx);
  if (typeof target === 'string') target = Ref.collection(target);
  return createDocument(ctx, refArg(target, call, 'create'), await paramsArg(call, env, ctx), argPos(call, 'create'));
});

define('update', async (call, env, ctx) => {
  const ref = refArg(await evalArg(call, 'update', env, ctx), call, 'update');
  return writeDocument(ctx, ref, await paramsArg(call, env, ctx), false, argPos(call, 'update'));
});

define('replace', async (call, env, ctx) => {
  const ref = refArg(await evalArg(call, 'replace', env, ctx), call, 'replace');
  return writeDocument(ctx, ref, await paramsArg(call, env, ctx), true, argPos(call, 'replace'));
});

define('delete', async (call, env, ctx) => {
  const ref = refArg(await evalArg(call, 'delete', env, ctx), call, 'delete');
  return deleteDocument(ctx, ref, argPos(call, 'delete'));
});

for (const [head, native] of [
  ['create_collection', 'collections'],
  ['create_database', 'databases'],
  ['create_key', 'keys'],
  ['create_index', 'indexes'],
  ['create_function', 'functions'],
  ['create_role', 'roles'],
  ['create_access_provider', 'access_providers'],
] as const) {
  define(head, async (call, env, ctx) => {
    const params = asObj(await evalArg(call, head, env, ctx), argPos(call, head));
    return createDocument(ctx, Ref.native(native), params, argPos(call, head));
  });
}

define('move_database', async (call, env, ctx) => {
  const from = refArg(await evalArg(call, 'move_database', env, ctx), call, 'move_database');
  const to = refArg(await evalArg(call, 'to', env, ctx), call, 'to');
  const source = await databaseEntry(ctx, from, argPos(call, 'move_database'));
  const dest = await databaseEntry(ctx, to, argPos(call, 'to'));
  return moveDatabase(ctx, source, dest, to, call.pos);
});

define('key_from_secret', async (call, env, ctx) => {
  const secret = asString(await evalArg(call, 'key_from_secret', env, ctx), argPos(call, 'key_from_secret'));
  return keyFromSecret(ctx, secret, call.pos);
});

define('new_id', async (call, _env, ctx) => {
  if (ctx.readOnly) ctx.assertWritable(call.pos);
  return newId().toString();
});

define('at', async (call, env, ctx) => {
  const ts = asTimestamp(await evalArg(call, 'at', env, ctx), argPos(call, 'at'));
  // A time at or after the snapshot reads (and may write) the present.
  return ctx.within({ readAt: readTimeOf(ctx, ts) }, () => evalExpr(call.args.get('expr')!, env, ctx));
});

