// Argument evaluation and casting for function implementations.
// Every cast failure is `invalid argument` "<T> expected, <U> provided." at the argument's position.

import type { CallExpr, Expr, LambdaExpr } from '../wire/expr';
import { errors, type Position } from '../values/errors';
import {
  Lambda,
  Page,
  Ref,
  SetV,
  Time,
  typeName,
  type Obj,
  type Value,
} from '../values/types';
import type { EvalContext } from './context';
import type { Env } from './env';
import { evalExpr } from './evaluator';

/** Deprecated head keys still sent by the driver, by canonical head. */
const HEAD_ALIASES: Record<string, string> = {
  create_collection: 'create_class',
  collection: 'class',
  collections: 'classes',
  current_identity: 'identity',
  has_current_identity: 'has_identity',
  new_id: 'next_id',
  contains_path: 'contains',
  select_all: 'select_as_index',
};

/** The key an argument was actually sent under (a call may use a deprecated head key). */
function sentKey(call: CallExpr, key: string): string {
  if (key === call.fn && !call.args.has(key)) {
    const alias = HEAD_ALIASES[key];
    if (alias && call.args.has(alias)) return alias;
  }
  return key;
}

export function argPos(call: CallExpr, key: string): Position {
  return [...call.pos, sentKey(call, key)];
}

export function argExpr(call: CallExpr, key: string): Expr | undefined {
  return call.args.get(sentKey(call, key));
}

/** Evaluates a required argument (the decoder guarantees required keys are present). */
export function evalArg(call: CallExpr, key: string, env: Env, ctx: EvalContext): Promise<Value> {
  const e = call.args.get(sentKey(call, key));
  if (!e) throw errors.invalidExpression(`No form/function found, or invalid argument keys: { ${[...call.args.keys()].join(', ')} }.`, call.pos);
  return evalExpr(e, env, ctx);
}

/** Evaluates an optional argument; `undefined` when the key is absent. */
export async function evalOptional(
  call: CallExpr,
  key: string,
  env: Env,
  ctx: EvalContext,
): Promise<Value | undefined> {
  const e = call.args.get(sentKey(call, key));
  return e ? evalExpr(e, env, ctx) : undefined;
}

/**
 * A "one or more" / "zero or more" argument: an array literal, an expression yielding an array,
 * or a single non-array value (treated as a one-element list).
 */
export async function evalList(
  call: CallExpr,
  key: string,
  env: Env,
  ctx: EvalContext,
  nonEmpty = true,
): Promise<Value[]> {
  const v = await evalArg(call, key, env, ctx);
  const list = Array.isArray(v) ? v : [v];
  if (nonEmpty && list.length === 0) throw errors.invalidArgument('Non-empty array expected.', argPos(call, key));
  return list;
}

/** Position of element i of a list argument (an array literal reports per-element positions). */
export function elemPos(call: CallExpr, key: string, i: number): Position {
  const e = call.args.get(key);
  const literal = e !== undefined && (e.t === 'array' || (e.t === 'lit' && Array.isArray(e.v)));
  return literal ? [...call.pos, key, i] : [...call.pos, key];
}

export function lambdaArg(call: CallExpr, key: string): LambdaExpr {
  const e = call.args.get(key);
  if (!e || e.t !== 'lambda')
    throw errors.invalidExpression(
      `No form/function found, or invalid argument keys: { ${[...call.args.keys()].join(', ')} }.`,
      call.pos,
    );
  return e;
}

export function mismatch(expected: string, v: Value, pos: Position): never {
  throw errors.typeMismatch(expected, typeName(v), pos);
}

export function asString(v: Value, pos: Position): string {
  if (typeof v !== 'string') mismatch('String', v, pos);
  return v;
}

export function asBoolean(v: Value, pos: Position): boolean {
  if (typeof v !== 'boolean') mismatch('Boolean', v, pos);
  return v;
}

export function asLong(v: Value, pos: Position): bigint {
  if (typeof v !== 'bigint') mismatch('Integer', v, pos);
  return v;
}

export function asNumber(v: Value, pos: Position): bigint | number {
  if (typeof v !== 'bigint' && typeof v !== 'number') mismatch('Number', v, pos);
  return v;
}

export function asObj(v: Value, pos: Position): Obj {
  if (!(v instanceof Map)) mismatch('Object', v, pos);
  return v;
}

export function asArray(v: Value, pos: Position): Value[] {
  if (!Array.isArray(v)) mismatch('Array', v, pos);
  return v;
}

export function asRef(v: Value, pos: Position): Ref {
  if (!(v instanceof Ref)) mismatch('Ref', v, pos);
  return v;
}

export function asTime(v: Value, pos: Position): Time {
  if (!(v instanceof Time)) mismatch('Time', v, pos);
  return v;
}

export function asLambda(v: Value, pos: Position): Lambda {
  if (!(v instanceof Lambda)) mismatch('Lambda', v, pos);
  return v;
}

export function asSet(v: Value, pos: Position): SetV {
  if (!(v instanceof SetV)) mismatch('Set', v, pos);
  return v;
}

/** Arrays and pages (the iterables Map/Foreach/… accept). */
export function asArrayOrPage(v: Value, pos: Position): { items: Value[]; page?: Page } {
  if (Array.isArray(v)) return { items: v };
  if (v instanceof Page) return { items: v.data, page: v };
  mismatch('Array or Page', v, pos);
}

/** A µs timestamp argument: Integer µs or a Time. */
export function asTimestamp(v: Value, pos: Position): bigint {
  if (typeof v === 'bigint') return v;
  if (v instanceof Time) return v.micros;
  mismatch('Time or Integer', v, pos);
}

/** The valid time of a read at `ts` µs: undefined (the present) for any time at or after the snapshot. */
export function readTimeOf(ctx: EvalContext, ts: bigint): bigint | undefined {
  return ts >= ctx.snapshotTs ? undefined : ts;
}

/** Checks an evaluated boolean result (If conditions, And/Or operands, Filter results). */
export function expectBoolean(v: Value, pos: Position): boolean {
  if (typeof v !== 'boolean') mismatch('Boolean', v, pos);
  return v;
}
