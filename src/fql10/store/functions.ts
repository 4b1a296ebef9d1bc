// `Function` (stdlib/Functions.scala) and user-defined functions (runtime/fql2/UserFunction.scala):
// function definitions as named documents, and each function callable as a global by its name
// or alias (`myFn(1, 2)`, `myFn.definition`, `Function("myFn")`). A v10 body is source, parsed
// once per text with its spans in `*udf:<name>*`, and runs in the caller's evaluation (its frames
// count toward the stack limit) with the function's `role` applied while it runs, as v4 does
// (model/functionCalls.ts). A v4 body (a Query lambda) runs through the v4 language the
// transaction carries (TxnContext.applyLambda), its arguments and result converted.

import type { SchemaEntry } from '../../model/catalog';
import { functionScope, mayCallFunction } from '../../model/functionCalls';
import { createdInTxn, schemaOf, type Target } from '../../model/resolve';
import { QueryError } from '../../values/errors';
import { Lambda as V4Lambda, type Value } from '../../values/types';
import { Failures, QueryRuntimeFailure } from '../runtime/failure';
import { type CallCtx, type FieldTable } from '../runtime/table';
import { p, tt } from '../runtime/types';
import { isFunc, NativeFn, type Arity, type RtValue } from '../runtime/values';
import { prototype } from '../stdlib/base';
import { schemaLambda } from './computed';
import { toRuntime, toStored } from './convert';
import { fromModel, PERMISSION_DENIED } from './errors';
import { txnOf } from './hooks';
import { modelParams, nameOf, nativeCompanion, NativeDocV, shownFields, type NativeSpec } from './natives';

export const FUNCTION_SPEC: NativeSpec = {
  native: 'functions',
  module: 'Function',
  docType: 'FunctionDef',
  label: 'Function',
  alsoContains: isFunc,
  toModel: (_ctx, fields) => modelParams(fields, ['name', 'alias', 'signature', 'role', 'body', 'data']),
  display: (fields) => shownFields(fields, ['alias', 'signature', 'role', 'body', 'data'], (k, v) => (k === 'role' ? nameOf(v) : v)),
};

export const FunctionModule = nativeCompanion(FUNCTION_SPEC);

/** The source name of a function's body in diagnostics. */
export function udfSrcName(name: string): string {
  return `*udf:${name}*`;
}

/** Arguments as a v4 lambda takes them (v10ToV4Args): one value, or an array for an array pattern. */
function v4Args(body: V4Lambda, args: Value[]): Value {
  return typeof body.params === 'string' && args.length === 1 ? args[0] : args;
}

async function callV4(ctx: CallCtx, body: V4Lambda, args: RtValue[]): Promise<RtValue> {
  const tx = txnOf(ctx);
  try {
    return toRuntime(await tx.applyLambda(body, [v4Args(body, args.map((a) => toStored(a, ctx.trace)))]));
  } catch (e) {
    if (e instanceof QueryError) throw new QueryRuntimeFailure(e.code.replace(/ /g, '_'), e.description, ctx.trace);
    throw e;
  }
}

/** Calls function `entry` of database `db` (UserFunction.apply / LambdaWrapper.apply). */
async function call(ctx: CallCtx, db: bigint, entry: SchemaEntry, args: RtValue[]): Promise<RtValue> {
  const tx = txnOf(ctx);
  const t: Target = { kind: 'schema', db, native: 'functions', name: entry.name, entry, scoped: false };
  let may: boolean;
  try {
    may = await mayCallFunction(tx, t, entry, args.map((a) => toStored(a, null)));
  } catch (e) {
    if (e instanceof QueryRuntimeFailure) may = false; // arguments v4 cannot hold: no predicate grants
    else throw fromModel(e, ctx.trace);
  }
  if (!may) throw new QueryRuntimeFailure('permission_denied', PERMISSION_DENIED, ctx.trace);
  const scope = await functionScope(tx, db, entry);
  const body = entry.fields.get('body');
  if (body instanceof V4Lambda) return tx.within({ scope }, () => callV4(ctx, body, args));
  const fn = typeof body === 'string' ? schemaLambda(body, udfSrcName(entry.name)) : null;
  if (fn === null) throw new QueryRuntimeFailure('invalid_function_invocation', `The function \`${entry.name}\` has no valid body.`, ctx.trace);
  return tx.within({ scope }, () => ctx.apply(fn, args));
}

function arityOf(entry: SchemaEntry): Arity {
  const body = entry.fields.get('body');
  if (typeof body === 'string') {
    const fn = schemaLambda(body, udfSrcName(entry.name));
    if (fn !== null) return fn.arity;
  }
  return { kind: 'variable', required: 0 };
}

/** Each user function value's definition document. */
const definitions = new WeakMap<NativeFn, NativeDocV>();

const UDF_TABLE: FieldTable = prototype('UserFunction');
UDF_TABLE.field('definition', (_ctx, self: NativeFn) => definitions.get(self)!);

/** The function named (or aliased) `name` as a callable value; its arity is its lambda's. */
function userFunction(db: bigint, entry: SchemaEntry, name: string): NativeFn {
  const fn = new NativeFn(name, arityOf(entry), null, (ctx, args) => call(ctx, db, entry, args), UDF_TABLE);
  definitions.set(fn, new NativeDocV(FUNCTION_SPEC, db, entry.name));
  return fn;
}

/** The definition of the function named (or aliased) `name`, this transaction's writes included. */
async function definitionOf(ctx: CallCtx, db: bigint, name: string): Promise<SchemaEntry | undefined> {
  const schema = await schemaOf(txnOf(ctx), db);
  return schema.get('functions', name) ?? schema.all('functions').find((e) => e.fields.get('alias') === name);
}

/** A user function by name or alias (UserFunction.lookup): one created by this query is not there yet. */
export async function lookupFunction(ctx: CallCtx, db: bigint, name: string): Promise<NativeFn | undefined> {
  const entry = await definitionOf(ctx, db, name);
  if (entry === undefined || (await createdInTxn(txnOf(ctx), db, entry))) return undefined;
  return userFunction(db, entry, name);
}

FunctionModule.table.apply([p('function', tt.Str)], async (ctx, _s, [name]: string[]) => {
  const db = txnOf(ctx).scope.db;
  const fn = await lookupFunction(ctx, db, name);
  if (fn !== undefined) return fn;
  const failure = Failures.invalidArgument('function', `No such user function \`${name}\`.`, ctx.trace);
  // Created earlier in this query (Functions.scala's hint).
  if ((await definitionOf(ctx, db, name)) === undefined || ctx.trace === null) throw failure;
  throw failure.withHint({ message: 'A function cannot be created and used in the same query.', span: ctx.trace.span });
});
