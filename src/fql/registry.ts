// One registry of function implementations, keyed by canonical wire head key.
// Families register themselves in functions/*.ts; functions/index.ts loads them all.

import type { CallExpr } from '../wire/expr';
import type { Value } from '../values/types';
import type { EvalContext } from './context';
import type { Env } from './env';

export type FnImpl = (call: CallExpr, env: Env, ctx: EvalContext) => Promise<Value>;

const impls = new Map<string, FnImpl>();

export function define(head: string, impl: FnImpl): void {
  if (impls.has(head)) throw new Error(`function ${head} defined twice`);
  impls.set(head, impl);
}

export function lookup(head: string): FnImpl | undefined {
  return impls.get(head);
}

export function definedHeads(): string[] {
  return [...impls.keys()];
}
