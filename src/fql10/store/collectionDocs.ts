// Collection definitions as named documents (`Collection.byName("Book")`, `Book.definition`):
// their fields are the definition model/schema10 keeps (name, coll, ts, then the rest as given),
// and `update`, `replace`, `delete` change the collection through model/schema10/api.ts.

import type { Name } from '../ast';
import type { Span } from '../span';
import { deleteCollection, definitionOf, updateCollection } from '../../model/schema10/api';
import { Time, TxnTime, type Obj, type Value } from '../../values/types';
import { Doc, Module, NamedRef, NullDoc, type MObject, type MValue } from '../../wire/v10/model';
import { QueryRuntimeFailure, type Trace } from '../runtime/failure';
import { frameSpan, NullReceiver, type CallCtx, type FieldResult, type FieldTable } from '../runtime/table';
import { p, tt } from '../runtime/types';
import { ExtValue, NullV, type DocIdentity, type ExtNullCause, type RtValue, type Struct } from '../runtime/values';
import { schemaAsOf } from '../../model/resolve';
import { coreCollectionId } from './natives';
import { baseTable } from '../stdlib/base';
import { storedToResponse, toRuntime, toStored } from './convert';
import { requireWrite, viaModel } from './errors';
import { readTimeOf, txnOf } from './hooks';
import { CollectionModule } from './collections';
import { migrateOnceEvaluated } from './collectionMigrations';
import { collectionIdOf, noteCollectionWrite } from './collectionWrites';

class DefNullCause implements ExtNullCause {
  readonly kind = 'ext';
  constructor(
    readonly def: CollectionDefV,
    readonly reason: 'not found' | 'deleted',
    readonly span: Span,
  ) {}
  failure(trace: Trace): QueryRuntimeFailure {
    return notFound(this.def.name, trace);
  }
}

function notFound(name: string, trace: Trace | null): QueryRuntimeFailure {
  return new QueryRuntimeFailure('document_not_found', `Collection \`${name}\` not found.`, trace);
}

export class CollectionDefV extends ExtValue {
  readonly typeName = 'CollectionDef';
  readonly orderRank = 6;
  constructor(
    readonly db: bigint,
    readonly name: string,
    readonly deleted = false,
    /** Valid time (µs) it reads at (`at (ts) Collection.byName(…)`); undefined: the reader's. */
    readonly readTs?: bigint,
    /** The definition as a write is about to leave it (a write predicate's new document, the
     *  core's versionOverride): read as it is, at the transaction's time. */
    readonly pending?: Obj,
  ) {
    super();
  }

  table(): FieldTable {
    return DEF_TABLE;
  }

  display(): string {
    return `[doc ${this.name} in Collection]`;
  }

  compare(other: ExtValue): number | undefined {
    if (!(other instanceof CollectionDefV)) return undefined;
    return this.name < other.name ? -1 : this.name > other.name ? 1 : 0;
  }

  /** The collection's internal id, once prepareCompare has looked it up. */
  private knownId: { readonly id: bigint | undefined } | undefined;

  override docIdentity(): DocIdentity {
    return { coll: coreCollectionId('collections'), id: this.knownId?.id, name: this.name };
  }

  override async prepareCompare(ctx: CallCtx): Promise<void> {
    if (this.knownId !== undefined) return;
    this.knownId = { id: (await schemaAsOf(txnOf(ctx), this.db, this.readTs ?? readTimeOf(ctx))).get('collections', this.name)?.id };
  }

  /** The definition with `coll` and `ts` placed as the core shows them, or why it is not there. */
  async read(ctx: CallCtx): Promise<Obj | DefNullCause> {
    if (this.deleted) return new DefNullCause(this, 'deleted', frameSpan(ctx));
    const def = this.pending ?? (await definitionOf(txnOf(ctx), this.db, this.name, this.readTs ?? readTimeOf(ctx)));
    if (def === undefined) return new DefNullCause(this, 'not found', frameSpan(ctx));
    const out: Obj = new Map<string, Value>([['name', this.name]]);
    // A definition keeps its ts in microseconds (v4's shape); v10 shows a Time.
    const ts = def.get('ts');
    out.set('ts', typeof ts === 'bigint' ? Time.fromMicros(ts) : (ts ?? TxnTime.instance));
    for (const [k, v] of def) if (k !== 'name' && k !== 'ts') out.set(k, v);
    return out;
  }

  override async nullCause(ctx: CallCtx): Promise<DefNullCause | undefined> {
    const r = await this.read(ctx);
    return r instanceof DefNullCause ? r : undefined;
  }

  async field(ctx: CallCtx, name: Name): Promise<FieldResult> {
    if (name.str === 'coll') return CollectionModule.module;
    if (name.str === 'name') return this.name;
    const r = await this.read(ctx);
    if (r instanceof DefNullCause) return new NullReceiver(r);
    const v = r.get(name.str);
    return v === undefined ? NullV.missingField(this, name) : toRuntime(v);
  }

  async toStruct(ctx: CallCtx): Promise<Struct | NullV> {
    const r = await this.read(ctx);
    if (r instanceof DefNullCause) return new NullV(r);
    const out: Struct = new Map<string, RtValue>();
    for (const [k, v] of r) {
      out.set(k, toRuntime(v));
      if (k === 'name') out.set('coll', CollectionModule.module);
    }
    return out;
  }

  async materialize(ctx: CallCtx): Promise<MValue> {
    const ref = new NamedRef(new Module('Collection'), this.name);
    const r = await this.read(ctx);
    if (r instanceof DefNullCause) return new NullDoc(ref, r.reason);
    const fields: MObject = new Map();
    for (const [k, v] of r) {
      fields.set(k, storedToResponse(v));
      if (k === 'name') fields.set('coll', new Module('Collection'));
    }
    return new Doc(ref, fields);
  }
}

async function write(ctx: CallCtx, self: CollectionDefV, params: Struct, replace: boolean): Promise<RtValue> {
  requireWrite(ctx, replace ? 'replace' : 'update');
  const live = await definitionOf(txnOf(ctx), self.db, self.name);
  const def = await viaModel(
    ctx,
    () => updateCollection(txnOf(ctx), self.db, self.name, toStored(params, ctx.trace) as Obj, replace, []),
    () => notFound(self.name, ctx.trace),
  );
  const name = String(def.get('name'));
  const id = await collectionIdOf(ctx, self.db, name);
  if (id !== undefined) noteCollectionWrite(ctx, self.db, id, 'collection');
  if (id !== undefined && live !== undefined) migrateOnceEvaluated(ctx, self.db, id, live);
  return new CollectionDefV(self.db, name);
}

const DEF_TABLE = baseTable('CollectionDef');
DEF_TABLE.dynGet = (ctx, self: CollectionDefV, name) => self.field(ctx, name);
DEF_TABLE.access(p('key', tt.Str), (ctx, self: CollectionDefV, key: string, span) => self.field(ctx, { str: key, span }));
DEF_TABLE.method('exists', [], async (ctx, self: CollectionDefV) => (await self.nullCause(ctx)) === undefined);
DEF_TABLE.method('update', [p('data', tt.Struct)], (ctx, self: CollectionDefV, [d]: Struct[]) => write(ctx, self, d, false));
DEF_TABLE.method('replace', [p('data', tt.Struct)], (ctx, self: CollectionDefV, [d]: Struct[]) => write(ctx, self, d, true));
DEF_TABLE.method('delete', [], async (ctx, self: CollectionDefV) => {
  requireWrite(ctx, 'delete');
  const id = await collectionIdOf(ctx, self.db, self.name);
  await viaModel(ctx, () => deleteCollection(txnOf(ctx), self.db, self.name, []), () => notFound(self.name, ctx.trace));
  if (id !== undefined) noteCollectionWrite(ctx, self.db, id, 'collection');
  return new CollectionDefV(self.db, self.name, true);
});
