// Request JSON → expression tree (fql-v4.md §2.1). Objects are forms when their whole key set
// matches one; otherwise single-key `@` escapes; otherwise a parse error. Escapes and `quote`
// produce literal values: nothing inside them is an expression.

import { errors, type Position } from '../values/errors';
import {
  Bytes,
  DateV,
  Lambda,
  Ref,
  SetV,
  Time,
  isNativeName,
  type LambdaParams,
  type Obj,
  type Value,
} from '../values/types';
import { matchForm, noFormMessage, type RecognizedForm } from './builders';
import type { Expr, JsonObject, JsonValue, LambdaExpr, LetExpr, LitExpr } from './expr';
import { parseJson, parseJsonSliced, type Pacer } from './json';
import { parseDate, parseIsoTime } from './time';

/** parseJson + decodeExpr: the request body of `POST /`. */
export function decodeQueryBody(text: string): Expr {
  return decodeExpr(parseJson(text));
}

/** A Pacer that is also charged the memory the decoded trees take (`alloc` throws past the request's share). */
export interface DecodePacer extends Pacer {
  alloc(bytes: number): void;
}

// What the trees cost in V8's heap, measured on large bodies of several shapes: a parsed JSON value
// ~40 bytes, a decoded container (its node, positions and argument map) ~400; a small body at most
// ~24 bytes per character of text.
const PARSED_VALUE_BYTES = 40;
const DECODED_NODE_BYTES = 400;
const SMALL_BODY_BYTES_PER_CHAR = 24;

/** Bodies up to this size are decoded in one go: they take well under a slice. */
const SYNC_DECODE_CHARS = 64 * 1024;

/**
 * The request body of `POST /` (and of a stream) as an expression, decoded a slice at a time so that
 * a body of several MiB never holds the event loop for longer than `pacer.sliceMs`.
 */
export function decodeRequest(text: string, pacer: DecodePacer): Expr | Promise<Expr> {
  if (text.length <= SYNC_DECODE_CHARS) {
    pacer.alloc(text.length * SMALL_BODY_BYTES_PER_CHAR);
    return decodeQueryBody(text); // no promise for the common, small body
  }
  return decodeLarge(text, pacer);
}

async function decodeLarge(text: string, pacer: DecodePacer): Promise<Expr> {
  // The body's text stays alive as long as any string sliced from it does.
  pacer.alloc(text.length * 2);
  const json = await parseJsonSliced(text, pacer, (values) => pacer.alloc(values * PARSED_VALUE_BYTES));
  const session: Slicing = { resume: undefined, charge: (nodes) => pacer.alloc(nodes * DECODED_NODE_BYTES) };
  for (;;) {
    const expr = decodeSlice(json, session, performance.now() + pacer.sliceMs);
    if (expr) return expr;
    await pacer.pause();
  }
}

// --- slicing -------------------------------------------------------------------------------
// The decoder is recursive. To stop in the middle of a large tree it throws SUSPEND from the next
// node it would start; every loop over children catches it, files what it has done so far under
// its JSON container in `resume`, and rethrows. The next slice starts again from the root, and each
// loop picks up its filed state, so completed subtrees are not decoded twice. Decoding outside a
// slice (every small body, lambda bodies) never suspends.

const SUSPEND = Symbol('suspend');
/** Nodes between two looks at the clock while slicing. */
const CHECK_EVERY = 1024;

interface Slicing {
  /** Partial state of the loops interrupted by the last SUSPEND, by JSON container. */
  resume: Map<object, LoopState> | undefined;
  /** Charges the memory of `nodes` decoded containers (throws when over budget). */
  charge(nodes: number): void;
}

interface LoopState {
  i: number;
  done: unknown;
}

let fuel = Infinity;
let sliceEnd = 0;
let slicing: Slicing | undefined;

/** Decodes until `until` (performance.now()); the expression, or undefined when the time ran out. */
function decodeSlice(json: JsonValue, session: Slicing, until: number): Expr | undefined {
  slicing = session;
  fuel = CHECK_EVERY;
  sliceEnd = until;
  try {
    return decodeExpr(json);
  } catch (e) {
    if (e === SUSPEND) return undefined;
    throw e;
  } finally {
    slicing = undefined;
    fuel = Infinity;
  }
}

/** Called before a node is decoded: throws SUSPEND when the slice is over. */
function pace(): void {
  if (--fuel > 0) return;
  fuel = CHECK_EVERY;
  slicing?.charge(CHECK_EVERY);
  if (performance.now() >= sliceEnd) throw SUSPEND;
}

/**
 * A loop over the `n` children of `container`: `step(done, i)` for each i, from where a suspended run
 * of it stopped (its `done` kept), else from 0 with `fresh()`. A SUSPEND passing through files the
 * loop's state under `container` for the next slice.
 */
function resumable<T>(container: object, n: number, fresh: () => T, step: (done: T, i: number) => void): T {
  if (slicing === undefined) {
    // Not slicing (every small body): nothing can suspend.
    const done = fresh();
    for (let i = 0; i < n; i++) step(done, i);
    return done;
  }
  const state = slicing.resume?.get(container) as { i: number; done: T } | undefined;
  if (state) slicing!.resume!.delete(container);
  const done = state ? state.done : fresh();
  let i = state ? state.i : 0;
  try {
    for (; i < n; i++) step(done, i);
  } catch (e) {
    if (e === SUSPEND) (slicing!.resume ??= new Map()).set(container, { i, done });
    throw e;
  }
  return done;
}

/** resumable() over a JSON object's fields: `step(done, key, value)`, in order. */
function resumableFields<T>(obj: JsonObject, fresh: () => T, step: (done: T, key: string, value: JsonValue) => void): T {
  if (slicing === undefined) {
    // The hot path (every small body): the fields as they come, no key list, no state.
    const done = fresh();
    for (const [k, v] of obj) step(done, k, v);
    return done;
  }
  const keys = [...obj.keys()];
  return resumable(obj, keys.length, fresh, (done, i) => step(done, keys[i], obj.get(keys[i])!));
}

// --- expressions ---------------------------------------------------------------------------

export function decodeExpr(json: JsonValue, pos: Position = []): Expr {
  if (json === null || typeof json !== 'object') return { t: 'lit', v: json, pos };
  pace();
  if (Array.isArray(json)) return decodeArray(json, pos, true);
  const form = matchForm(json);
  if (form) return decodeForm(json, form, pos);
  if (json.size === 1) {
    const [key, inner] = json.entries().next().value as [string, JsonValue];
    if (key === '@obj') return decodeObjEscape(inner, pos);
    if (ESCAPES.has(key)) return { t: 'lit', v: decodeEscape(key, inner, pos), pos };
  }
  throw errors.invalidExpression(noFormMessage(json.keys()), pos);
}

/**
 * An array literal. One whose elements are all constants is itself a constant (one node, no
 * per-element positions: constants cannot fail), unless its array-ness matters (`do`, `and`, `or`).
 */
function decodeArray(json: JsonValue[], pos: Position, fold: boolean): Expr {
  if (fold && json.every(isScalar)) return { t: 'lit', v: json, pos };
  const items = resumable(json, json.length, () => new Array<Expr>(json.length), (done, i) => (done[i] = decodeExpr(json[i], at(pos, i))));
  if (fold && items.every((x) => x.t === 'lit')) return { t: 'lit', v: items.map((x) => (x as LitExpr).v), pos };
  return { t: 'array', items, pos };
}

function isScalar(j: JsonValue): boolean {
  return j === null || typeof j !== 'object';
}

/** Special forms whose literal operand list may not be empty (a parse error in Fauna). */
const EXPR_LISTS: ReadonlySet<string> = new Set(['do', 'and', 'or']);

function decodeForm(json: JsonObject, form: RecognizedForm, pos: Position): Expr {
  const { head, canonical } = form;
  switch (canonical) {
    case 'var': {
      const name = json.get('var')!;
      if (typeof name !== 'string') throw expected('String', name, at(pos, 'var'));
      return { t: 'var', name, pos };
    }
    case 'lambda':
      return decodeLambda(json, pos);
    case 'let':
      return decodeLet(json, pos);
    case 'object':
      return decodeObjectLiteral(json.get('object')!, pos);
    case 'quote':
      // Quoted data is resolved now: the evaluator just returns the value.
      return { t: 'lit', v: decodeLiteral(json.get('quote')!, at(pos, 'quote')), pos };
  }
  // Only a literal list is a sequence for do/and/or: it stays an array expression.
  const list = EXPR_LISTS.has(canonical);
  const args = resumableFields(json, () => new Map<string, Expr>(), (done, k, v) =>
    done.set(k, list && k === head && Array.isArray(v) ? decodeArray(v, at(pos, k), false) : decodeExpr(v, at(pos, k))),
  );
  if (list) {
    const list = json.get(head);
    if (Array.isArray(list) && list.length === 0)
      throw errors.invalidExpression('Expression list cannot be empty.', at(pos, head));
  }
  const lambdaArg = form.spec.lambdaArg;
  if (lambdaArg !== undefined) {
    const l = args.get(lambdaArg);
    if (l !== undefined && l.t !== 'lambda') throw errors.invalidExpression(noFormMessage(json.keys()), pos);
  }
  return { t: 'call', fn: canonical, args, pos };
}

function decodeLambda(json: JsonObject, pos: Position): LambdaExpr {
  const params = lambdaParams(json.get('lambda')!);
  if (params === undefined) throw errors.invalidExpression('Invalid lambda.', at(pos, 'lambda'));
  const raw = json.get('expr')!;
  return { t: 'lambda', params, body: decodeExpr(raw, at(pos, 'expr')), raw, pos };
}

/** A parameter name, or an array of parameter patterns (destructuring). */
function lambdaParams(j: JsonValue): LambdaParams | undefined {
  if (typeof j === 'string') return j;
  if (!Array.isArray(j)) return undefined;
  const out: LambdaParams[] = [];
  for (const p of j) {
    const q = lambdaParams(p);
    if (q === undefined) return undefined;
    out.push(q);
  }
  return out;
}

function decodeLet(json: JsonObject, pos: Position): LetExpr {
  const b = json.get('let')!;
  const lp = at(pos, 'let');
  // Each binding with its JSON and position: the driver's form is an array of (normally
  // single-key) objects, in order; the other an object.
  const todo: [string, JsonValue, Position][] = [];
  if (Array.isArray(b)) {
    for (let i = 0; i < b.length; i++) {
      const item = b[i];
      if (!(item instanceof Map)) throw expected('Object', item, at(lp, i));
      for (const [name, e] of item) todo.push([name, e, at(at(lp, i), name)]);
    }
  } else if (b instanceof Map) {
    for (const [name, e] of b) todo.push([name, e, at(lp, name)]);
  } else {
    throw expected('Object or Array', b, lp);
  }
  const bindings = resumable(json, todo.length, (): [string, Expr][] => [], (done, i) => done.push([todo[i][0], decodeExpr(todo[i][1], todo[i][2])]));
  return { t: 'let', bindings, body: decodeExpr(json.get('in')!, at(pos, 'in')), pos };
}

/** `{"object": {k: e}}`: keys literal, values expressions; the inner may be `{"@obj": {…}}`. */
function decodeObjectLiteral(j: JsonValue, pos: Position): Expr {
  const op = at(pos, 'object');
  if (!(j instanceof Map)) throw expected('Object', j, op);
  if (j.size === 1 && j.has('@obj')) {
    const inner = j.get('@obj')!;
    if (!(inner instanceof Map)) throw errors.invalidExpression('Invalid object.', op);
    return objectExpr(inner, at(op, '@obj'), pos);
  }
  return objectExpr(j, op, pos);
}

/** An object literal; one whose values are all constants is itself a constant. */
function objectExpr(j: JsonObject, childPos: Position, pos: Position): Expr {
  const entries = resumableFields(j, (): [string, Expr][] => [], (done, k, v) => done.push([k, decodeExpr(v, at(childPos, k))]));
  if (entries.every(([, x]) => x.t === 'lit')) return { t: 'lit', v: new Map(entries.map(([k, x]) => [k, (x as LitExpr).v])), pos };
  return { t: 'object', entries, pos };
}

/**
 * `@obj` in expression position unwraps one level: a form inside is an expression (so
 * `{"@obj":{"object":{…}}}` works); any other object is an object literal with literal keys.
 */
function decodeObjEscape(inner: JsonValue, pos: Position): Expr {
  if (!(inner instanceof Map)) throw errors.invalidExpression('Invalid object.', pos);
  const ip = at(pos, '@obj');
  if (matchForm(inner)) return decodeExpr(inner, ip);
  return objectExpr(inner, ip, pos);
}

// --- literals ------------------------------------------------------------------------------

const ESCAPES: ReadonlySet<string> = new Set(['@ref', '@ts', '@date', '@bytes', '@set', '@query']);

/**
 * JSON as literal data (quote bodies, REST bodies, the inside of escapes): escapes resolved,
 * bare objects become Obj, nothing is evaluated.
 */
export function decodeLiteral(json: JsonValue, pos: Position = []): Value {
  if (json === null || typeof json !== 'object') return json;
  pace();
  if (Array.isArray(json)) {
    if (json.every(isScalar)) return json;
    return resumable(json, json.length, () => new Array<Value>(json.length), (done, i) => (done[i] = decodeLiteral(json[i], at(pos, i))));
  }
  if (json.size === 1) {
    const [key, inner] = json.entries().next().value as [string, JsonValue];
    if (key === '@obj') {
      // Inside literals `@obj` protects its keys: they are taken as they are.
      if (!(inner instanceof Map)) throw errors.invalidExpression('Invalid object.', pos);
      return literalObj(inner, at(pos, '@obj'));
    }
    if (ESCAPES.has(key)) return decodeEscape(key, inner, pos);
  }
  return literalObj(json, pos);
}

function literalObj(json: JsonObject, pos: Position): Obj {
  return resumableFields(json, (): Obj => new Map(), (done, k, v) => done.set(k, decodeLiteral(v, at(pos, k))));
}

function decodeEscape(key: string, inner: JsonValue, pos: Position): Value {
  switch (key) {
    case '@ref':
      return decodeRef(inner, pos);
    case '@ts': {
      const nanos = typeof inner === 'string' ? parseIsoTime(inner) : undefined;
      if (nanos === undefined) throw errors.invalidExpression('Invalid time.', pos);
      return new Time(nanos);
    }
    case '@date': {
      const days = typeof inner === 'string' ? parseDate(inner) : undefined;
      if (days === undefined) throw errors.invalidExpression('Invalid date.', pos);
      return new DateV(days);
    }
    case '@bytes': {
      const bytes = typeof inner === 'string' ? decodeBase64(inner) : undefined;
      if (bytes === undefined) throw errors.invalidExpression('Invalid bytes.', pos);
      return new Bytes(bytes);
    }
    case '@set':
      return decodeSet(inner, pos);
    case '@query':
      return decodeQuery(inner, pos);
  }
  throw errors.invalidExpression(noFormMessage([key]), pos);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$|^[A-Za-z0-9_-]*={0,2}$/;

/** Standard or url-safe base64, padding optional. */
export function decodeBase64(s: string): Uint8Array | undefined {
  if (!BASE64.test(s)) return undefined;
  const body = s.replace(/=+$/, '');
  if (body.length % 4 === 1) return undefined;
  if (body.length !== s.length && s.length % 4 !== 0) return undefined; // wrong amount of padding
  const buf = Buffer.from(body, 'base64'); // Node accepts both alphabets
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
}

// --- refs ----------------------------------------------------------------------------------

const invalidRef = (pos: Position) => errors.invalidExpression('Invalid ref.', pos);

/** Legacy native names map to their current ones (API ≥ 2.7 renders `collections`). */
function nativeName(s: string): string | undefined {
  if (s === 'classes') return 'collections';
  return isNativeName(s) ? s : undefined;
}

function decodeRef(inner: JsonValue, pos: Position): Ref {
  if (typeof inner === 'string') return parseRefPath(inner, pos);
  if (!(inner instanceof Map)) throw invalidRef(pos);
  let id: string | undefined;
  let collection: Ref | undefined;
  let database: Ref | undefined;
  for (const [k, v] of inner) {
    switch (k) {
      case 'id':
        if (typeof v === 'string') id = v;
        else if (typeof v === 'bigint') id = v.toString();
        else throw invalidRef(pos);
        break;
      case 'collection':
      case 'class':
        if (collection) throw invalidRef(pos);
        collection = innerRef(v, pos);
        break;
      case 'database':
        database = innerRef(v, pos);
        break;
      default:
        throw invalidRef(pos);
    }
  }
  if (id === undefined) throw invalidRef(pos);
  if (!collection) {
    const native = nativeName(id);
    if (!native) throw invalidRef(pos);
    return new Ref(native, undefined, database);
  }
  return normalizeRef(id, collection, database);
}

function innerRef(v: JsonValue, pos: Position): Ref {
  const r = decodeLiteral(v, pos);
  if (!(r instanceof Ref)) throw invalidRef(pos);
  return r;
}

const CREDENTIAL_NATIVES: ReadonlySet<string> = new Set(['keys', 'tokens', 'credentials']);

/**
 * Puts `database` where the Ref contract (values/types.ts) keeps it: on the collection ref for
 * user documents, on the ref itself for everything else (the wire puts it on the native
 * `keys`/`tokens`/`credentials` ref for those; the encoder moves it back).
 */
function normalizeRef(id: string, collection: Ref, database: Ref | undefined): Ref {
  if (collection.isNativeCollection) {
    const name = collection.id;
    if (CREDENTIAL_NATIVES.has(name) && collection.database && !database)
      return new Ref(id, new Ref(name), collection.database);
    return new Ref(id, collection, database);
  }
  if (database && collection.nativeParent === 'collections' && !collection.database)
    return new Ref(id, new Ref(collection.id, collection.collection, database));
  return new Ref(id, collection, database);
}

const NUMERIC_ID = /^\d+$/;

/** Legacy string refs such as `collections/widgets/123`, `keys/1`, `credentials/self`. */
function parseRefPath(path: string, pos: Position): Ref {
  const parts = path.split('/');
  const native = nativeName(parts[0]);
  if (!native) throw invalidRef(pos);
  if (parts.length === 1) return new Ref(native);
  const name = parts[1];
  if (name === '' || name === 'events') throw invalidRef(pos);
  if (native === 'collections') {
    if (name === 'self') throw invalidRef(pos);
    if (parts.length === 2) return Ref.collection(name);
    const id = parts[2];
    if (parts.length === 3 && (NUMERIC_ID.test(id) || id === 'self')) return Ref.doc(name, id);
    throw invalidRef(pos);
  }
  if (parts.length !== 2) throw invalidRef(pos);
  if (CREDENTIAL_NATIVES.has(native)) {
    // `keys/self` is never resolvable; tokens/credentials `self` is resolved by the evaluator.
    if (NUMERIC_ID.test(name) || (name === 'self' && native !== 'keys')) return new Ref(name, new Ref(native));
    throw invalidRef(pos);
  }
  if (name === 'self') throw invalidRef(pos); // databases/self and friends
  return Ref.schema(native, name);
}

// --- sets and lambdas ----------------------------------------------------------------------

const SET_HEADS: ReadonlySet<string> = new Set([
  'match', 'union', 'intersection', 'difference', 'distinct', 'events', 'singleton', 'documents',
  'range', 'reverse', 'filter', 'join',
]);

/** `@set` holds a set in its rendered shape; its parts are literal values. */
function decodeSet(inner: JsonValue, pos: Position): SetV {
  if (!(inner instanceof Map)) throw errors.invalidExpression('Invalid set.', pos);
  const form = matchForm(inner);
  if (!form || !SET_HEADS.has(form.canonical)) throw errors.invalidExpression('Invalid set.', pos);
  return new SetV(literalObj(inner, at(pos, '@set')));
}

/** `@query`: a closed lambda value; without `api_version` it has API 2.12 semantics. */
function decodeQuery(inner: JsonValue, pos: Position): Lambda {
  const bad = () => errors.invalidExpression('Invalid lambda.', pos);
  if (!(inner instanceof Map) || !inner.has('lambda') || !inner.has('expr')) throw bad();
  let apiVersion: string | undefined;
  for (const [k, v] of inner) {
    if (k === 'api_version') {
      if (typeof v !== 'string') throw bad();
      apiVersion = v;
    } else if (k !== 'lambda' && k !== 'expr') throw bad();
  }
  const params = lambdaParams(inner.get('lambda')!);
  if (params === undefined) throw bad();
  const raw = inner.get('expr')!;
  // Parse the body now so that syntax errors and free variables surface at parse time.
  const body = decodeExpr(raw, at(at(pos, '@query'), 'expr'));
  if (hasFreeVars(body, paramSet(params, new Set()))) throw bad();
  return new Lambda(params, raw, apiVersion);
}

function paramSet(p: LambdaParams, into: Set<string>): Set<string> {
  if (typeof p === 'string') {
    if (p !== '_') into.add(p);
  } else for (const q of p) paramSet(q, into);
  return into;
}

function hasFreeVars(e: Expr, bound: ReadonlySet<string>): boolean {
  switch (e.t) {
    case 'lit':
      return false;
    case 'var':
      return !bound.has(e.name);
    case 'array':
      return e.items.some((x) => hasFreeVars(x, bound));
    case 'object':
      return e.entries.some(([, x]) => hasFreeVars(x, bound));
    case 'call':
      for (const x of e.args.values()) if (hasFreeVars(x, bound)) return true;
      return false;
    case 'lambda':
      return hasFreeVars(e.body, paramSet(e.params, new Set(bound)));
    case 'let': {
      const inner = new Set(bound);
      for (const [name, x] of e.bindings) {
        if (hasFreeVars(x, inner)) return true;
        inner.add(name);
      }
      return hasFreeVars(e.body, inner);
    }
  }
}

// --- helpers -------------------------------------------------------------------------------

/** `[...pos, key]`; slice+push is markedly faster than spread on this hot path. */
function at(pos: Position, key: string | number): Position {
  const p = pos.slice();
  p.push(key);
  return p;
}

function jsonTypeName(j: JsonValue): string {
  if (j === null) return 'Null';
  switch (typeof j) {
    case 'string':
      return 'String';
    case 'boolean':
      return 'Boolean';
    case 'bigint':
      return 'Integer';
    case 'number':
      return 'Double';
  }
  return Array.isArray(j) ? 'Array' : 'Object';
}

function expected(type: string, got: JsonValue, pos: Position) {
  return errors.invalidExpression(`${type} expected, ${jsonTypeName(got)} provided.`, pos);
}
