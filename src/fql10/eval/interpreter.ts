// The FQL v10 interpreter (FQLInterpreter.scala), node by node. An Interp is the context at one
// point of evaluation: the query's run (hooks, globals, logs), the stack trace, the valid time and
// whether writes are allowed. It is immutable; calls make a new one with a frame pushed.
//
// Failures are thrown (QueryRuntimeFailure, QueryCheckFailure): they end the query, so they are
// never on a hot path. Everything is async since storage reads will be.

import type * as A from '../ast';
import { THIS_NAME } from '../ast';
import type { Diagnostic } from '../diagnostic';
import { error } from '../diagnostic';
import { spanTo, type Span } from '../span';
import { Time, TxnTime } from '../../values/types';
import { Failures, nullCauseFailure, push, QueryCheckFailure, type Trace } from '../runtime/failure';
import type { EvalHooks } from '../runtime/hooks';
import { NullReceiver, type CallCtx, type FieldResult, type NativeMethod } from '../runtime/table';
import { typeName } from '../runtime/types';
import { toDisplayStringIn } from '../runtime/toString';
import { ValueSet } from '../runtime/sets';
import { arityAccepts, ExtValue, integer, Lambda, ModuleV, NativeFn, NullV, Scope, type Func, type NullCause, type RtValue } from '../runtime/values';
import { tableOf } from '../stdlib/dispatch';
import { MAX_STRING_SIZE } from '../stdlib/limits';

/** Strings shorter than this are not charged one by one (their cost is in the compute units). */
const CHARGED_STRING = 1024;

/** What one query's evaluation shares: hooks, globals and the diagnostics it logs. */
export class QueryRun {
  private readonly logs: Diagnostic[] = [];
  /** Performance hints, each once (the core keeps them in a set), after the logs. */
  private readonly hints = new Map<string, Diagnostic>();
  /** Checks run once the query has been evaluated, by key. */
  readonly postEval = new Map<string, () => Promise<void>>();
  constructor(
    readonly hooks: EvalHooks,
    readonly globals: ReadonlyMap<string, RtValue>,
  ) {}

  emit(d: Diagnostic): void {
    if (d.name !== 'performance_hint') this.logs.push(d);
    else this.hints.set(`${d.span.src.name}:${d.span.start}:${d.span.end}:${d.message}`, d);
  }

  /** The summary's diagnostics after the error: the logs, then the performance hints. */
  get diagnostics(): Diagnostic[] {
    return this.hints.size === 0 ? this.logs : [...this.logs, ...this.hints.values()];
  }
}

export class Interp implements CallCtx {
  constructor(
    readonly run: QueryRun,
    readonly trace: Trace | null = null,
    readonly depth = 0,
    readonly validTime: Time | undefined = undefined,
    readonly readOnlyReason: string | undefined = undefined,
  ) {}

  get hooks(): EvalHooks {
    return this.run.hooks;
  }

  withFrame(span: Span): Interp {
    return new Interp(this.run, push(span, this.trace), this.depth + 1, this.validTime, this.readOnlyReason);
  }

  withTrace(t: Trace | null): Interp {
    if (t === null) return this;
    const spans: Span[] = [];
    for (let f: Trace | null = t; f !== null; f = f.next) spans.push(f.span);
    let trace = this.trace;
    for (let i = spans.length - 1; i >= 0; i--) trace = push(spans[i], trace);
    return new Interp(this.run, trace, this.depth + spans.length, this.validTime, this.readOnlyReason);
  }

  atValidTime(t: Time | undefined): Interp {
    if (t === this.validTime) return this;
    return new Interp(this.run, this.trace, this.depth, t, this.readOnlyReason);
  }

  readOnly(reason: string): Interp {
    if (this.readOnlyReason !== undefined) return this;
    return new Interp(this.run, this.trace, this.depth, this.validTime, reason);
  }

  emit(d: Diagnostic): void {
    this.run.emit(d);
  }

  addPostEvalHook(key: string, check: () => Promise<void>): void {
    this.run.postEval.set(key, check);
  }

  apply(fn: Func, args: RtValue[]): Promise<RtValue> {
    return this.evalApply(fn, args);
  }

  // ---- expressions ----

  async eval(e: A.Expr, scope: Scope | null): Promise<RtValue> {
    switch (e.kind) {
      case 'Id': {
        const v = scope === null ? undefined : scope.lookup(e.str);
        if (v !== undefined) return v;
        return this.global(e.str, e.span);
      }
      case 'Lit':
        return literal(e.value, e.span);
      case 'StrTemplate':
        return this.evalTemplate(e, scope);
      case 'If': {
        const p = await this.eval(e.pred, scope);
        if (p === true) return this.eval(e.then, scope);
        if (p === false) return NullV.lit(e.span);
        throw Failures.invalidType('Boolean', typeName(p), push(e.pred.span, this.trace));
      }
      case 'IfElse': {
        const p = await this.eval(e.pred, scope);
        if (p === true) return this.eval(e.then, scope);
        if (p === false) return this.eval(e.else, scope);
        throw Failures.invalidType('Boolean', typeName(p), push(e.pred.span, this.trace));
      }
      case 'At':
        return this.evalAt(e, scope);
      case 'Match':
        throw new QueryCheckFailure([error('match expr not supported', e.span)]);
      case 'ProjectAll':
        throw new QueryCheckFailure([error('project expr not supported', e.span)]);
      case 'LongLambda':
        return new Lambda(
          e.params.map((p) => (p === null ? null : p.str)),
          e.variadic === null ? undefined : e.variadic.name === null ? null : e.variadic.name.str,
          e.body,
          scope,
        );
      case 'ShortLambda':
        return new Lambda([THIS_NAME], undefined, e.body, scope);
      case 'OperatorCall':
        return this.evalOperator(e, scope);
      case 'MethodChain':
        return this.evalChain(e, scope);
      case 'Project': {
        const v = await this.eval(e.e, scope);
        return this.withFrame(e.span).evalProject(v, e.bindings, scope);
      }
      case 'Object': {
        const m = new Map<string, RtValue>();
        for (const [k, x] of e.fields) m.set(k.str, await this.eval(x, scope));
        this.charge(m);
        return m;
      }
      case 'Tuple':
        if (e.elems.length === 1) return this.eval(e.elems[0], scope);
        return this.evalArgs(e.elems, scope);
      case 'Array': {
        const a = await this.evalArgs(e.elems, scope);
        this.charge(a);
        return a;
      }
      case 'Block':
        return this.evalBlock(e.body, scope);
    }
  }

  private async global(name: string, span: Span): Promise<RtValue> {
    const g = this.run.globals.get(name);
    if (g !== undefined) return g;
    const r = this.hooks.resolveGlobal === undefined ? undefined : await this.hooks.resolveGlobal(this, name);
    if (r !== undefined) return r;
    throw Failures.unboundVariable(name, push(span, this.trace));
  }

  private async evalArgs(args: readonly A.Expr[], scope: Scope | null): Promise<RtValue[]> {
    const out = new Array<RtValue>(args.length);
    for (let i = 0; i < args.length; i++) out[i] = await this.eval(args[i], scope);
    return out;
  }

  private async evalBlock(body: readonly A.Stmt[], scope: Scope | null): Promise<RtValue> {
    const last = body.length - 1;
    for (let i = 0; i < last; i++) {
      const s = body[i];
      if (s.kind === 'Let') scope = new Scope(scope, s.name.str, await this.eval(s.value, scope));
      else await this.eval(s.expr, scope);
    }
    const s = body[last];
    return this.eval(s.kind === 'ExprStmt' ? s.expr : s.value, scope);
  }

  private async evalTemplate(e: A.StrTemplate, scope: Scope | null): Promise<RtValue> {
    let out = '';
    for (const part of e.parts) {
      const s = typeof part === 'string' ? part : await toDisplayStringIn(this, await this.eval(part, scope));
      const size = out.length + s.length;
      if (size > MAX_STRING_SIZE) throw Failures.valueTooLarge(`string size ${size} exceeds limit ${MAX_STRING_SIZE}`, push(e.span, this.trace));
      out += s;
    }
    this.charge(out);
    return out;
  }

  private async evalAt(e: A.At, scope: Scope | null): Promise<RtValue> {
    const ts = await this.eval(e.ts, scope);
    const snap = this.hooks.snapshotTime();
    if (ts instanceof Time) {
      if (ts.nanos > snap.nanos) throw Failures.invalidArgument('at_time', 'cannot evaluate `at` in the future', push(e.ts.span, this.trace));
      return this.atValidTime(ts.nanos === snap.nanos ? undefined : ts).eval(e.body, scope);
    }
    if (ts instanceof TxnTime) return this.atValidTime(undefined).eval(e.body, scope);
    throw Failures.invalidType('Time', typeName(ts), push(e.ts.span, this.trace));
  }

  // ---- operators ----

  private async evalOperator(e: A.OperatorCall, scope: Scope | null): Promise<RtValue> {
    const op = e.op.str;
    const rhs = e.arg;
    if (rhs !== null) {
      switch (op) {
        case '??': {
          const l = await this.eval(e.e, scope);
          if (l instanceof ExtValue && (await l.nullCause(this.withFrame(e.e.span))) !== undefined) return this.eval(rhs, scope);
          return l instanceof NullV ? this.eval(rhs, scope) : l;
        }
        case '&&':
        case '||': {
          const short = op === '||';
          const l = await this.eval(e.e, scope);
          if (typeof l !== 'boolean') throw Failures.invalidType('Boolean', typeName(l), push(e.e.span, this.trace));
          if (l === short) return l;
          const r = await this.eval(rhs, scope);
          if (typeof r !== 'boolean') throw Failures.invalidType('Boolean', typeName(r), push(rhs.span, this.trace));
          return r;
        }
        case 'isa': {
          const l = await this.eval(e.e, scope);
          const t = await this.eval(rhs, scope);
          if (t instanceof ModuleV) return t.contains(l);
          throw Failures.invalidArgument('type_object', 'expected a module object', push(rhs.span, this.trace));
        }
      }
    }
    const value = await this.eval(e.e, scope);
    const m = tableOf(value).ops.get(op);
    if (m === undefined) {
      const err = Failures.functionDoesNotExist(op, typeName(value), push(e.op.span, this.trace));
      throw value instanceof NullV ? err.withHint({ message: 'Null value created here', span: value.cause.span }) : err;
    }
    const args = rhs === null ? [] : [await this.eval(rhs, scope)];
    return this.withFrame(e.argsSpan).callNative(m, value, args);
  }

  /** callNativeMethod: arity, one compute unit, the call, the memory of what it built. */
  async callNative(m: NativeMethod, self: RtValue, args: RtValue[]): Promise<RtValue> {
    if (!arityAccepts(m.arity, args.length)) throw Failures.invalidFuncArity(m.arity, args.length, this.trace);
    this.hooks.compute(1);
    const v = await m.call(this, self, args);
    if (v !== self && !args.includes(v)) this.charge(v);
    return v;
  }

  /** Charges the memory a value just built holds (its own slots or characters: its elements were
   *  charged when they were built). Strings and containers are what can grow without bound. */
  charge(v: RtValue): void {
    if (this.hooks.alloc === undefined) return;
    if (typeof v === 'string') {
      if (v.length >= CHARGED_STRING) this.hooks.alloc(v.length);
    } else if (Array.isArray(v)) this.hooks.alloc(64 + 8 * v.length);
    else if (v instanceof Map) this.hooks.alloc(128 + 48 * v.size);
  }

  // ---- method chains ----

  private async evalChain(e: A.MethodChain, scope: Scope | null): Promise<RtValue> {
    let value = await this.eval(e.e, scope);
    let cspan = e.e.span;
    let short = false;
    for (const c of e.chain) {
      if (c.kind === 'Bang') {
        const span = spanTo(cspan, c.span);
        if (value instanceof NullV) throw nullCauseFailure(value.cause, push(span, this.trace));
        if (value instanceof ExtValue) {
          const cause = await value.nullCause(this.withFrame(span));
          if (cause !== undefined) throw nullCauseFailure(cause, push(span, this.trace));
        }
        cspan = span;
        continue;
      }
      if (short) {
        cspan = c.span;
        continue;
      }
      let r: ChainStep;
      switch (c.kind) {
        case 'Select':
          r = await this.evalSelect(value, c.field, c.optional, cspan);
          break;
        case 'Apply':
          r = await this.evalApplyStep(value, c.args, c.optional !== null, c.applySpan, null, scope);
          break;
        case 'Access':
          r = await this.evalAccess(value, c, scope);
          break;
        case 'MethodCall':
          r = await this.evalMethodCall(value, c, scope, cspan);
          break;
      }
      cspan = r.span;
      value = r.value;
      short = r.short;
    }
    return value;
  }

  private nullAccess(field: A.Name, cause: NullCause, optional: boolean, receiver?: RtValue, cspan?: Span): ChainStep {
    if (optional) return { span: field.span, value: new NullV(cause), short: true };
    // A field of a document that is not there fails as the document's absence (evalNullAccess).
    const f = receiver instanceof ExtValue && cause.kind === 'ext' ? cause.failure?.(push(cspan ?? field.span, this.trace), true) : undefined;
    if (f !== undefined) throw f;
    throw Failures.invalidNullAccess(field.str, cause.span, push(field.span, this.trace));
  }

  private async evalSelect(value: RtValue, field: A.Name, optional: boolean, cspan?: Span): Promise<ChainStep> {
    const r = await tableOf(value).getField(this.withFrame(field.span), value, field);
    if (r instanceof NullReceiver) return this.nullAccess(field, r.cause, optional, value, cspan);
    return { span: field.span, value: r, short: false };
  }

  private async evalApplyStep(value: RtValue, args: readonly A.Expr[], optional: boolean, span: Span, inv: A.Name | null, scope: Scope | null): Promise<ChainStep> {
    if (value instanceof NullV) {
      if (optional) return { span, value, short: true };
      const c = value.cause;
      if (c.kind === 'missingField') throw Failures.functionDoesNotExist(c.field.str, typeName(c.value), push(c.field.span, this.trace));
    }
    if (value instanceof Lambda || value instanceof NativeFn) {
      const a = await this.evalArgs(args, scope);
      return { span, value: await this.withFrame(span).evalApply(value, a), short: false };
    }
    const m = tableOf(value).applyImpl;
    if (m === undefined) {
      if (inv !== null) throw Failures.invalidFieldFunctionInvalidType(inv.str, typeName(value), push(inv.span, this.trace));
      throw Failures.invalidType('Function', typeName(value), push(span, this.trace));
    }
    const a = await this.evalArgs(args, scope);
    return { span, value: await this.withFrame(span).callNative(m, value, a), short: false };
  }

  private async evalAccess(value: RtValue, c: A.Access, scope: Scope | null): Promise<ChainStep> {
    const span = c.accSpan;
    const table = tableOf(value);
    if (table.accessImpl === undefined) throw Failures.functionDoesNotExist('[]', typeName(value), push(span, this.trace));
    const a = await this.evalArgs(c.args, scope);
    const r: FieldResult = await table.callAccess(this.withFrame(span), value, a, span);
    if (r instanceof NullReceiver) return this.nullAccess({ str: '[]', span }, r.cause, c.optional !== null);
    return { span, value: r, short: false };
  }

  private async evalMethodCall(value: RtValue, c: A.MethodCall, scope: Scope | null, cspan: Span): Promise<ChainStep> {
    const table = tableOf(value);
    const m = table.methods.get(c.field.str);
    if (m !== undefined) {
      const a = await this.evalArgs(c.args, scope);
      return { span: c.applySpan, value: await this.withFrame(c.applySpan).callNative(m, value, a), short: false };
    }
    if (value instanceof NullV) return this.nullAccess(c.field, value.cause, c.selectOptional);
    const sel = await this.evalSelect(value, c.field, c.selectOptional, cspan);
    if (sel.short) return sel;
    return this.evalApplyStep(sel.value, c.args, c.applyOptional !== null, c.applySpan, c.field, scope);
  }

  // ---- projection ----

  private async evalProject(v: RtValue, bindings: A.Project['bindings'], scope: Scope | null): Promise<RtValue> {
    const span = this.trace!.span;
    const fn = new Lambda([THIS_NAME], undefined, { kind: 'Object', fields: bindings, span }, scope);
    if (v instanceof Map) return this.evalApply(fn, [v]);
    if (Array.isArray(v) || isIterable(v)) {
      const map = tableOf(v).methods.get('map')!;
      return this.callNative(map, v, [fn]);
    }
    if (v instanceof ExtValue) {
      const cause = await v.nullCause(this);
      return cause === undefined ? this.evalApply(fn, [v]) : new NullV(cause);
    }
    return v;
  }

  // ---- application ----

  async evalApply(fn: Func, args: RtValue[]): Promise<RtValue> {
    this.hooks.compute(1);
    // Every resolved await is a microtask: without this, a long query would never let the event
    // loop (another client's request) in.
    const pause = this.hooks.breathe?.();
    if (pause !== undefined) await pause;
    if (!arityAccepts(fn.arity, args.length)) throw Failures.invalidFuncArity(fn.arity, args.length, this.trace);
    if (fn instanceof NativeFn) {
      const v = await fn.call(this, args);
      if (!args.includes(v)) this.charge(v);
      return v;
    }
    const limit = this.hooks.maxStackFrames;
    // The caller pushed this call's frame already (FQLInterpreter.evalApply).
    if (this.depth - 1 > limit) throw Failures.stackOverflow(limit, this.trace);
    // Let the native stack unwind now and then: deep FQL recursion must hit the frame limit above,
    // not the engine's.
    if ((this.depth & 31) === 0) await null;
    let scope = fn.closure;
    const ps = fn.params;
    for (let i = 0; i < ps.length; i++) {
      const p = ps[i];
      if (p !== null) scope = new Scope(scope, p, args[i]);
    }
    if (fn.variadic !== undefined && fn.variadic !== null) scope = new Scope(scope, fn.variadic, args.slice(ps.length));
    return this.eval(fn.body, scope);
  }
}

interface ChainStep {
  readonly span: Span;
  readonly value: RtValue;
  readonly short: boolean;
}

function isIterable(v: RtValue): boolean {
  return v instanceof ValueSet;
}

function literal(l: A.Literal, span: Span): RtValue {
  switch (l.kind) {
    case 'Null':
      return NullV.lit(span);
    case 'True':
      return true;
    case 'False':
      return false;
    case 'Int':
      return integer(l.value);
    case 'Float':
      return l.value;
    case 'Str':
      return l.value;
  }
}

