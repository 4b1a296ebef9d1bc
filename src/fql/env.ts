// Lexical variable environments: a parent chain, so binding is O(1) and closures are cheap.

import type { Value } from '../values/types';

export class Env {
  static readonly empty = new Env(undefined, '', null);

  private constructor(
    private readonly parent: Env | undefined,
    private readonly name: string,
    private readonly value: Value,
  ) {}

  bind(name: string, value: Value): Env {
    return new Env(this, name, value);
  }

  lookup(name: string): { found: boolean; value: Value } {
    for (let e: Env | undefined = this; e && e !== Env.empty; e = e.parent) {
      if (e.name === name) return { found: true, value: e.value };
    }
    return { found: false, value: null };
  }

  /** The innermost binding of every visible variable (for closing lambdas over their scope). */
  visible(): Map<string, Value> {
    const out = new Map<string, Value>();
    for (let e: Env | undefined = this; e && e !== Env.empty; e = e.parent) {
      if (!out.has(e.name)) out.set(e.name, e.value);
    }
    return out;
  }

  static from(vars: ReadonlyMap<string, Value> | undefined): Env {
    let env = Env.empty;
    if (vars) for (const [k, v] of vars) env = env.bind(k, v);
    return env;
  }
}
