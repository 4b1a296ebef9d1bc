// The global environment (GlobalResolvers.scala): the modules and companions, and the global
// functions `abort`, `log`, `dbg`, `newId`, `asc`, `desc`. Collections, user functions and the
// schema modules are the storage layer's (EvalHooks.resolveGlobal).

import { Failures } from '../runtime/failure';
import { frameSpan, type CallCtx } from '../runtime/table';
import { toDebugStringIn, toDisplayStringIn } from '../runtime/toString';
import { tt, typeName as typeNameOf } from '../runtime/types';
import { arityAccepts, IdV, NativeFn, NullV, fixedArity, type Arity, type Func, type ModuleV, type RtValue } from '../runtime/values';
import { materialize } from '../eval/materialize';
import { ArrayCompanion } from './arrays';
import { moduleObject } from './base';
import { DateCompanion } from './date';
import { MathModule } from './math';
import { ObjectModule, StructCompanion } from './objects';
import {
  BooleanCompanion,
  BytesCompanion,
  DoubleCompanion,
  FloatCompanion,
  FunctionModule,
  IDCompanion,
  IntCompanion,
  LongCompanion,
  NullCompanion,
  NumberCompanion,
  SetCursorCompanion,
  StringCompanion,
  TransactionTimeCompanion,
} from './scalars';
import { SetCompanion } from './sets';
import { TimeCompanion } from './time';

function fn(name: string, arity: Arity, call: (ctx: CallCtx, args: RtValue[]) => Promise<RtValue> | RtValue): NativeFn {
  return new NativeFn(name, arity, null, async (ctx, args) => call(ctx, args));
}

function accessor(name: 'asc' | 'desc'): NativeFn {
  return fn(name, fixedArity(1), (ctx, [f]) => {
    const c = tt.Function.cast(f) as Func | undefined;
    if (c === undefined) throw Failures.invalidArgumentType('accessor', 'Function', typeNameOf(f), ctx.trace);
    if (!arityAccepts(c.arity, 1)) throw Failures.invalidFuncParamArity('accessor', 1, c.arity, ctx.trace);
    return new Map([[name, c]]);
  });
}


/** `Query.identity()` and friends: the env checks are the host's, identity is the auth layer's. */
const QueryModule = moduleObject('Query');
QueryModule.table.method('isEnvTypechecked', [], async (ctx) => (await ctx.hooks.isEnvTypechecked?.(ctx)) ?? false);
QueryModule.table.method('isEnvProtected', [], async (ctx) => (await ctx.hooks.isEnvProtected?.(ctx)) ?? false);
QueryModule.table.method('identity', [], async (ctx) => (await ctx.hooks.identity?.(ctx)) ?? NullV.noSuchElement('missing identity', frameSpan(ctx)));
QueryModule.table.method('token', [], async (ctx) => (await ctx.hooks.token?.(ctx)) ?? NullV.noSuchElement('no token', frameSpan(ctx)));

const modules: ModuleV[] = [
  ArrayCompanion.module,
  BooleanCompanion.module,
  BytesCompanion.module,
  DateCompanion.module,
  DoubleCompanion.module,
  FloatCompanion.module,
  FunctionModule.module,
  IDCompanion.module,
  IntCompanion.module,
  LongCompanion.module,
  MathModule.module,
  NullCompanion.module,
  NumberCompanion.module,
  ObjectModule.module,
  QueryModule.module,
  SetCompanion.module,
  SetCursorCompanion.module,
  StringCompanion.module,
  StructCompanion.module,
  TimeCompanion.module,
  TransactionTimeCompanion.module,
];

const functions: NativeFn[] = [
  fn('abort', fixedArity(1), async (ctx, [v]) => {
    throw Failures.aborted(await materialize(ctx, v), ctx.trace);
  }),
  fn('log', { kind: 'variable', required: 0 }, async (ctx, args) => {
    const parts: string[] = [];
    for (const a of args) parts.push(await toDisplayStringIn(ctx, a));
    ctx.emit({ name: 'info', message: parts.join(' '), span: frameSpan(ctx), short: true });
    return NullV.lit(frameSpan(ctx));
  }),
  fn('dbg', fixedArity(1), async (ctx, [v]) => {
    ctx.emit({ name: 'info', message: await toDebugStringIn(ctx, v), span: frameSpan(ctx) });
    return v;
  }),
  fn('newId', fixedArity(0), (ctx) => new IdV(ctx.hooks.newId())),
  accessor('asc'),
  accessor('desc'),
];

/** Every global the standard library defines, by name; `FQL` holds them all too. */
export const STDLIB_GLOBALS: ReadonlyMap<string, RtValue> = (() => {
  const m = new Map<string, RtValue>();
  for (const mod of modules) m.set(mod.name, mod);
  for (const f of functions) m.set(f.name, f);
  const fql = moduleObject('FQL');
  for (const [k, v] of m) fql.table.field(k, () => v);
  m.set('FQL', fql.module);
  return m;
})();

