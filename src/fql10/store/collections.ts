// Collections as modules (stdlib/Collections.scala): a user collection's companion (`all`,
// `where`, `firstWhere`, `byId`, `create`, `createData`, `definition`, `Coll(id)`, and one method per
// defined index taking its terms and optionally a `{ from, to }` range), and the `Collection`
// module of definitions (`Collection.create`, `Collection.byName`, `Collection.all`, `Collection(name)`).

import type { SchemaEntry } from '../../model/catalog';
import { createdInTxn, schemaOf } from '../../model/resolve';
import { createCollection } from '../../model/schema10/api';
import { parseFieldPath } from '../../model/schema10/definition';
import type { Value } from '../../values/types';
import { collectionScan } from '../runtime/hints';
import { ArraySet, ValueSet, WhereFilterSet, type Page } from '../runtime/sets';
import { Failures, QueryRuntimeFailure } from '../runtime/failure';
import { NULL_SPAN } from '../span';
import { frameSpan, type CallCtx, type Param } from '../runtime/table';
import { p, tt } from '../runtime/types';
import { arityAccepts, IdV, ModuleV, NullV, type Func, type RtValue, type Struct } from '../runtime/values';
import { baseTable, moduleObject } from '../stdlib/base';
import { CollectionDefV } from './collectionDocs';
import { migrateOnceEvaluated } from './collectionMigrations';
import { collectionIdOf, noteCollectionWrite } from './collectionWrites';
import { toStored } from './convert';
import { DocV } from './docs';
import { requireWrite, viaModel } from './errors';
import { readTimeOf, txnOf } from './hooks';
import { CollectionSet, IndexSet, type CollRef, type IdRange } from './sources';
import { idRangeOf, inIdRange } from './idRange';
import { createDoc } from './writes';

function checkPred(ctx: CallCtx, f: Func): void {
  if (!arityAccepts(f.arity, 1)) throw Failures.invalidFuncParamArity('pred', 1, f.arity, ctx.trace);
}

const modules = new WeakMap<SchemaEntry, Map<string, ModuleV>>();

/** The module of a user collection, by the name it is called (its name or its alias). */
export function collectionModuleOf(entry: SchemaEntry, db: bigint, name = entry.name): ModuleV {
  let byName = modules.get(entry);
  if (byName === undefined) modules.set(entry, (byName = new Map()));
  let m = byName.get(name);
  if (m === undefined) byName.set(name, (m = buildModule(entry, db, name)));
  return m;
}

/** An index's terms and values as field paths, those with array steps left out (SetSrcHint.coveredFieldPaths). */
function coveredPaths(def: Value): string[][] {
  const out: string[][] = [];
  if (!(def instanceof Map)) return out;
  for (const k of ['terms', 'values']) {
    const list = def.get(k);
    if (Array.isArray(list))
      for (const f of list) {
        const field = f instanceof Map ? f.get('field') : undefined;
        const path = typeof field === 'string' ? parseFieldPath(field) : undefined;
        // `.data.x` is the user field `.x` (fieldLocation); `.data` alone holds every field.
        if (path !== undefined && path.every((s): s is string => typeof s === 'string')) out.push(path[0] === 'data' ? path.slice(1) : path);
      }
  }
  return out;
}

function buildModule(entry: SchemaEntry, db: bigint, name: string): ModuleV {
  const coll: CollRef = { db, id: entry.id, name: entry.name };
  const table = baseTable(name);
  const m = new ModuleV(name, table, (v) => v instanceof DocV && v.collId === entry.id && v.db === db);
  const all = (ctx: CallCtx, range?: IdRange) => new CollectionSet(coll, readTimeOf(ctx), false, range);
  const byId = (ctx: CallCtx, id: IdV) => new DocV(db, entry.id, entry.name, id.value, readTimeOf(ctx));
  table.method('all', [], (ctx) => all(ctx));
  table.method('all', [p('range', tt.Struct)], async (ctx, _s, [r]: Struct[]) => all(ctx, await idRangeOf(ctx, r)));
  table.method('where', [p('pred', tt.Function)], (ctx, _s, [f]: Func[]) => {
    collectionScan(ctx, entry.name, 'where');
    checkPred(ctx, f);
    return new WhereFilterSet(all(ctx), f, ctx.validTime, ctx.trace);
  });
  table.method('firstWhere', [p('pred', tt.Function)], (ctx, _s, [f]: Func[]) => {
    collectionScan(ctx, entry.name, 'firstWhere');
    checkPred(ctx, f);
    return new WhereFilterSet(all(ctx), f, ctx.validTime, ctx.trace).first(ctx);
  });
  table.method('byId', [p('id', tt.ID)], (ctx, _s, [id]: IdV[]) => byId(ctx, id));
  table.apply([p('id', tt.ID)], (ctx, _s, [id]: IdV[]) => byId(ctx, id));
  table.method('create', [p('data', tt.Struct)], (ctx, _s, [d]: Struct[]) => createDoc(ctx, db, entry, d, false));
  table.method('createData', [p('data', tt.Struct)], (ctx, _s, [d]: Struct[]) => createDoc(ctx, db, entry, d, true));
  table.method('toString', [], () => name);
  table.field('definition', (ctx) => new CollectionDefV(db, entry.name, false, readTimeOf(ctx)));
  const indexes = entry.fields.get('indexes');
  if (indexes instanceof Map)
    for (const [index, def] of indexes) {
      const terms = def instanceof Map && Array.isArray(def.get('terms')) ? (def.get('terms') as Value[]).length : 0;
      const coveredCount = def instanceof Map && Array.isArray(def.get('values')) ? (def.get('values') as Value[]).length : 0;
      const params: Param[] = [];
      for (let i = 0; i < terms; i++) params.push(p(`term${i + 1}`));
      const covered = coveredPaths(def);
      const make = (ctx: CallCtx, args: RtValue[], range?: Struct) =>
        new IndexSet(coll, index, args.map((a) => toStored(a, ctx.trace)), rangeOf(ctx, range, coveredCount), readTimeOf(ctx), false, {
          collection: entry.name,
          index,
          covered,
          span: frameSpan(ctx),
        });
      table.method(index, params, (ctx, _s, args: RtValue[]) => make(ctx, args));
      table.method(index, [...params, p('range', tt.Struct)], (ctx, _s, args: RtValue[]) => make(ctx, args.slice(0, -1), args[args.length - 1] as Struct));
    }
  return m;
}

/** `{ from, to }` (CollectionIndexMethod.collectRange): each bound one value or an array of them,
 *  a prefix of the index's `covered` values; other fields are ignored. */
function rangeOf(ctx: CallCtx, range: Struct | undefined, covered: number): { from?: Value[]; to?: Value[] } {
  if (range === undefined) return {};
  const prefix = (field: 'from' | 'to'): Value[] | undefined => {
    const v = range.get(field);
    if (v === undefined) return undefined;
    // With one covered value an array is that value; a `to` one gets a trailing null, which sorts
    // after the rest, so that arrays it prefixes are inside the range.
    const elems = !Array.isArray(v) ? [v] : covered === 1 ? [field === 'to' ? [...v, NullV.lit(NULL_SPAN)] : v] : v;
    if (elems.length > covered) throw Failures.invalidArgument('range', `The field \`${field}\` can have at most ${covered} values`, ctx.trace);
    return elems.map((x) => {
      try {
        return toStored(x, ctx.trace);
      } catch (e) {
        if (e instanceof QueryRuntimeFailure) throw Failures.invalidArgument('range', `The \`${field}\` field should be either an indexable value or an array of values`, ctx.trace);
        throw e;
      }
    });
  };
  const from = prefix('from');
  const to = prefix('to');
  if (from === undefined && to === undefined)
    throw Failures.invalidArgument('range', 'should be an object contining `{ from }`, `{ to }`, or `{ from, to }` fields', ctx.trace);
  return { from, to };
}

// ---- the Collection module ----

/** Every collection definition, in the order they were made (id order). */
export class CollectionDefsSet extends ValueSet {
  readonly streamRefusal = undefined;
  constructor(
    readonly db: bigint,
    readonly range: IdRange = {},
  ) {
    super();
  }

  override readsFullStorageSet(): boolean {
    return true;
  }

  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    const entries = (await schemaOf(txnOf(ctx), this.db))
      .all('collections')
      .filter((e) => inIdRange(e.id, this.range))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const page = await new ArraySet(entries.map((e) => new CollectionDefV(this.db, e.name))).paginateImpl(ctx, count, cont);
    const retok = (t: { cont: RtValue[] | null }) => ({ set: this, cont: t.cont });
    return { elems: page.elems.map((e) => ({ value: e.value, tok: () => retok(e.tok()) })), after: page.after && retok(page.after) };
  }
}

export const CollectionModule = moduleObject('Collection');
const ct = CollectionModule.table;
const dbOf = (ctx: CallCtx) => txnOf(ctx).scope.db;
/** Where documents of a deleted collection point (CollectionDefCompanion.Deleted): nothing is one. */
const DeletedCollection = new ModuleV('Deleted', baseTable('Deleted'), () => false, CollectionModule.module);
ct.field('Deleted', () => DeletedCollection);
ct.method('byName', [p('name', tt.Str)], (ctx, _s, [n]: string[]) => new CollectionDefV(dbOf(ctx), n, false, readTimeOf(ctx)));
ct.method('all', [], (ctx) => new CollectionDefsSet(dbOf(ctx)));
ct.method('all', [p('range', tt.Struct)], async (ctx, _s, [r]: Struct[]) => new CollectionDefsSet(dbOf(ctx), await idRangeOf(ctx, r)));
ct.method('where', [p('pred', tt.Function)], (ctx, _s, [f]: Func[]) => {
  collectionScan(ctx, 'Collection', 'where');
    checkPred(ctx, f);
  return new WhereFilterSet(new CollectionDefsSet(dbOf(ctx)), f, ctx.validTime, ctx.trace);
});
ct.method('firstWhere', [p('pred', tt.Function)], (ctx, _s, [f]: Func[]) => {
  collectionScan(ctx, 'Collection', 'firstWhere');
    checkPred(ctx, f);
  return new WhereFilterSet(new CollectionDefsSet(dbOf(ctx)), f, ctx.validTime, ctx.trace).first(ctx);
});
ct.method('create', [p('data', tt.Struct)], async (ctx, _s, [d]: Struct[]) => {
  requireWrite(ctx, 'create');
  const db = dbOf(ctx);
  const def = await viaModel(ctx, () => createCollection(txnOf(ctx), db, toStored(d, ctx.trace) as Map<string, Value>, []));
  const name = String(def.get('name'));
  const id = await collectionIdOf(ctx, db, name);
  if (id !== undefined) {
    noteCollectionWrite(ctx, db, id, 'collection');
    migrateOnceEvaluated(ctx, db, id, null);
  }
  return new CollectionDefV(db, name);
});
ct.apply([p('collection', tt.Str)], async (ctx, _s, [name]: string[]) => {
  const db = dbOf(ctx);
  const m = await userCollection(ctx, db, name);
  if (m !== undefined) return m;
  const failure = Failures.invalidArgument('collection', `No such user collection \`${name}\`.`, ctx.trace);
  // Created earlier in this query (Collections.scala's hint).
  if ((await definitionOf(ctx, db, name)) === undefined || ctx.trace === null) throw failure;
  throw failure.withHint({ message: 'A collection cannot be created and used in the same query.', span: ctx.trace.span });
});

/** The definition of the collection named (or aliased) `name`, this transaction's writes included. */
async function definitionOf(ctx: CallCtx, db: bigint, name: string): Promise<SchemaEntry | undefined> {
  const schema = await schemaOf(txnOf(ctx), db);
  return schema.get('collections', name) ?? schema.all('collections').find((e) => e.fields.get('alias') === name);
}

/** A user collection's module by name or alias (UserCollectionCompanion.lookup): one created by
 *  this query is not there yet (the core resolves names in the schema the query began with). */
export async function userCollection(ctx: CallCtx, db: bigint, name: string): Promise<ModuleV | undefined> {
  const entry = await definitionOf(ctx, db, name);
  if (entry === undefined || (await createdInTxn(txnOf(ctx), db, entry))) return undefined;
  return collectionModuleOf(entry, db, name);
}
