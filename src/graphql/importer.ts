// POST /import (graphql.md A.1.2, A.4): check the SDL, then create what it needs through FQL —
// collections first, then (in a later transaction, as an index cannot be created with its source
// collection) indexes, functions and the stored schema — annotating each with `data.gql`.
// Modes: merge (default: add, never remove), replace (the new schema's metadata only), override
// (delete everything carrying GraphQL metadata first; no 60-second wait, DECISIONS #5).

import type { QueryService } from '../fql/api';
import type { EvalContext } from '../fql/context';
import { Env } from '../fql/env';
import { evalExpr } from '../fql/evaluator';
import { secretFromHeader, type Scope } from '../model/auth';
import { failpoint } from '../failpoints';
import { usesRoles } from '../model/permissions';
import { schemaOf } from '../model/resolve';
import { ProtocolError, QueryError } from '../values/errors';
import { Page, Ref, Time, type Obj, type Value } from '../values/types';
import type { Expr } from '../wire/expr';
import { buildApi } from './api';
import { unwrapCall } from './errors';
import * as F from './fql';
import { encodeType, type FunctionPlan, type GModel, type GType, type IndexPlan } from './model';
import { SchemaImportError, checkDocument, mergeDocuments, parseSdl, printDocument } from './sdl';
import { readSchema, writeSchema, type SchemaIds } from './storage';
import { parse, type DocumentNode } from 'graphql';
import type { LoggedDatabase } from '../logs/types';

export type ImportMode = 'merge' | 'replace' | 'override';

export interface ImportAnswer {
  status: number;
  /** text/plain */
  body: string;
  /** The database the secret acts in, once authenticated (for the query log). */
  database?: LoggedDatabase;
}

class ImportFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Another process of a tier stored a schema for the database while an import ran: it starts over. */
class ImportOvertaken extends ImportFailure {
  constructor() {
    super(409, 'Other imports into this database kept overtaking this one: import it again.');
  }
}

export const SUCCESS_FIRST_LINE = 'Schema imported successfully.';

export function successText(secret: string): string {
  const basic = Buffer.from(`${secret}:`, 'utf8').toString('base64');
  return `${SUCCESS_FIRST_LINE}\nUse the following HTTP header to connect to the Fauna GraphQL API:\n\n{ "Authorization": "Basic ${basic}" }\n`;
}

export function stubMessage(fn: string): string {
  return `Function ${fn} was not implemented yet. Please access your database and provide an implementation for the ${fn} function.`;
}

function mayImport(scope: Scope): boolean {
  return !usesRoles(scope) && (scope.role === 'admin' || scope.role === 'server');
}

/** Imports run one at a time in this process: each takes several transactions, which must not interleave. */
let importQueue: Promise<unknown> = Promise.resolve();
/** Imports overtaken this often in a row give up (a tier importing into one database without pause). */
const MAX_IMPORT_RESTARTS = 20;

export function importSchema(
  service: QueryService,
  authorization: string | undefined,
  text: string,
  mode: ImportMode,
): Promise<ImportAnswer> {
  const turn = importQueue.then(() => importNow(service, authorization, text, mode));
  importQueue = turn.catch(() => undefined);
  return turn;
}

async function importNow(
  service: QueryService,
  authorization: string | undefined,
  text: string,
  mode: ImportMode,
): Promise<ImportAnswer> {
  if (!authorization || authorization.trim() === '') return { status: 401, body: 'Missing authorization header.' };
  const secret = secretFromHeader(authorization);
  if (!secret) return { status: 401, body: 'Invalid authorization header.' };
  let database: LoggedDatabase | undefined;
  const answer = (a: ImportAnswer): ImportAnswer => (database ? { ...a, database } : a);
  try {
    const run = (fn: (ctx: EvalContext) => Promise<unknown>) =>
      service.transact(authorization, async (ctx) => {
        database = { id: ctx.scope.db, path: ctx.scope.path };
        if (!mayImport(ctx.scope)) throw new ImportFailure(403, 'Insufficient privileges to import a schema: an admin or server secret is needed.');
        return fn(ctx);
      });

    failpoint('graphql.import');
    // The text is parsed once the secret is known to be one that may import (a client key's schema
    // is not worth parsing), once for all its restarts.
    let doc: DocumentNode | undefined;
    const parsed = () => (doc ??= checkDocument(parseSdl(text)));
    for (let restarts = 0; ; restarts++) {
      try {
        await importSteps(run, parsed, mode);
        break;
      } catch (e) {
        if (!(e instanceof ImportOvertaken) || restarts >= MAX_IMPORT_RESTARTS) throw e;
      }
    }
    return answer({ status: 200, body: successText(secret) });
  } catch (e) {
    if (e instanceof SchemaImportError) return answer({ status: 400, body: e.message });
    if (e instanceof ImportFailure) return answer({ status: e.status, body: e.message });
    if (e instanceof ProtocolError) {
      if (e.status === 401) return answer({ status: 401, body: 'Invalid database secret.' });
      return answer({ status: e.status, body: e.description });
    }
    if (e instanceof QueryError) {
      const inner = unwrapCall(e);
      // A validation failure says which value (e.g. a name FQL refuses) in its failures.
      const details = (inner.failures ?? []).map((f) => ` ${f.description}`).join('');
      return answer({ status: inner.code === 'permission denied' ? 403 : 400, body: `Cannot import the schema: ${inner.description} (${inner.code})${details}` });
    }
    throw e;
  }
}

/**
 * The import's steps, each its own transaction. The schema stored when it began must still be the
 * one stored when it ends: else another process of a tier imported meanwhile (this process runs one
 * at a time), and this one starts over (ImportOvertaken) so that neither is lost.
 */
async function importSteps(
  run: (fn: (ctx: EvalContext) => Promise<unknown>) => Promise<unknown>,
  parsed: () => DocumentNode,
  mode: ImportMode,
): Promise<void> {
  // 1. Check the schema and the database (nothing is written yet).
  let effective!: DocumentNode;
  let model!: GModel;
  let began: string | undefined;
  await run(async (ctx) => {
    const next = parsed();
    const stored = await readSchema(ctx.txn, ctx.scope.db);
    began = stored?.version;
    const inv = await inventory(ctx);
    // A schema none of whose resources carries data.gql any more was forgotten (graphql.md A.4.1).
    const remembered = [...inv.collections.values(), ...inv.indexes.values(), ...inv.functions.values()].some(hasGql);
    effective = mode === 'merge' && stored && remembered ? mergeDocuments(checkDocument(parse(stored.sdl())), next) : next;
    model = buildApi(effective).model;
    for (const p of model.indexes) checkIndex(p, inv.indexes.get(p.name), mode);
  });
  const sdl = printDocument(effective);

  // 2. override: drop what the previous schema made.
  if (mode === 'override')
    await run(async (ctx) => {
      const inv = await inventory(ctx);
      for (const [name, doc] of inv.indexes) if (hasGql(doc)) await ev(ctx, F.del(F.lit(F.indexRef(name))));
      for (const [name, doc] of inv.functions) if (hasGql(doc)) await ev(ctx, F.del(F.lit(F.functionRef(name))));
      for (const [name, doc] of inv.collections) if (hasGql(doc)) await ev(ctx, F.del(F.lit(F.collectionRef(name))));
    });

  // 3. Collections.
  await run(async (ctx) => {
    const inv = await inventory(ctx);
    const ts = Time.fromMicros(ctx.snapshotTs);
    for (const c of model.collections) {
      const t = c.type ? model.types.get(c.type) : undefined;
      const gql = F.toValue({ ts, meta: t ? collectionMeta(t) : { relation: c.relation } });
      if (inv.collections.has(c.name)) await setGql(ctx, F.collectionRef(c.name), gql);
      else await ev(ctx, F.call('create_collection', F.lit(F.toValue({ name: c.name, data: { gql } }))));
    }
  });

  // 4. Indexes, functions, metadata, the stored schema.
  await run(async (ctx) => {
    const inv = await inventory(ctx);
    const ts = Time.fromMicros(ctx.snapshotTs);
    const indexes = new Set<string>();
    for (const p of model.indexes) {
      indexes.add(p.name);
      const existing = inv.indexes.get(p.name);
      checkIndex(p, existing, mode);
      const gql = F.toValue(p.meta ? { ts, meta: p.meta } : { ts });
      if (existing) await setGql(ctx, F.indexRef(p.name), gql);
      else await ev(ctx, F.call('create_index', F.lit(indexParams(p, gql))));
    }
    const functions = new Set<string>();
    for (const p of model.functions) {
      functions.add(p.name);
      const gql = F.toValue({ ts, meta: functionMeta(p) });
      if (inv.functions.has(p.name)) await setGql(ctx, F.functionRef(p.name), gql);
      else await ev(ctx, F.call('create_function', F.lit(F.toValue({ name: p.name, body: functionBody(p), data: { gql } }))));
    }
    if (mode === 'replace') {
      const collections = new Set(model.collections.map((c) => c.name));
      for (const [name, doc] of inv.collections) if (hasGql(doc) && !collections.has(name)) await setGql(ctx, F.collectionRef(name), null);
      for (const [name, doc] of inv.indexes) if (hasGql(doc) && !indexes.has(name)) await setGql(ctx, F.indexRef(name), null);
      for (const [name, doc] of inv.functions) if (hasGql(doc) && !functions.has(name)) await setGql(ctx, F.functionRef(name), null);
    }
    if ((await readSchema(ctx.txn, ctx.scope.db))?.version !== began) throw new ImportOvertaken();
    writeSchema(ctx.txn, ctx.scope.db, sdl, await schemaIds(ctx, model));
  });
}

function ev(ctx: EvalContext, e: Expr): Promise<Value> {
  return evalExpr(e, Env.empty, ctx);
}

interface Inventory {
  collections: Map<string, Obj>;
  indexes: Map<string, Obj>;
  functions: Map<string, Obj>;
}

async function all(ctx: EvalContext, native: 'collections' | 'indexes' | 'functions'): Promise<Map<string, Obj>> {
  const out = new Map<string, Obj>();
  let cursor: Value | undefined;
  for (;;) {
    const set = F.call(native, F.lit(null));
    const page = (await ev(ctx, F.mapExpr(F.lambda('x', F.get(F.v('x'))), F.paginate(set, 1000, cursor === undefined ? undefined : { after: cursor })))) as Page;
    for (const doc of page.data) if (doc instanceof Map) out.set(doc.get('name') as string, doc);
    if (page.after === undefined) return out;
    cursor = page.after;
  }
}

async function inventory(ctx: EvalContext): Promise<Inventory> {
  return { collections: await all(ctx, 'collections'), indexes: await all(ctx, 'indexes'), functions: await all(ctx, 'functions') };
}

function hasGql(doc: Obj): boolean {
  const data = doc.get('data');
  return data instanceof Map && data.get('gql') !== undefined && data.get('gql') !== null;
}

/** The internal ids of what the model names, so that renaming one keeps the API working. */
async function schemaIds(ctx: EvalContext, model: GModel): Promise<SchemaIds> {
  const schema = await schemaOf(ctx, ctx.scope.db);
  const ids = (native: 'collections' | 'indexes' | 'functions', names: Iterable<string>) => {
    const out: Record<string, string> = {};
    for (const name of names) {
      const entry = schema.get(native, name);
      if (entry) out[name] = String(entry.id);
    }
    return out;
  };
  return {
    collections: ids('collections', model.collections.map((c) => c.name)),
    indexes: ids('indexes', model.indexes.map((p) => p.name)),
    functions: ids('functions', model.functions.map((p) => p.name)),
  };
}

/** Replaces `data.gql` of a schema document (null removes it). */
async function setGql(ctx: EvalContext, ref: Ref, gql: Value): Promise<void> {
  const params = (v: Value) => F.lit(new Map([['data', new Map([['gql', v]])]]));
  await ev(ctx, F.update(F.lit(ref), params(null)));
  if (gql !== null) await ev(ctx, F.update(F.lit(ref), params(gql)));
}

function paths(list: Value): string[][] | undefined {
  if (list === undefined || list === null) return [];
  const items = Array.isArray(list) ? list : [list];
  const out: string[][] = [];
  for (const item of items) {
    if (!(item instanceof Map) || !Array.isArray(item.get('field')) || item.get('reverse') === true) return undefined;
    out.push((item.get('field') as Value[]).map(String));
  }
  return out;
}

/** An existing index with a generated name must have the generated definition (graphql.md A.7). */
function checkIndex(p: IndexPlan, existing: Obj | undefined, mode: ImportMode): void {
  if (!existing || p.explicit) return;
  if (mode === 'override' && hasGql(existing)) return; // deleted first
  const source = existing.get('source');
  const same =
    source instanceof Ref &&
    source.id === p.source &&
    JSON.stringify(paths(existing.get('terms') ?? null)) === JSON.stringify(p.terms) &&
    JSON.stringify(paths(existing.get('values') ?? null)) === JSON.stringify(p.values) &&
    (existing.get('unique') === true) === p.unique;
  if (!same)
    throw new ImportFailure(
      400,
      `The index '${p.name}' already exists with a different definition than the schema needs ` +
        `(source ${p.source}, terms ${JSON.stringify(p.terms)}${p.unique ? ', unique' : ''}). ` +
        `Indexes cannot be changed: delete or rename it, or name another index with @index/@unique.`,
    );
}

function indexParams(p: IndexPlan, gql: Value): Value {
  const params: Obj = new Map<string, Value>([
    ['name', p.name],
    ['source', F.collectionRef(p.source)],
  ]);
  if (p.terms.length) params.set('terms', p.terms.map((field) => new Map([['field', field]])));
  if (p.values.length) params.set('values', p.values.map((field) => new Map([['field', field]])));
  params.set('unique', p.unique);
  params.set('serialized', true);
  params.set('data', new Map([['gql', gql]]));
  return params;
}

function directivesMeta(node: { directives?: readonly { name: { value: string }; arguments?: readonly { name: { value: string }; value: { kind: string } }[] }[] }): unknown[] {
  return (node.directives ?? []).map((d) => {
    const args: Record<string, unknown> = {};
    for (const a of d.arguments ?? []) args[a.name.value] = (a.value as unknown as { value: unknown }).value;
    return { name: d.name.value, args };
  });
}

function collectionMeta(t: GType): Record<string, unknown> {
  const directives = directivesMeta(t.node).filter((d) => (d as { name: string }).name !== 'collection');
  return {
    name: t.name,
    fields: t.fields.map((f) => {
      const ds = directivesMeta(f.node);
      return { name: f.name, type: encodeType(f.type), ...(ds.length ? { directives: ds } : {}) };
    }),
    directives: [{ name: 'collection', args: { name: t.collection } }, ...directives],
  };
}

function functionMeta(p: FunctionPlan): Record<string, unknown> {
  const op = p.op;
  const node = op.node;
  const T = op.target;
  const type = node
    ? encodeType(node.type)
    : op.generated === 'list'
      ? { NotNull: { Named: `${T}Page` } }
      : op.generated === 'create'
        ? { NotNull: { Named: T } }
        : { Named: T };
  const args = node
    ? (node.arguments ?? []).map((a) => ({ name: a.name.value, type: encodeType(a.type) }))
    : generatedArgs(op.generated!, T!);
  return {
    location: p.location,
    field: {
      name: op.name,
      directives: [{ name: 'resolver', args: { name: p.name, paginated: op.paginated } }],
      type,
      arguments: args,
    },
  };
}

function generatedArgs(which: string, T: string): unknown[] {
  const id = { name: 'id', type: { NotNull: { Named: 'ID' } } };
  const data = { name: 'data', type: { NotNull: { Named: `${T}Input` } } };
  switch (which) {
    case 'create':
      return [data];
    case 'update':
      return [id, data];
    case 'list':
      return [];
    default:
      return [id];
  }
}

/** A stub that aborts (A.4.3), or one of the five @generateUDFResolvers bodies (A.2.8). */
function functionBody(p: FunctionPlan): Value {
  if (!p.generated) return F.lambdaValue('_', { abort: stubMessage(p.name) });
  const coll = { collection: p.generated.collection };
  const ref = { ref: coll, id: { var: 'id' } };
  const ifExists = (then: unknown) => ({ if: { exists: ref }, then, else: null });
  switch (p.generated.which) {
    case 'create':
      return F.lambdaValue(['data'], { create: coll, params: { object: { data: { var: 'data' } } } });
    case 'findByID':
      return F.lambdaValue(['id'], ifExists({ get: ref }));
    case 'update':
      return F.lambdaValue(['id', 'data'], ifExists({ update: ref, params: { object: { data: { var: 'data' } } } }));
    case 'delete':
      return F.lambdaValue(['id'], ifExists({ delete: ref }));
    case 'list': {
      const set = { var: 'set' };
      const size = { var: 'size' };
      const page = {
        if: { is_null: { var: 'before' } },
        then: {
          if: { is_null: { var: 'after' } },
          then: { paginate: set, size },
          else: { paginate: set, size, after: { var: 'after' } },
        },
        else: { paginate: set, size, before: { var: 'before' } },
      };
      return F.lambdaValue(['size', 'after', 'before'], {
        let: [{ set: { documents: coll } }],
        in: { map: { lambda: 'ref', expr: { get: { var: 'ref' } } }, collection: page },
      });
    }
  }
}
