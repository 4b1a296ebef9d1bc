// Resolvers: each GraphQL field becomes a small FQL expression run through the evaluator in the
// request's one transaction (ABAC applies to every read and write). Relations are read through
// their indexes: a page of related documents is one Map(Paginate(Match(index, ref)), Get) per parent.

import {
  GraphQLEnumType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  getNamedType,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import type { EvalContext } from '../fql/context';
import { Env } from '../fql/env';
import { evalExpr } from '../fql/evaluator';
import { usesRoles } from '../model/permissions';
import { NATIVE_IDS } from '../model/catalog';
import type { SchemaIds } from './storage';
import { Page, Ref, type Obj, type Value } from '../values/types';
import type { Expr } from '../wire/expr';
import * as F from './fql';
import { isLinkField, type GField, type GModel, type GOp, type GRelation, type GType } from './model';
import { FieldMeter } from './meter';
import { DocSrc, EmbSrc, GqlError, decodeCursor, inputToFql, pageOut, scalarOut, scalarToFql, type PageOut } from './values';

export const DEFAULT_PAGE_SIZE = 50;

/** Heads of the expressions resolvers run that may write. */
const WRITES = new Set(['create', 'update', 'replace', 'delete', 'call']);
export const MAX_PAGE_SIZE = 100_000;

/** The context value of one GraphQL request: its transaction, and FQL evaluation in order. */
export class GqlContext {
  private chain: Promise<unknown> = Promise.resolve();

  /** Reads are checked document by document (tokens, keys with user roles, client keys). */
  readonly restricted: boolean;

  /** Charges and slices every field resolved (meter.ts). */
  readonly meter: FieldMeter;

  constructor(
    readonly ctx: EvalContext,
    readonly model: GModel,
    /** What the imported schema's names are bound to (absent for a schema stored before bindings). */
    private readonly ids?: SchemaIds,
  ) {
    this.restricted = usesRoles(ctx.scope) || ctx.scope.role === 'client';
    this.meter = new FieldMeter(ctx.budget);
  }

  /**
   * Resolves once no evaluation is queued or running, nor any resolver that could queue one: every
   * await of a resolver is an evaluation's, so once the chain is settled and the microtasks have run
   * (a resolver's next evaluation is queued there), nothing is left.
   */
  async settled(): Promise<void> {
    for (let last; last !== this.chain; ) {
      await (last = this.chain);
      await new Promise(setImmediate);
    }
  }

  // The schema documents the API uses, by the name the import gave them: a ref carrying the
  // internal id goes to the same document after any rename (resolution prefers the address).

  collection(name: string): Ref {
    return this.bound('collections', name);
  }

  index(name: string): Ref {
    return this.bound('indexes', name);
  }

  fn(name: string): Ref {
    return this.bound('functions', name);
  }

  /** A document of the collection the import named `collection`. */
  doc(collection: string, id: string): Ref {
    const coll = this.collection(collection);
    if (!coll.addr || !DOC_ID.test(id) || BigInt(id) > I64_MAX) return new Ref(id, coll);
    return new Ref(id, coll, undefined, { db: coll.addr.db, coll: Number(coll.addr.id), id: BigInt(id) });
  }

  private bound(native: 'collections' | 'indexes' | 'functions', name: string): Ref {
    const id = this.ids?.[native][name];
    const addr = id === undefined ? undefined : { db: this.ctx.scope.db, coll: NATIVE_IDS[native], id: BigInt(id) };
    return new Ref(name, new Ref(native), undefined, addr);
  }

  /**
   * Evaluates `e` in the request's transaction. graphql-js resolves sibling fields concurrently;
   * evaluations are queued so that one runs at a time (a function call swaps the context's role
   * while its body runs).
   */
  eval(e: Expr): Promise<Value> {
    // Anything that may write makes documents read so far stale.
    if (e.t === 'call' && WRITES.has(e.fn)) this.docs.clear();
    const run = this.chain.then(() => evalExpr(e, Env.empty, this.ctx));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Documents read by ref in this request (many books share an author), until the next write. */
  private readonly docs = new Map<string, Promise<Value>>();

  /** The document behind `ref`, or null when it does not exist (dangling refs resolve to null). */
  async fetch(ref: Ref, where: string): Promise<DocSrc | null> {
    const key = ref.toString();
    let doc = this.docs.get(key);
    if (!doc) {
      doc = this.eval(F.call('if', F.exists(F.lit(ref)), { then: F.get(F.lit(ref)), else: F.lit(null) }));
      this.docs.set(key, doc);
    }
    return DocSrc.of(await doc, where);
  }

  async fetchAll(refs: Value[], where: string): Promise<(DocSrc | null)[]> {
    if (refs.length === 0) return [];
    const lambda = F.lambda('r', F.call('if', F.exists(F.v('r')), { then: F.get(F.v('r')), else: F.lit(null) }));
    const docs = (await this.eval(F.mapExpr(lambda, F.lit(refs)))) as Value[];
    return docs.map((d) => DocSrc.of(d, where));
  }

  /** One page of documents from a set of refs (an index Match). */
  async page(set: Expr, args: Record<string, unknown>, where: string, values = false): Promise<PageOut> {
    const size = pageSize(args._size);
    const cursor = decodeCursor(args._cursor as string | null | undefined);
    const body = values
      ? F.call('if', F.exists(F.v('r')), { then: F.get(F.v('r')), else: F.lit(null) })
      : F.get(F.v('r'));
    const page = await this.eval(F.mapExpr(F.lambda('r', body), F.paginate(set, size, cursor)));
    if (!(page instanceof Page)) throw new GqlError(`Expected a page for ${where}.`);
    return pageOut(page, page.data.map((d) => DocSrc.of(d, where)));
  }

  /** The first document of a set, or null. */
  async first(set: Expr, where: string): Promise<DocSrc | null> {
    const page = await this.eval(F.mapExpr(F.lambda('r', F.get(F.v('r'))), F.paginate(set, 1)));
    if (!(page instanceof Page)) throw new GqlError(`Expected a page for ${where}.`);
    return page.data.length ? DocSrc.of(page.data[0], where) : null;
  }

  /** Refs of the first entries of a set (no documents read). */
  async refs(set: Expr, size: number): Promise<Value[]> {
    const page = await this.eval(F.paginate(set, size));
    return page instanceof Page ? page.data : [];
  }
}

function pageSize(v: unknown): number {
  if (v === undefined || v === null) return DEFAULT_PAGE_SIZE;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_SIZE)
    throw new GqlError(`The page size '_size' must be between 1 and ${MAX_PAGE_SIZE}: ${String(v)}.`, 'invalid argument');
  return n;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Resolver = GraphQLFieldResolver<any, GqlContext, Record<string, unknown>>;

/** Attaches a resolver to every generated and declared field of a schema built by served.ts. */
export function attachResolvers(schema: GraphQLSchema, model: GModel): void {
  for (const t of model.types.values()) {
    const fields = (schema.getType(t.name) as GraphQLObjectType).getFields();
    if (!t.embedded) {
      fields._id.resolve = (s: DocSrc) => s.ref.id;
      fields._ts.resolve = (s: DocSrc) => s.ts;
    }
    for (const f of t.fields) fields[f.name].resolve = fieldResolver(t, f, fields[f.name]);
  }
  const query = schema.getQueryType()!.getFields();
  for (const op of model.queries) query[op.name].resolve = opResolver(op, query[op.name], model);
  const mutation = schema.getMutationType()?.getFields();
  if (mutation) for (const op of model.mutations) mutation[op.name].resolve = opResolver(op, mutation[op.name], model);
}

// --- fields of object types ------------------------------------------------------------------

function fieldResolver(t: GType, f: GField, field: GraphQLField<unknown, unknown>): Resolver {
  const where = `${t.name}.${f.name}`;
  const type = field.type;
  const stored = (s: DocSrc | EmbSrc) => s.data.get(f.name) ?? null;
  switch (f.kind) {
    case 'scalar':
    case 'enum': {
      const scalar = f.kind === 'enum' ? 'enum' : f.named;
      return (s: DocSrc | EmbSrc) => outList(stored(s), type, where, (v) => scalarOut(v, scalar, where));
    }
    case 'embedded':
      return (s: DocSrc | EmbSrc) =>
        outList(stored(s), type, where, (v) => {
          if (v === null) return null;
          if (!(v instanceof Map)) throw new GqlError(`The value at '${where}' does not match the schema: an object expected.`);
          return new EmbSrc(v);
        });
    case 'ref':
      return async (s: DocSrc | EmbSrc, _a, rc: GqlContext) => {
        const v = stored(s);
        if (v === null) return null;
        if (!(v instanceof Ref)) throw new GqlError(`The value at '${where}' does not match the schema: a reference expected.`);
        return rc.fetch(v, where);
      };
    case 'refs':
      return async (s: DocSrc | EmbSrc, _a, rc: GqlContext) => {
        const v = stored(s);
        if (v === null) return null;
        if (!Array.isArray(v) || v.some((x) => x !== null && !(x instanceof Ref)))
          throw new GqlError(`The value at '${where}' does not match the schema: an array of references expected.`);
        return rc.fetchAll(v, where);
      };
    case 'o2oInverse': {
      const r = f.relation!;
      return (s: DocSrc, _a, rc: GqlContext) => rc.first(F.match(F.lit(rc.index(r.index!)), F.lit(s.ref)), where);
    }
    case 'o2mList': {
      const r = f.relation!;
      return (s: DocSrc, args, rc: GqlContext) => rc.page(F.match(F.lit(rc.index(r.index!)), F.lit(s.ref)), args, where);
    }
    case 'm2m': {
      const r = f.relation!;
      const index = isHolderSide(r, t, f) ? r.link!.byHolder : r.link!.byOther;
      return (s: DocSrc, args, rc: GqlContext) => rc.page(F.match(F.lit(rc.index(index)), F.lit(s.ref)), args, where, true);
    }
  }
}

function isHolderSide(r: GRelation, t: GType, f: GField): boolean {
  return r.holder.type === t.name && r.holder.field === f.name;
}

/** Applies `one` to a value or to each item of a list value, as the GraphQL type says. */
function outList(v: Value, type: GraphQLOutputType, where: string, one: (v: Value) => unknown): unknown {
  const inner = type instanceof GraphQLNonNull ? type.ofType : type;
  if (v === null) return null;
  if (inner instanceof GraphQLList) {
    if (!Array.isArray(v)) throw new GqlError(`The value at '${where}' does not match the schema: an array expected.`);
    return v.map((x) => outList(x, inner.ofType, where, one));
  }
  return one(v);
}

// --- operations ------------------------------------------------------------------------------

function opResolver(op: GOp, field: GraphQLField<unknown, unknown>, model: GModel): Resolver {
  const where = `${op.location}.${op.name}`;
  const t = op.target ? model.types.get(op.target) : undefined;
  switch (op.kind) {
    case 'findByID':
      return (_s, args, rc: GqlContext) => findById(rc, t!, args.id as string, where);
    case 'index': {
      const argDefs = op.node!.arguments ?? [];
      const argTypes = new Map(field.args.map((a) => [a.name, a.type]));
      const terms = (args: Record<string, unknown>, rc: GqlContext): Expr | undefined => {
        if (argDefs.length === 0) return undefined;
        const values = argDefs.map((a) => termValue(rc, args[a.name.value], argTypes.get(a.name.value)!, t!, a.name.value, model));
        return F.lit(values.length === 1 ? values[0] : values);
      };
      const index = (rc: GqlContext) => F.lit(rc.index(op.index!));
      if (op.list) return (_s, args, rc: GqlContext) => rc.page(F.match(index(rc), terms(args, rc)), args, where);
      return (_s, args, rc: GqlContext) => rc.first(F.match(index(rc), terms(args, rc)), where);
    }
    case 'resolver':
      return resolverField(op, field, model, where);
    case 'create':
      return async (_s, args, rc: GqlContext) => DocSrc.of(await createDoc(rc, t!, args.data as Input, new Map()), where);
    case 'update':
    case 'partialUpdate':
      return (_s, args, rc: GqlContext) => updateDoc(rc, t!, args.id as string, args.data as Input, op.kind === 'partialUpdate', where);
    case 'delete':
      return (_s, args, rc: GqlContext) => deleteDoc(rc, t!, args.id as string, where);
  }
}

/** An index term: the argument as FQL; an ID argument named after a ref field matches the ref. */
function termValue(rc: GqlContext, v: unknown, type: GraphQLInputType, t: GType, name: string, model: GModel): Value {
  const f = t.byName.get(name);
  if (f && f.kind === 'ref' && typeof v === 'string' && getNamedType(type).name === 'ID') {
    const target = model.types.get(f.named)!;
    return rc.doc(target.collection!, v);
  }
  return inputToFql(v, type);
}

const DOC_ID = /^\d+$/;
const I64_MAX = (1n << 63n) - 1n;

function refFor(rc: GqlContext, t: GType, id: string): Ref | undefined {
  return DOC_ID.test(id) ? rc.doc(t.collection!, id) : undefined;
}

function findById(rc: GqlContext, t: GType, id: string, where: string): Promise<DocSrc | null> | null {
  const ref = refFor(rc, t, id);
  return ref ? rc.fetch(ref, where) : null;
}

/** A field backed by a user-defined function: the arguments in declaration order, as one array. */
function resolverField(op: GOp, field: GraphQLField<unknown, unknown>, model: GModel, where: string): Resolver {
  const fn = (rc: GqlContext) => F.lit(rc.fn(op.fn!));
  const userArgs = field.args.filter((a) => a.name !== '_size' && a.name !== '_cursor');
  return async (_s, args, rc: GqlContext) => {
    const values: Value[] = userArgs.map((a) => inputToFql(args[a.name], a.type));
    if (op.paginated) {
      const cursor = decodeCursor(args._cursor as string | null | undefined);
      values.push(BigInt(pageSize(args._size)), cursor?.after ?? null, cursor?.before ?? null);
    }
    const result = await rc.eval(F.call('call', fn(rc), { arguments: F.lit(values) }));
    if (op.paginated) {
      if (!(result instanceof Page)) throw new GqlError(`The function '${op.fn}' must return a page for '${where}'.`);
      const pageType = getNamedType(field.type) as GraphQLObjectType;
      const itemType = pageType.getFields().data.type;
      const data = (await output(rc, result.data, itemType, where, model)) as unknown[];
      return pageOut(result, data);
    }
    return output(rc, result, field.type, where, model);
  };
}

/** A function's result shaped by the field's declared type. */
async function output(rc: GqlContext, v: Value, type: GraphQLOutputType, where: string, model: GModel): Promise<unknown> {
  if (type instanceof GraphQLNonNull) return output(rc, v, type.ofType, where, model);
  if (v === null || v === undefined) return null;
  if (type instanceof GraphQLList) {
    const items = v instanceof Page ? v.data : v;
    if (!Array.isArray(items)) throw new GqlError(`The value at '${where}' does not match the schema: an array expected.`);
    const out: unknown[] = [];
    for (const x of items) out.push(await output(rc, x, type.ofType, where, model));
    return out;
  }
  if (type instanceof GraphQLObjectType) {
    const t = model.types.get(type.name);
    if (t && !t.embedded) {
      if (v instanceof Ref) return rc.fetch(v, where);
      const doc = DocSrc.of(v, where);
      // A function may run with a role of its own; what the caller is shown, the caller must be
      // able to read (graphql.md A.2.5). Keys with built-in roles other than client read anything.
      if (doc && rc.restricted) return rc.fetch(doc.ref, where);
      return doc;
    }
    if (!(v instanceof Map)) throw new GqlError(`The value at '${where}' does not match the schema: an object expected.`);
    return new EmbSrc(v);
  }
  if (type instanceof GraphQLEnumType) return scalarOut(v, 'enum', where);
  return scalarOut(v, (type as GraphQLScalarType).name, where);
}

// --- writes ------------------------------------------------------------------------------------

type Input = Record<string, unknown>;

/** Work that needs the written document's ref (relation sides stored on other documents). */
type After = (self: Ref) => Promise<void>;

interface Built {
  data: Obj;
  after: After[];
}

function relationOps(f: GField, t: GType, input: unknown): { create?: unknown; connect?: unknown; disconnect?: unknown } | undefined {
  if (input === null || input === undefined) return undefined;
  const ops = input as { create?: unknown; connect?: unknown; disconnect?: unknown };
  const to1 = f.kind === 'ref' || f.kind === 'o2oInverse';
  if (to1) {
    const given = ['create', 'connect', 'disconnect'].filter((k) => ops[k as keyof typeof ops] !== undefined && ops[k as keyof typeof ops] !== null);
    if (given.length > 1)
      throw new GqlError(`Only one of 'create', 'connect' or 'disconnect' can be given for the field '${t.name}.${f.name}'.`, 'invalid argument');
  }
  return ops;
}

function targetOf(rc: GqlContext, f: GField): GType {
  return rc.model.types.get(f.named)!;
}

async function mustExist(rc: GqlContext, t: GType, id: unknown, where: string): Promise<Ref> {
  const ref = typeof id === 'string' ? refFor(rc, t, id) : undefined;
  if (!ref || !(await rc.eval(F.exists(F.lit(ref)))))
    throw new GqlError(`Cannot connect '${where}': no document of type '${t.name}' has the ID '${String(id)}'.`, 'instance not found');
  return ref;
}

/**
 * The `data` of a document of type `t` from its input. `mode`: create (given fields), update (every
 * declared field: absent ones are removed), partial (given fields only; null on a required field is
 * refused). Relation inputs become stored refs now or work after the write (`after`).
 */
async function buildData(rc: GqlContext, t: GType, input: Input, mode: 'create' | 'update' | 'partial', old?: Obj): Promise<Built> {
  const data: Obj = new Map();
  const after: After[] = [];
  for (const f of t.fields) {
    const has = Object.prototype.hasOwnProperty.call(input, f.name);
    const value = has ? input[f.name] : undefined;
    const where = `${t.name}.${f.name}`;
    if (!t.embedded && isLinkField(f)) {
      const ops = relationOps(f, t, value);
      if (ops) await relationInput(rc, t, f, ops, data, after, old, where);
      continue;
    }
    if (mode !== 'update' && !has) continue;
    if (mode === 'partial' && value === null && f.nonNull && !t.embedded)
      throw new GqlError(`The field '${where}' is required: it cannot be set to null.`, 'invalid argument');
    data.set(f.name, await fieldInput(rc, f, value ?? null, mode === 'partial'));
  }
  return { data, after };
}

/** A non-relation field's input value as stored. */
async function fieldInput(rc: GqlContext, f: GField, value: unknown, partial: boolean): Promise<Value> {
  if (value === null || value === undefined) return null;
  const one = async (x: unknown): Promise<Value> => {
    if (x === null || x === undefined) return null;
    switch (f.kind) {
      case 'embedded': {
        const e = targetOf(rc, f);
        // Arrays are given whole: the objects in them are written as given, not merged.
        const built = await buildData(rc, e, x as Input, partial && !f.list ? 'partial' : 'create');
        return built.data;
      }
      case 'ref': {
        const target = targetOf(rc, f);
        return refFor(rc, target, String(x)) ?? null;
      }
      case 'refs': {
        const target = targetOf(rc, f);
        return refFor(rc, target, String(x)) ?? null;
      }
      case 'enum':
        return x as string;
      default:
        return scalarToFql(x, f.named);
    }
  };
  if (f.list) {
    const list = Array.isArray(value) ? value : [value];
    const out: Value[] = [];
    for (const x of list) out.push(Array.isArray(x) ? await Promise.all(x.map(one)) : await one(x));
    return out;
  }
  return one(value);
}

async function relationInput(
  rc: GqlContext,
  t: GType,
  f: GField,
  ops: { create?: unknown; connect?: unknown; disconnect?: unknown },
  data: Obj,
  after: After[],
  old: Obj | undefined,
  where: string,
): Promise<void> {
  const B = targetOf(rc, f);
  const list = <T>(x: unknown): T[] => (x === null || x === undefined ? [] : Array.isArray(x) ? x : [x]) as T[];
  switch (f.kind) {
    case 'ref': {
      if (ops.connect !== undefined && ops.connect !== null) data.set(f.name, await mustExist(rc, B, ops.connect, where));
      else if (ops.create !== undefined && ops.create !== null) data.set(f.name, await createRef(rc, B, ops.create as Input, new Map()));
      else if (ops.disconnect === true) data.set(f.name, null);
      return;
    }
    case 'refs': {
      const current = old?.get(f.name);
      let refs: Value[] = Array.isArray(current) ? [...current] : [];
      for (const input of list<Input>(ops.create)) refs.push(await createRef(rc, B, input, new Map()));
      for (const id of list<string>(ops.connect)) {
        const ref = await mustExist(rc, B, id, where);
        if (!refs.some((r) => r instanceof Ref && r.equals(ref))) refs.push(ref);
      }
      const drop = new Set(list<string>(ops.disconnect));
      refs = refs.filter((r) => !(r instanceof Ref && drop.has(r.id)));
      data.set(f.name, refs);
      return;
    }
    case 'o2oInverse': {
      const r = f.relation!;
      const holderField = r.holder.field;
      const index = F.lit(rc.index(r.index!));
      after.push(async (self) => {
        const release = async () => {
          for (const ref of await rc.refs(F.match(index, F.lit(self)), 10))
            await rc.eval(F.update(F.lit(ref), F.lit(new Map([['data', new Map([[holderField, null]])]]))));
        };
        if (ops.connect !== undefined && ops.connect !== null) {
          const ref = await mustExist(rc, B, ops.connect, where);
          const current = await rc.refs(F.match(index, F.lit(self)), 1);
          if (current.length && current[0] instanceof Ref && current[0].equals(ref)) return;
          await release();
          await rc.eval(F.update(F.lit(ref), F.lit(new Map([['data', new Map<string, Value>([[holderField, self]])]]))));
        } else if (ops.create !== undefined && ops.create !== null) {
          await release();
          await createDoc(rc, B, ops.create as Input, new Map([[holderField, self]]));
        } else if (ops.disconnect === true) await release();
      });
      return;
    }
    case 'o2mList': {
      const r = f.relation!;
      const holderField = r.holder.field;
      after.push(async (self) => {
        for (const input of list<Input>(ops.create)) await createDoc(rc, B, input, new Map([[holderField, self]]));
        for (const id of list<string>(ops.connect)) {
          const ref = await mustExist(rc, B, id, where);
          await rc.eval(F.update(F.lit(ref), F.lit(new Map([['data', new Map<string, Value>([[holderField, self]])]]))));
        }
        for (const id of list<string>(ops.disconnect)) {
          const ref = refFor(rc, B, String(id));
          const doc = ref && (await rc.fetch(ref, where));
          const current = doc?.data.get(holderField);
          if (doc && current instanceof Ref && current.equals(self))
            await rc.eval(F.update(F.lit(ref!), F.lit(new Map([['data', new Map([[holderField, null]])]]))));
        }
      });
      return;
    }
    case 'm2m': {
      const r = f.relation!;
      const holder = isHolderSide(r, t, f);
      after.push(async (self) => {
        for (const input of list<Input>(ops.create)) await link(rc, r, holder, self, await createRef(rc, B, input, new Map()));
        for (const id of list<string>(ops.connect)) await link(rc, r, holder, self, await mustExist(rc, B, id, where));
        for (const id of list<string>(ops.disconnect)) {
          const ref = refFor(rc, B, String(id));
          if (ref) await unlink(rc, r, holder, self, ref);
        }
      });
      return;
    }
  }
}

function linkTerms(holder: boolean, self: Ref, peer: Ref): Expr {
  return F.lit(holder ? [self, peer] : [peer, self]);
}

async function link(rc: GqlContext, r: GRelation, holder: boolean, self: Ref, peer: Ref): Promise<void> {
  const l = r.link!;
  const existing = await rc.refs(F.match(F.lit(rc.index(l.byBoth)), linkTerms(holder, self, peer)), 1);
  if (existing.length) return;
  const [h, o] = holder ? [self, peer] : [peer, self];
  const data = new Map<string, Value>([[l.holderField, h], [l.otherField, o]]);
  await rc.eval(F.create(F.lit(rc.collection(l.collection)), F.lit(new Map([['data', data]]))));
}

async function unlink(rc: GqlContext, r: GRelation, holder: boolean, self: Ref, peer: Ref): Promise<void> {
  const refs = await rc.refs(F.match(F.lit(rc.index(r.link!.byBoth)), linkTerms(holder, self, peer)), 1000);
  for (const ref of refs) await rc.eval(F.del(F.lit(ref)));
}

/**
 * Creates a document of type `t` (and everything its relation inputs ask for); returns it as Create
 * returned it (the relation work afterwards changes other documents only).
 */
async function createDoc(rc: GqlContext, t: GType, input: Input, extra: Obj): Promise<Obj> {
  const built = await buildData(rc, t, input ?? {}, 'create');
  for (const [k, x] of extra) built.data.set(k, x);
  const doc = (await rc.eval(F.create(F.lit(rc.collection(t.collection!)), F.lit(new Map([['data', built.data]]))))) as Obj;
  const ref = doc.get('ref') as Ref;
  for (const step of built.after) await step(ref);
  return doc;
}

async function createRef(rc: GqlContext, t: GType, input: Input, extra: Obj): Promise<Ref> {
  return (await createDoc(rc, t, input, extra)).get('ref') as Ref;
}

/**
 * update<T> (declared fields replaced: absent ones removed) and partialUpdate<T> (given fields only;
 * embedded objects merged, arrays replaced). Null when the document does not exist.
 */
async function updateDoc(rc: GqlContext, t: GType, id: string, input: Input, partial: boolean, where: string): Promise<DocSrc | null> {
  const ref = refFor(rc, t, id);
  if (!ref) return null;
  const doc = await rc.fetch(ref, where);
  if (!doc) return null;
  const built = await buildData(rc, t, input ?? {}, partial ? 'partial' : 'update', doc.data);
  const patch = partial ? built.data : replacement(doc.data, built.data);
  const updated = await rc.eval(F.update(F.lit(ref), F.lit(new Map([['data', patch]]))));
  for (const step of built.after) await step(ref);
  return DocSrc.of(updated, where);
}

/** An Update patch that makes the declared fields exactly `next` (nested objects included). */
function replacement(old: Obj, next: Obj): Obj {
  const out: Obj = new Map();
  for (const [k, v] of next) {
    const prev = old.get(k);
    out.set(k, prev instanceof Map && v instanceof Map ? replaceObject(prev, v) : v);
  }
  return out;
}

function replaceObject(old: Obj, next: Obj): Obj {
  const out = replacement(old, next);
  for (const k of old.keys()) if (!next.has(k)) out.set(k, null);
  return out;
}

/** delete<T>: the document as it was, or null; its many-to-many links go with it. */
async function deleteDoc(rc: GqlContext, t: GType, id: string, where: string): Promise<DocSrc | null> {
  const ref = refFor(rc, t, id);
  if (!ref) return null;
  const doc = await rc.fetch(ref, where);
  if (!doc) return null;
  for (const f of t.fields) {
    if (f.kind !== 'm2m') continue;
    const r = f.relation!;
    const holder = isHolderSide(r, t, f);
    const index = holder ? r.link!.byHolder : r.link!.byOther;
    for (const peer of await rc.refs(F.match(F.lit(rc.index(index)), F.lit(ref)), MAX_PAGE_SIZE))
      if (peer instanceof Ref) await unlink(rc, r, holder, ref, peer);
  }
  await rc.eval(F.del(F.lit(ref)));
  return doc;
}

