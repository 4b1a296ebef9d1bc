// User documents as runtime values (Value.Doc + ReadBroker): a reference by collection and id,
// read lazily at the valid time it was taken at. Fields sit at the top level beside `id`, `coll`,
// `ts` and `ttl`; `data` is the stored user data (a v4 document's `data` is the same thing, so
// either language sees the other's documents). A document that is not there reads as a null
// whose cause says why (not found, deleted, permission denied).

import type { Name } from '../ast';
import type { Span } from '../span';
import { Failures, QueryRuntimeFailure, type Trace } from '../runtime/failure';
import { coveredRead, indexDocMaterialized, type IndexSrcHint } from '../runtime/hints';
import { NullReceiver, frameSpan, type CallCtx, type FieldResult, type FieldTable } from '../runtime/table';
import { ExtValue, IdV, NullV, type DocIdentity, type ExtNullCause, type RtValue, type Struct } from '../runtime/values';
import { baseTable } from '../stdlib/base';
import { p, tt } from '../runtime/types';
import { DELETED_COLLECTION, Doc, DocRef, Module, NullDoc, type MObject, type MValue, type NullCause as MNullCause } from '../../wire/v10/model';
import { Ref, Time, TxnTime, type Obj, type Value } from '../../values/types';
import type { SchemaEntry } from '../../model/catalog';
import { readLive } from '../../model/documents';
import { checkAccess } from '../../model/permissions';
import { schemaOf, type Target } from '../../model/resolve';
import { compiledSchema } from '../../model/schema10/compiled';
import { QueryError } from '../../values/errors';
import { readTimeOf, txnOf } from './hooks';
import { storedToResponse, toRuntime } from './convert';
import { PERMISSION_DENIED } from './errors';
import { materialize } from '../eval/materialize';
import { applyComputed } from './computed';
import { collectionModuleOf } from './collections';
import { deleteDoc, writeDoc } from './writes';

/** Why a document reference reads as null (Value.Null.Cause.DocNotFound and friends). */
export class DocNullCause implements ExtNullCause {
  readonly kind = 'ext';
  constructor(
    readonly reason: MNullCause,
    readonly doc: DocV,
    readonly span: Span,
  ) {}

  failure(trace: Trace, access: boolean): QueryRuntimeFailure | undefined {
    switch (this.reason) {
      case 'not found':
      case 'deleted':
        return documentNotFound(this.doc, trace);
      case 'permission denied':
        return access ? new QueryRuntimeFailure('permission_denied', PERMISSION_DENIED, trace) : Failures.nullValue('Null value, due to permission denied', trace, this.span);
      case 'collection deleted':
        return undefined;
    }
  }
}

export function documentNotFound(doc: DocV, trace: Trace | null): QueryRuntimeFailure {
  return new QueryRuntimeFailure('document_not_found', `Collection \`${doc.collName}\` does not contain document with id ${doc.id}.`, trace);
}

type Read = { readonly entry: SchemaEntry; readonly fields: Obj; readonly ts: bigint | TxnTime } | DocNullCause;

/** Field names rendered inside `data` because they clash with the document's own (Tokens.SpecialFieldNames). */
const SPECIAL_FIELDS = new Set(['id', 'coll', 'ts', 'data', 'delete', 'update', 'replace', 'updateData', 'replaceData', 'exists', 'ttl']);

export class DocV extends ExtValue {
  readonly orderRank = 6;
  constructor(
    readonly db: bigint,
    /** The collection's internal id. */
    readonly collId: bigint,
    /** The collection's name when the reference was made (errors, display). */
    readonly collName: string,
    readonly id: bigint,
    /** Valid time (µs) the reference reads at; undefined: the reading context's. */
    readonly readTs?: bigint,
    /** Set on what `delete()` returns: the document reads as deleted. */
    readonly deleted = false,
    /** Stored fields of a version not yet written (a write predicate's new document, the core's
     *  versionOverride): read as they are, unchecked, at the transaction's time. */
    readonly pending?: Obj,
    /** The index set it came from, for performance hints. */
    readonly srcHint?: IndexSrcHint,
  ) {
    super();
  }

  get typeName(): string {
    return this.collName;
  }

  table(): FieldTable {
    return DOC_TABLE;
  }

  display(): string {
    return `[doc ${this.id} in ${this.collName}]`;
  }

  compare(other: ExtValue): number | undefined {
    if (!(other instanceof DocV)) return undefined;
    if (this.collId !== other.collId) return this.collId < other.collId ? -1 : 1;
    return this.id < other.id ? -1 : this.id > other.id ? 1 : 0;
  }

  override docIdentity(): DocIdentity {
    // A user collection's internal id is the core's (from 1024).
    return { coll: this.collId, id: this.id };
  }

  /** The ref v4 stores for it. */
  storedRef(): Ref {
    return new Ref(String(this.id), Ref.collection(this.collName), undefined, { db: this.db, coll: Number(this.collId), id: this.id });
  }

  async entry(ctx: CallCtx): Promise<SchemaEntry | undefined> {
    return (await schemaOf(txnOf(ctx), this.db)).getById('collections', this.collId);
  }

  /**
   * What a read at a valid time (`readTs`) needs: a reference taken under `at` reads history
   * (ReadBroker.checkedGet); an event's version needs `read` at its time (events.ts EventDocV).
   */
  protected readAtPermission(): 'history_read' | 'read' {
    return 'history_read';
  }

  /** The stored version, or why there is none (ReadBroker.checkedGet). */
  async read(ctx: CallCtx): Promise<Read> {
    const span = frameSpan(ctx);
    if (this.deleted) return new DocNullCause('deleted', this, span);
    const entry = await this.entry(ctx);
    if (entry === undefined) return new DocNullCause('collection deleted', this, span);
    if (this.pending !== undefined) return { entry, fields: this.pending, ts: TxnTime.instance };
    const tx = txnOf(ctx);
    const t: Target = { kind: 'doc', db: this.db, coll: entry, id: this.id, scoped: false };
    try {
      if (this.readTs === undefined) await checkAccess(tx, 'read', t, []);
      // A predicate sees the document as of the valid time read.
      else await tx.within({ readAt: this.readTs }, () => checkAccess(tx, this.readAtPermission(), t, []));
    } catch (e) {
      if (e instanceof QueryError && e.code === 'permission denied') return new DocNullCause('permission denied', this, span);
      throw e;
    }
    const doc = await readLive(tx, t, this.readTs ?? readTimeOf(ctx));
    if (doc === null) return new DocNullCause('not found', this, span);
    return { entry, fields: doc.version.data ?? new Map(), ts: doc.version.ts };
  }

  override async nullCause(ctx: CallCtx): Promise<DocNullCause | undefined> {
    const r = await this.read(ctx);
    return r instanceof DocNullCause ? r : undefined;
  }

  async field(ctx: CallCtx, name: Name): Promise<FieldResult> {
    if (name.str === 'id') return new IdV(this.id);
    if (name.str === 'coll') {
      const entry = await this.entry(ctx);
      return entry === undefined ? NullV.missingField(this, name) : collectionModuleOf(entry, this.db);
    }
    const r = await this.read(ctx);
    if (r instanceof DocNullCause) return new NullReceiver(r);
    const body = compiledSchema(r.entry)?.computed.get(name.str);
    const stored = body === undefined ? storedField(r, name.str) : undefined;
    const v = body !== undefined ? await applyComputed(ctx, r.entry, name.str, body, this) : stored === undefined ? undefined : toRuntime(stored);
    // `.data` is every user field: reading it is hinted field by field.
    if (this.srcHint !== undefined && name.str !== 'ts') coveredRead(ctx, this.srcHint, name.str === 'data' ? [] : [name.str], name.span, v);
    return v ?? NullV.missingField(this, name);
  }

  async toStruct(ctx: CallCtx): Promise<Struct | NullV> {
    const r = await this.read(ctx);
    if (r instanceof DocNullCause) return new NullV(r);
    const out: Struct = new Map<string, RtValue>([
      ['id', new IdV(this.id)],
      ['coll', collectionModuleOf(r.entry, this.db)],
    ]);
    for (const [k, v] of await this.displayed(ctx, r)) out.set(k, 'rt' in v ? v.rt : toRuntime(v.stored));
    return out;
  }

  async materialize(ctx: CallCtx): Promise<MValue> {
    const r = await this.read(ctx);
    if (r instanceof DocNullCause) {
      const coll = r.reason === 'collection deleted' ? DELETED_COLLECTION : new Module(this.collName);
      return new NullDoc(new DocRef(coll, String(this.id)), r.reason);
    }
    if (this.srcHint !== undefined) indexDocMaterialized(ctx, this.srcHint);
    const coll = new Module(r.entry.name);
    const fields: MObject = new Map<string, MValue>([
      ['id', String(this.id)],
      ['coll', coll],
    ]);
    for (const [k, v] of await this.displayed(ctx, r)) fields.set(k, 'rt' in v ? await materialize(ctx, v.rt) : storedToResponse(v.stored));
    return new Doc(new DocRef(coll, String(this.id)), fields);
  }

  /** The fields after `id` and `coll` (ReadBroker.getAllFields): `ts`, `ttl`, computed fields,
   *  then the data's fields, names that clash with the document's own kept in `data`. */
  private async displayed(ctx: CallCtx, r: Exclude<Read, DocNullCause>): Promise<[string, Shown][]> {
    const out: [string, Shown][] = [['ts', { stored: tsValue(r.ts) }]];
    const ttl = r.fields.get('ttl');
    if (ttl !== undefined && ttl !== null) out.push(['ttl', { stored: ttl }]);
    const computed = compiledSchema(r.entry)?.computed;
    if (computed) for (const [k, body] of computed) out.push([k, { rt: await applyComputed(ctx, r.entry, k, body, this) }]);
    const data = r.fields.get('data');
    const special: Obj = new Map();
    if (data instanceof Map)
      for (const [k, v] of data) {
        if (SPECIAL_FIELDS.has(k)) special.set(k, v);
        else if (!computed?.has(k)) out.push([k, { stored: v }]);
      }
    if (special.size) out.push(['data', { stored: special }]);
    return out;
  }
}

/** A displayed field: a stored value, or a computed field's runtime value. */
type Shown = { readonly stored: Value } | { readonly rt: RtValue };

function tsValue(ts: bigint | TxnTime): Time | TxnTime {
  return ts instanceof TxnTime ? ts : Time.fromMicros(ts);
}

function storedField(r: Exclude<Read, DocNullCause>, name: string): Value | undefined {
  switch (name) {
    case 'ts':
      return tsValue(r.ts);
    case 'ttl':
      return r.fields.get('ttl') ?? undefined;
    case 'data':
      return r.fields.get('data') ?? new Map();
  }
  const data = r.fields.get('data');
  return data instanceof Map ? data.get(name) : undefined;
}

// ---- the documents' table (AbstractDocPrototype) ----

const DOC_TABLE = baseTable('Doc');
DOC_TABLE.dynGet = (ctx, self: DocV, name) => self.field(ctx, name);
DOC_TABLE.access(p('key', tt.Str), (ctx, self: DocV, key: string, span) => self.field(ctx, { str: key, span }));
DOC_TABLE.method('exists', [], async (ctx, self: DocV) => (await self.nullCause(ctx)) === undefined);
DOC_TABLE.method('update', [p('data', tt.Struct)], (ctx, self: DocV, [d]: Struct[]) => writeDoc(ctx, self, d, 'update', false));
DOC_TABLE.method('updateData', [p('data', tt.Struct)], (ctx, self: DocV, [d]: Struct[]) => writeDoc(ctx, self, d, 'update', true));
DOC_TABLE.method('replace', [p('data', tt.Struct)], (ctx, self: DocV, [d]: Struct[]) => writeDoc(ctx, self, d, 'replace', false));
DOC_TABLE.method('replaceData', [p('data', tt.Struct)], (ctx, self: DocV, [d]: Struct[]) => writeDoc(ctx, self, d, 'replace', true));
DOC_TABLE.method('delete', [], (ctx, self: DocV) => deleteDoc(ctx, self));
