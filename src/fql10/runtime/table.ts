// Field tables (FieldTable.scala, FieldTableHelpers.scala, NativeFunction.scala): what a value of a
// type answers to. Fields are resolvers, methods are NativeMethods (overloaded by argument count and
// argument types), operators are methods looked up by symbol, and `apply`/`[]` are optional. Each
// lookup is one Map.get.

import type { Name } from '../ast';
import { NULL_SPAN, type Span } from '../span';
import type { Diagnostic } from '../diagnostic';
import { Failures, type Trace } from './failure';
import { fixedArity, NativeFn, NullV, type Arity, type Func, type NullCause, type RtValue } from './values';
import type { EvalHooks } from './hooks';
import type { Time } from '../../values/types';
import { typeName } from './types';

/** What native code gets from the interpreter at its call site (FQLInterpCtx). */
export interface CallCtx {
  /** The stack, innermost frame first (the call's span). */
  readonly trace: Trace | null;
  readonly hooks: EvalHooks;
  /** Calls a function value (FQLInterpCtx.evalApply). */
  apply(fn: Func, args: RtValue[]): Promise<RtValue>;
  /** The same context with `trace` put in front of its stack (prependStackTrace). */
  withTrace(trace: Trace | null): CallCtx;
  /** Records an info or warning for the response's summary. */
  emit(d: Diagnostic): void;
  /** The time reads see (`at (ts) …`); undefined: the query's snapshot. */
  readonly validTime: Time | undefined;
  atValidTime(t: Time | undefined): CallCtx;
  /** Why writes are refused here (`set functions`), or undefined when they are allowed. */
  readonly readOnlyReason: string | undefined;
  readOnly(reason: string): CallCtx;
  /** Runs `check` once the query has been evaluated, before its result is materialized; a later
   *  hook under the same key replaces it (FQLInterpCtx.addPostEvalHook). */
  addPostEvalHook(key: string, check: () => Promise<void>): void;
}

/** The current frame's span (StackTrace.currentStackFrame). */
export function frameSpan(ctx: CallCtx): Span {
  return ctx.trace === null ? NULL_SPAN : ctx.trace.span;
}

/** A parameter type: its name in errors (ValueType.displayString) and its cast (TypeTag.cast). */
export interface TypeTag {
  readonly display: string;
  cast(v: RtValue): RtValue | undefined;
}

export interface Param {
  readonly name: string;
  readonly tag: TypeTag;
}

/** The receiver is null because of `cause` (FieldTable.R.Null): the caller reports it. */
export class NullReceiver {
  constructor(readonly cause: NullCause) {}
}

export type FieldResult = RtValue | NullReceiver;

// Arguments arrive cast to the declared parameter types, so implementations destructure them typed.
type Impl = (ctx: CallCtx, self: any, args: any) => Promise<RtValue> | RtValue;

interface Overload {
  readonly params: readonly Param[];
  readonly impl: Impl;
}

function displayParams(ps: readonly Param[]): string {
  return '(' + ps.map((p) => p.tag.display).join(', ') + ')';
}

/** A built-in method, not bound to a receiver (NativeMethod): fixed-argument overloads or one
 *  variadic parameter. */
export class NativeMethod {
  private overloads: Overload[] = [];
  private vararg: Overload | undefined;
  arity: Arity = fixedArity();

  constructor(readonly name: string) {}

  addFixed(params: readonly Param[], impl: Impl): void {
    this.overloads.push({ params, impl });
    this.arity = fixedArity(...this.overloads.map((o) => o.params.length));
  }

  setVararg(param: Param, impl: Impl): void {
    this.vararg = { params: [param], impl };
    this.arity = { kind: 'variable', required: 0 };
  }

  /** Calls with arguments the interpreter has checked against `arity`. */
  async call(ctx: CallCtx, self: RtValue, args: RtValue[]): Promise<RtValue> {
    const va = this.vararg;
    if (va !== undefined) {
      const p = va.params[0];
      const cast = new Array<RtValue>(args.length);
      for (let i = 0; i < args.length; i++) {
        const c = p.tag.cast(args[i]);
        if (c === undefined) throw Failures.invalidArgumentType(`${p.name}${i}`, p.tag.display, typeName(args[i]), ctx.trace);
        cast[i] = c;
      }
      return va.impl(ctx, self, cast);
    }
    const ovs = this.overloads;
    if (ovs.length === 1) {
      const ps = ovs[0].params;
      const cast = new Array<RtValue>(args.length);
      for (let i = 0; i < ps.length; i++) {
        const c = ps[i].tag.cast(args[i]);
        if (c === undefined) throw Failures.invalidArgumentType(ps[i].name, ps[i].tag.display, typeName(args[i]), ctx.trace);
        cast[i] = c;
      }
      return ovs[0].impl(ctx, self, cast);
    }
    for (const o of ovs) {
      if (o.params.length !== args.length) continue;
      const cast = castAll(o.params, args);
      if (cast !== undefined) return o.impl(ctx, self, cast);
    }
    const expects = ovs
      .filter((o) => o.params.length === args.length)
      .map((o) => displayParams(o.params))
      .join(' | ');
    const actual = '(' + args.map(typeName).join(', ') + ')';
    throw Failures.invalidArgumentTypes(this.name, expects, actual, ctx.trace);
  }

  /** The method as a function value bound to `self` (NativeMethod.bind). */
  bind(self: RtValue): NativeFn {
    return new NativeFn(this.name, this.arity, self, (ctx, args) => this.call(ctx, self, args));
  }
}

function castAll(ps: readonly Param[], args: RtValue[]): RtValue[] | undefined {
  const out = new Array<RtValue>(args.length);
  for (let i = 0; i < ps.length; i++) {
    const c = ps[i].tag.cast(args[i]);
    if (c === undefined) return undefined;
    out[i] = c;
  }
  return out;
}

export type Resolver = (ctx: CallCtx, self: any) => Promise<FieldResult> | FieldResult;

/** A dynamic fallback for names no resolver has (a struct's keys, a null's cause). */
type DynamicGet = (ctx: CallCtx, self: any, name: Name) => Promise<FieldResult> | FieldResult;

export class FieldTable {
  readonly fields = new Map<string, Resolver>();
  readonly methods = new Map<string, NativeMethod>();
  readonly ops = new Map<string, NativeMethod>();
  applyImpl: NativeMethod | undefined;
  accessImpl: { param: Param; impl: (ctx: CallCtx, self: any, key: any, span: Span) => Promise<FieldResult> | FieldResult } | undefined;
  /** Used when no field or method has the name; the default is a null for a missing field. */
  dynGet: DynamicGet | undefined;
  /** Used when no method has the name, before falling back to a field holding a function. */
  methodMiss: ((self: RtValue) => NullReceiver | undefined) | undefined;

  constructor(
    /** The type's name in errors (`String`, `Array<Any>`…). */
    readonly selfName: string,
  ) {}

  hasResolver(name: string): boolean {
    return this.fields.has(name) || this.methods.has(name);
  }

  async getField(ctx: CallCtx, self: RtValue, name: Name): Promise<FieldResult> {
    const f = this.fields.get(name.str);
    if (f !== undefined) return f(ctx, self);
    const m = this.methods.get(name.str);
    if (m !== undefined) return m.bind(self);
    if (this.dynGet !== undefined) return this.dynGet(ctx, self, name);
    return NullV.missingField(self, name);
  }

  // ---- definitions ----

  field(name: string, impl: Resolver): this {
    this.fields.set(name, impl);
    return this;
  }

  method(name: string, params: readonly Param[], impl: Impl): this {
    let m = this.methods.get(name);
    if (m === undefined) this.methods.set(name, (m = new NativeMethod(name)));
    m.addFixed(params, impl);
    return this;
  }

  varargMethod(name: string, param: Param, impl: Impl): this {
    const m = new NativeMethod(name);
    m.setVararg(param, impl);
    this.methods.set(name, m);
    return this;
  }

  op(name: string, params: readonly Param[], impl: Impl): this {
    let m = this.ops.get(name);
    if (m === undefined) this.ops.set(name, (m = new NativeMethod(name)));
    m.addFixed(params, impl);
    return this;
  }

  apply(params: readonly Param[], impl: Impl): this {
    if (this.applyImpl === undefined) this.applyImpl = new NativeMethod('apply');
    this.applyImpl.addFixed(params, impl);
    return this;
  }

  varargApply(param: Param, impl: Impl): this {
    const m = new NativeMethod('apply');
    m.setVararg(param, impl);
    this.applyImpl = m;
    return this;
  }

  access(param: Param, impl: (ctx: CallCtx, self: any, key: any, span: Span) => Promise<FieldResult> | FieldResult): this {
    this.accessImpl = { param, impl };
    return this;
  }

  /** Runs `[]` (defAccess): exactly one argument, cast to the parameter's type. */
  async callAccess(ctx: CallCtx, self: RtValue, args: RtValue[], span: Span): Promise<FieldResult> {
    const a = this.accessImpl!;
    if (args.length !== 1) throw Failures.invalidFuncArity(fixedArity(1), args.length, ctx.trace);
    const c = a.param.tag.cast(args[0]);
    if (c === undefined) throw Failures.invalidArgumentType(a.param.name, a.param.tag.display, typeName(args[0]), ctx.trace);
    return a.impl(ctx, self, c, span);
  }
}
