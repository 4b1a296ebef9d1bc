// The driver's builders, reimplemented: the same wire JSON as `JSON.stringify` of
// faunadb/src/query.js's result for the same arguments, built from the table in shapes.ts.
// Where the driver would send nonsense (an Expr where an object literal belongs, arguments it
// silently ignores), this raises a BuildError instead.

import type { JsonObject, JsonValue } from '../wire/expr';
import { SHAPES, arityText } from './shapes';
import { BuildError, ExprValue, JsFunction, JsObject, Namespace, type JsValue } from './values';

const LONG_MAX = 2n ** 63n - 1n;
const LONG_MIN = -(2n ** 63n);

/** Wire nodes one parse may build: sharing a value many times must not grow output without bound. */
export const MAX_WIRE_NODES = 1_000_000;
let budget = MAX_WIRE_NODES;

/** Starts a fresh node budget (one per parsed input). */
export function resetBudget(): void {
  budget = MAX_WIRE_NODES;
}

function spend(): void {
  if (--budget < 0) throw new BuildError(`expression too large (over ${MAX_WIRE_NODES} JSON nodes)`);
}

/**
 * A JavaScript number as the driver sends it (`JSON.stringify`): an integral value below 1e21 is
 * written without a fraction, so the server reads a Long; anything else is a Double.
 */
function wireNumber(n: number): JsonValue {
  return Number.isInteger(n) && Math.abs(n) < 1e21 ? BigInt(n) : n;
}

/** The driver's `wrap`: what a value becomes when a builder takes it as an argument. */
export function wrap(v: JsValue): JsonValue {
  spend();
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return wireNumber(v);
  if (typeof v === 'bigint') {
    if (v > LONG_MAX || v < LONG_MIN) throw new BuildError(`integer ${v} is out of the 64-bit range`);
    return v;
  }
  if (v instanceof ExprValue) return v.wire;
  if (v instanceof JsFunction) return lambdaFromFunction(v).wire;
  if (Array.isArray(v)) return v.map(wrap);
  if (v instanceof Namespace) throw new BuildError(`the ${v.kind === 'query' ? 'query module (q)' : 'faunadb module'} is not a value`);
  return new Map([['object', wrapValues(v)]]);
}

/** The driver's `wrapValues`: an object's values wrapped, the object itself left plain. */
function wrapValues(o: JsObject): JsonObject {
  const out: JsonObject = new Map();
  for (const [k, v] of o.entries) out.set(k, wrap(v));
  return out;
}

const call = (entries: [string, JsonValue][]): ExprValue => new ExprValue(new Map(entries));
const variable = (name: string): ExprValue => call([['var', name]]);

/** `Lambda(fn)`: the parameter names bound, the body built from `Var`s of them. */
function lambdaFromFunction(f: JsFunction): ExprValue {
  if (f.params.length === 0) throw new BuildError('Provided Function must take at least 1 argument.');
  const body = f.invoke(f.params.map(variable));
  const params = f.params.length === 1 ? f.params[0] : [...f.params];
  return call([['lambda', params], ['expr', wrap(body)]]);
}

function checkArity(name: string, args: readonly JsValue[], min: number, max: number): void {
  if (args.length < min || args.length > max) {
    throw new BuildError(`${name} function requires ${arityText(min, max)} argument(s) but ${args.length} were given`);
  }
}

function objectArg(name: string, what: string, v: JsValue): JsObject {
  if (!(v instanceof JsObject)) throw new BuildError(`${name}: ${what} must be an object literal`);
  return v;
}

/** The driver's `varargs`: one value alone stays itself, several become an array. */
const varargs = (args: readonly JsValue[]): JsValue => (args.length === 1 ? args[0] : [...args]);

const SPECIAL: Record<string, (args: readonly JsValue[]) => ExprValue> = {
  Ref(args) {
    checkArity('Ref', args, 1, 2);
    return args.length === 1 ? call([['@ref', wrap(args[0])]]) : call([['ref', wrap(args[0])], ['id', wrap(args[1])]]);
  },
  Bytes(args) {
    checkArity('Bytes', args, 1, 1);
    const s = args[0];
    if (typeof s !== 'string') throw new BuildError('Bytes: the argument must be a base64 string');
    const canonical = s.length % 4 === 0 ? standardBase64(s) : undefined;
    if (canonical === undefined) throw new BuildError(`Bytes: ${JSON.stringify(s)} is not base64 (with padding to a multiple of 4)`);
    return call([['@bytes', canonical]]);
  },
  Let(args) {
    checkArity('Let', args, 2, 2);
    const [vars, body] = args;
    const items = Array.isArray(vars) ? vars.map((v) => objectArg('Let', 'each binding', v)) : [objectArg('Let', 'the bindings', vars)];
    // An object binds in one go, but the wire form is always one single-key object per binding.
    const bindings = Array.isArray(vars)
      ? items.map(wrapValues)
      : [...items[0].entries].map(([k, v]) => new Map([[k, wrap(v)]]));
    const names = items.flatMap((o) => [...o.entries.keys()]);
    // A function body gets a Var for every bound name, in order, whatever its parameters are called.
    const inExpr = body instanceof JsFunction ? body.invoke(names.map(variable)) : body;
    return call([['let', bindings], ['in', wrap(inExpr)]]);
  },
  Lambda(args) {
    checkArity('Lambda', args, 1, 2);
    if (args.length === 2) return call([['lambda', wrap(args[0])], ['expr', wrap(args[1])]]);
    const f = args[0];
    if (f instanceof JsFunction) return lambdaFromFunction(f);
    if (f instanceof ExprValue) return f;
    throw new BuildError('Lambda function takes either a Function or an Expr.');
  },
  Object(args) {
    checkArity('Object', args, 1, 1);
    return call([['object', args[0] === null ? null : wrapValues(objectArg('Object', 'the argument', args[0]))]]);
  },
  Paginate(args) {
    checkArity('Paginate', args, 1, 2);
    const out: JsonObject = new Map([['paginate', wrap(args[0])]]);
    const opts = args[1];
    if (opts !== undefined && opts !== null) {
      for (const [k, v] of wrapValues(objectArg('Paginate', 'the options', opts))) out.set(k, v);
    }
    return new ExprValue(out);
  },
};

/** Whether `name` is a builder (a driver `query` function). */
export function isBuilder(name: string): boolean {
  return SHAPES.has(name) || Object.hasOwn(SPECIAL, name);
}

/** Calls builder `name` as the driver would. Throws BuildError for what the driver rejects (and more). */
export function callBuilder(name: string, args: readonly JsValue[]): ExprValue {
  if (Object.hasOwn(SPECIAL, name)) return SPECIAL[name](args);
  const shape = SHAPES.get(name);
  if (!shape) throw new BuildError(`unknown function ${name}`);
  checkArity(name, args, shape.minArgs, shape.maxArgs);
  if (shape.params.length === 0) return call([[shape.head, null]]);
  const out: JsonObject = new Map();
  for (const { key, arg, mode } of shape.params) {
    const given = arg < args.length;
    switch (mode) {
      case 'req':
        out.set(key, wrap(args[arg]));
        break;
      case 'opt':
        if (given && args[arg] !== null) out.set(key, wrap(args[arg]));
        break;
      case 'given':
        if (given) out.set(key, wrap(args[arg]));
        break;
      case 'nullable':
        out.set(key, given ? wrap(args[arg]) : null);
        break;
      case 'rest':
        out.set(key, wrap(varargs(args.slice(arg))));
        break;
      case 'restArray':
        out.set(key, wrap(args.slice(arg)));
        break;
    }
  }
  return new ExprValue(out);
}

/**
 * Checks that a built expression is a tree of at most MAX_WIRE_NODES nodes. Builders share
 * subtrees (`let a = …; Add(a, a)`), so a short text can stand for an exponentially large one.
 */
export function checkSize(wire: JsonValue): void {
  let left = MAX_WIRE_NODES;
  const walk = (v: JsonValue): void => {
    if (--left < 0) throw new BuildError(`expression too large (over ${MAX_WIRE_NODES} JSON nodes)`);
    if (Array.isArray(v)) v.forEach(walk);
    else if (v instanceof Map) v.forEach(walk);
  };
  walk(wire);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$|^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Standard or url-safe base64 rewritten in the standard alphabet, or undefined when it is not base64.
 * atob/btoa rather than Buffer: this parser also runs in the browser (the dashboard).
 */
function standardBase64(s: string): string | undefined {
  if (!BASE64.test(s)) return undefined;
  try {
    return btoa(atob(s.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return undefined;
  }
}
