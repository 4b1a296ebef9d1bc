// Set cursors that outlive the request (ValueSet.setCursor + ValueReification): a cursor holds
// how its set was built — sources, combinators, the lambdas they apply as source text with the
// values they capture — and the position to resume at. The next request rebuilds the set from it
// and pages on under its own permissions, in whichever process answers; nothing is kept in memory.
// A token that does not decode to a set (tampered, foreign, or a set this encoding cannot hold)
// is refused as `invalid_cursor` by `Set.paginate`.

import { THIS_NAME } from '../ast';
import { parseExpr } from '../parser';
import type { CursorCodec } from '../runtime/hooks';
import {
  ArraySet,
  ConcatSet,
  DistinctSet,
  DropSet,
  FlatMapSet,
  OrderedSet,
  PagedSet,
  ProjectedSet,
  ReverseSet,
  SequenceSet,
  SingletonSet,
  TakeSet,
  ValueSet,
  WhereFilterSet,
  type PageTok,
} from '../runtime/sets';
import { Bytes, DateV, IdV, Lambda, NativeFn, NullV, Scope, SetCursorV, SmallLong, Time, TxnTime, type Func, type RtValue } from '../runtime/values';
import { NULL_SPAN } from '../span';
import { STDLIB_GLOBALS } from '../stdlib/globals';
import { tableOf } from '../stdlib/dispatch';
import { CollectionDefV } from './collectionDocs';
import { CollectionDefsSet } from './collections';
import { toRuntime, toStored } from './convert';
import { DocV } from './docs';
import { nativeSpecOf, NativeDocsSet, NativeDocV, type NativeSpec } from './natives';
import { CollectionSet, IndexSet, type CollRef, type IdRange } from './sources';

export type J = null | boolean | string | number | J[] | { [k: string]: J };

/** This value cannot go into a cursor. */
class Unencodable extends Error {}
/** The token is not one of ours. */
class Malformed extends Error {}

// ---- values ----

function encodeValue(v: RtValue): J {
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'bigint':
      return { i: v.toString() };
    case 'number':
      return { d: String(v) };
  }
  if (v instanceof NullV) return null;
  if (Array.isArray(v)) return { a: v.map(encodeValue) };
  if (v instanceof Map) return { o: [...v].map(([k, x]) => [k, encodeValue(x)]) };
  if (v instanceof Time) return { t: v.nanos.toString() };
  if (v instanceof DateV) return { dt: v.days };
  if (v instanceof Bytes) return { b: Buffer.from(v.bytes).toString('base64') };
  if (v instanceof TxnTime) return { tt: 1 };
  if (v instanceof IdV) return { id: v.value.toString() };
  if (v instanceof SmallLong) return { sl: v.value.toString() };
  if (v instanceof ValueSet) return { set: encodeSet(v) };
  if (v instanceof SetCursorV) return { cur: v.token };
  if (v instanceof DocV) return { doc: [v.db.toString(), v.collId.toString(), v.collName, v.id.toString(), v.readTs?.toString() ?? null] };
  if (v instanceof CollectionDefV) return { def: [v.db.toString(), v.name] };
  if (v instanceof NativeDocV && !v.deleted && v.once === undefined)
    return { nat: [v.spec.module, v.db.toString(), typeof v.key === 'string' ? v.key : { id: v.key.toString() }] };
  if (v instanceof Lambda) return { l: encodeLambda(v) };
  if (v instanceof NativeFn) {
    if (v.callee === null) {
      if (STDLIB_GLOBALS.get(v.name) !== v) throw new Unencodable();
      return { g: v.name };
    }
    return { m: v.name, c: encodeValue(v.callee) };
  }
  if (STDLIB_GLOBALS.get((v as { name?: string }).name ?? '') === v) return { mod: (v as { name: string }).name };
  throw new Unencodable();
}

/** A lambda as its source text (from the query it was written in) and the variables it captures. */
function encodeLambda(l: Lambda): J {
  const src = l.body.span.src.text;
  if (src === undefined) throw new Unencodable();
  const body = src.slice(l.body.span.start, l.body.span.end);
  // Template values (`$0`…) stand in the text as placeholders: such lambdas stay in their query.
  if (body.includes('\u0000') || body.length === 0) throw new Unencodable();
  const short = l.params.length === 1 && l.params[0] === THIS_NAME && l.variadic === undefined;
  let text: string;
  if (short) text = body;
  else {
    const ps = l.params.map((x) => x ?? '_');
    if (l.variadic !== undefined) ps.push(`...${l.variadic ?? '_'}`);
    if (ps.some((x) => x.startsWith('$'))) throw new Unencodable();
    text = `(${ps.join(', ')}) => ${body}`;
  }
  const env: J[] = [];
  const seen = new Set<string>();
  for (let s: Scope | null = l.closure; s !== null; s = s.parent) {
    if (seen.has(s.name)) continue;
    seen.add(s.name);
    if (!new RegExp(`(^|[^A-Za-z0-9_$])${s.name.replace(/\$/g, '\\$')}($|[^A-Za-z0-9_])`).test(body)) continue;
    if (s.name.startsWith('$')) throw new Unencodable();
    env.push([s.name, encodeValue(s.value)]);
  }
  return { src: text, short, env };
}

function str(j: J | undefined): string {
  if (typeof j !== 'string') throw new Malformed();
  return j;
}
function num(j: J | undefined): number {
  if (typeof j !== 'number' || !Number.isSafeInteger(j)) throw new Malformed();
  return j;
}
function big(j: J | undefined): bigint {
  const s = str(j);
  if (!/^-?\d{1,20}$/.test(s)) throw new Malformed();
  return BigInt(s);
}
function arr(j: J | undefined): J[] {
  if (!Array.isArray(j)) throw new Malformed();
  return j;
}
function objOf(j: J | undefined): { [k: string]: J } {
  if (j === null || typeof j !== 'object' || Array.isArray(j)) throw new Malformed();
  return j;
}

function decodeValue(j: J): RtValue {
  if (j === null) return new NullV({ kind: 'lit', span: NULL_SPAN });
  if (typeof j === 'boolean' || typeof j === 'string') return j;
  const o = objOf(j);
  const [k] = Object.keys(o);
  const x = o[k];
  switch (k) {
    case 'i':
      return big(x);
    case 'd':
      return Number(str(x));
    case 'sl':
      return new SmallLong(big(x));
    case 'a':
      return arr(x).map(decodeValue);
    case 'o':
      return new Map(arr(x).map((e) => [str(arr(e)[0]), decodeValue(arr(e)[1])]));
    case 't':
      return new Time(big(x));
    case 'dt':
      return new DateV(num(x));
    case 'b':
      return new Bytes(Uint8Array.from(Buffer.from(str(x), 'base64')));
    case 'tt':
      return TxnTime.instance;
    case 'id':
      return new IdV(big(x));
    case 'set':
      return decodeSet(x);
    case 'cur':
      return new SetCursorV(str(x));
    case 'doc': {
      const [db, coll, name, id, ts] = arr(x);
      return new DocV(big(db), big(coll), str(name), big(id), ts === null ? undefined : big(ts));
    }
    case 'def': {
      const [db, name] = arr(x);
      return new CollectionDefV(big(db), str(name));
    }
    case 'nat': {
      const [module, db, key] = arr(x);
      return new NativeDocV(specOf(module), big(db), typeof key === 'string' ? key : big(objOf(key).id));
    }
    case 'l':
      return decodeLambda(objOf(x));
    case 'g': {
      const f = STDLIB_GLOBALS.get(str(x));
      if (!(f instanceof NativeFn)) throw new Malformed();
      return f;
    }
    case 'm': {
      const callee = decodeValue(o.c);
      const m = tableOf(callee).methods.get(str(x));
      if (m === undefined) throw new Malformed();
      return m.bind(callee);
    }
    case 'mod': {
      const m = STDLIB_GLOBALS.get(str(x));
      if (m === undefined) throw new Malformed();
      return m;
    }
  }
  throw new Malformed();
}

function decodeLambda(o: { [k: string]: J }): Lambda {
  const text = str(o.src);
  const short = o.short === true;
  const r = parseExpr(text, { name: '*cursor*', text }, short);
  if (!r.ok) throw new Malformed();
  let scope: Scope | null = null;
  for (const e of arr(o.env).reverse()) scope = new Scope(scope, str(arr(e)[0]), decodeValue(arr(e)[1]));
  const l = r.value;
  if (l.kind === 'ShortLambda') return new Lambda([THIS_NAME], undefined, l.body, scope);
  if (l.kind !== 'LongLambda') throw new Malformed();
  return new Lambda(
    l.params.map((x) => (x === null ? null : x.str)),
    l.variadic === null ? undefined : l.variadic.name === null ? null : l.variadic.name.str,
    l.body,
    scope,
  );
}

function func(v: RtValue): Func {
  if (!(v instanceof Lambda || v instanceof NativeFn)) throw new Malformed();
  return v;
}

function time(j: J | undefined): Time | undefined {
  return j === null || j === undefined ? undefined : new Time(big(j));
}

// ---- sets ----

function collJ(c: CollRef): J {
  return [c.db.toString(), c.id.toString(), c.name];
}
function collOf(j: J | undefined): CollRef {
  const [db, id, name] = arr(j);
  return { db: big(db), id: big(id), name: str(name) };
}

function specOf(j: J | undefined): NativeSpec {
  const spec = nativeSpecOf(str(j));
  if (spec === undefined) throw new Malformed();
  return spec;
}

function encodeSet(s: ValueSet): J {
  if (s instanceof ArraySet) return { k: 'arr', a: s.array.map(encodeValue) };
  if (s instanceof SequenceSet) return { k: 'seq', f: s.from, u: s.until, r: s.reversed };
  if (s instanceof SingletonSet) return { k: 'one', v: encodeValue(s.value) };
  if (s instanceof ConcatSet) return { k: 'cat', l: encodeSet(s.left), r: encodeSet(s.right) };
  if (s instanceof ReverseSet) return { k: 'rev', i: encodeSet(s.inner) };
  if (s instanceof DistinctSet) return { k: 'dst', i: encodeSet(s.inner) };
  if (s instanceof DropSet) return { k: 'drop', i: encodeSet(s.inner), n: s.elements };
  if (s instanceof TakeSet) return { k: 'take', i: encodeSet(s.inner), n: s.limit };
  if (s instanceof PagedSet) return { k: 'pg', i: encodeSet(s.inner), n: s.count };
  const vt = (t: Time | undefined) => t?.nanos.toString() ?? null;
  if (s instanceof WhereFilterSet) return { k: 'where', i: encodeSet(s.inner), f: encodeValue(s.pred), vt: vt(s.validTime) };
  if (s instanceof ProjectedSet) return { k: 'map', i: encodeSet(s.inner), f: encodeValue(s.fn), vt: vt(s.validTime) };
  if (s instanceof FlatMapSet)
    return { k: 'fmap', i: encodeSet(s.spline), c: s.splineCont?.map(encodeValue) ?? null, f: encodeValue(s.fn), vt: vt(s.validTime), r: s.reversed };
  if (s instanceof OrderedSet) return { k: 'ord', i: encodeSet(s.inner), o: s.ords.map((o) => [encodeValue(o.accessor), o.ascending]) };
  if (s instanceof CollectionSet)
    return { k: 'coll', c: collJ(s.coll), ts: s.readTs?.toString() ?? null, r: s.reversed, ...idRangeJ(s.range) };
  if (s instanceof IndexSet)
    return {
      k: 'idx',
      c: collJ(s.coll),
      x: s.index,
      t: s.terms.map((v) => encodeValue(toRuntime(v))),
      f: s.range.from?.map((v) => encodeValue(toRuntime(v))) ?? null,
      to: s.range.to?.map((v) => encodeValue(toRuntime(v))) ?? null,
      ts: s.readTs?.toString() ?? null,
      r: s.reversed,
    };
  if (s instanceof CollectionDefsSet) return { k: 'defs', db: s.db.toString(), ...idRangeJ(s.range) };
  if (s instanceof NativeDocsSet) return { k: 'nat', m: s.spec.module, db: s.db.toString(), ...idRangeJ(s.range) };
  throw new Unencodable();
}

function bool(j: J | undefined): boolean {
  if (typeof j !== 'boolean') throw new Malformed();
  return j;
}

function decodeSet(j: J | undefined): ValueSet {
  const o = objOf(j);
  const inner = () => decodeSet(o.i);
  const stored = (x: J | undefined) => (x === null || x === undefined ? undefined : arr(x).map((v) => toStored(decodeValue(v), null)));
  switch (o.k) {
    case 'arr':
      return new ArraySet(arr(o.a).map(decodeValue));
    case 'seq':
      return new SequenceSet(num(o.f), num(o.u), bool(o.r));
    case 'one':
      return new SingletonSet(decodeValue(o.v));
    case 'cat':
      return new ConcatSet(decodeSet(o.l), decodeSet(o.r));
    case 'rev':
      return new ReverseSet(inner());
    case 'dst':
      return new DistinctSet(inner());
    case 'drop':
      return new DropSet(inner(), num(o.n));
    case 'take':
      return new TakeSet(inner(), num(o.n));
    case 'pg':
      return new PagedSet(inner(), num(o.n));
    case 'where':
      return new WhereFilterSet(inner(), func(decodeValue(o.f)), time(o.vt), null);
    case 'map':
      return new ProjectedSet(inner(), func(decodeValue(o.f)), time(o.vt), null);
    case 'fmap':
      return new FlatMapSet(inner(), o.c === null ? null : arr(o.c).map(decodeValue), func(decodeValue(o.f)), time(o.vt), bool(o.r), null);
    case 'ord':
      return new OrderedSet(
        inner(),
        arr(o.o).map((e) => ({ accessor: func(decodeValue(arr(e)[0])), ascending: bool(arr(e)[1]) })),
        null,
      );
    case 'coll':
      return new CollectionSet(collOf(o.c), o.ts === null ? undefined : big(o.ts), bool(o.r), idRangeOf(o));
    case 'idx':
      return new IndexSet(collOf(o.c), str(o.x), stored(o.t) ?? [], { from: stored(o.f), to: stored(o.to) }, o.ts === null ? undefined : big(o.ts), bool(o.r));
    case 'defs':
      return new CollectionDefsSet(big(o.db), idRangeOf(o));
    case 'nat':
      return new NativeDocsSet(specOf(o.m), big(o.db), idRangeOf(o));
  }
  throw new Malformed();
}

function idRangeJ(r: IdRange): { f: J; to: J } {
  return { f: r.from?.toString() ?? null, to: r.to?.toString() ?? null };
}

function idRangeOf(o: { [k: string]: J }): IdRange {
  const bound = (j: J | undefined) => (j === null || j === undefined ? undefined : big(j));
  return { from: bound(o.f), to: bound(o.to) };
}

// ---- tokens ----

const VERSION = 1;

export const storeCursors: CursorCodec = {
  encode(tok: PageTok, pageSize: number): string {
    let body: J;
    try {
      body = { v: VERSION, s: encodeSet(tok.set), c: tok.cont === null ? null : tok.cont.map(encodeValue), n: pageSize };
    } catch (e) {
      if (!(e instanceof Unencodable)) throw e;
      // A set this encoding cannot hold: the cursor is given, and refused when used.
      body = { v: VERSION, unencodable: true };
    }
    return Buffer.from(JSON.stringify(body)).toString('base64url');
  },
  decode(token: string) {
    try {
      const o = objOf(JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as J);
      if (o.v !== VERSION || o.unencodable === true) return undefined;
      const pageSize = num(o.n);
      if (pageSize < 1) return undefined;
      return { tok: { set: decodeSet(o.s), cont: o.c === null ? null : arr(o.c).map(decodeValue) }, pageSize };
    } catch (e) {
      if (e instanceof Malformed || e instanceof SyntaxError || e instanceof TypeError || e instanceof RangeError) return undefined;
      throw e;
    }
  },
};

/** A set as the JSON a cursor holds it in (event source tokens hold their set so), or undefined
 *  when this encoding cannot hold it. */
export function setToJson(set: ValueSet): J | undefined {
  try {
    return encodeSet(set);
  } catch (e) {
    if (e instanceof Unencodable) return undefined;
    throw e;
  }
}

/** The set `setToJson` gave, or undefined when `j` is not one. */
export function setFromJson(j: unknown): ValueSet | undefined {
  try {
    return decodeSet(j as J);
  } catch (e) {
    if (e instanceof Malformed || e instanceof SyntaxError || e instanceof TypeError || e instanceof RangeError) return undefined;
    throw e;
  }
}
