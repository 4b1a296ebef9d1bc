// The native collections as v10 values (SchemaCollectionCompanion, IDedCollectionCompanion,
// NativeDocPrototype): a native document is a reference by name (functions, roles, databases,
// access providers) or by id (keys, tokens, credentials), read lazily through model/ with the
// caller's permissions; its companion module has `all`, `where`, `firstWhere`, `byName` or `byId`,
// `create` and `toString`, and the document has `exists`, `update`, `replace`, `delete`. Every
// write goes through model/documents.ts, so v4 sees the same documents and every v4 rule holds.
// Each native module (functions.ts, roles.ts, keys.ts, …) gives a NativeSpec: its v10 field
// names in and out of the model's stored form.

import type { Name } from '../ast';
import type { Span } from '../span';
import type { TxnContext } from '../../model/context';
import { createDocument, deleteDocument, readLive, writeDocument } from '../../model/documents';
import { allowed, checkAccess } from '../../model/permissions';
import { schemaAsOf, schemaOf, type Target } from '../../model/resolve';
import { QueryError } from '../../values/errors';
import { NATIVE_IDS, Ref, Time, TxnTime, type NamedNative, type NativeName, type Obj, type Value } from '../../values/types';
import { Doc, DocRef, Module, NamedRef, NullDoc, type MObject, type MValue } from '../../wire/v10/model';
import { Failures, QueryRuntimeFailure, type Trace } from '../runtime/failure';
import { collectionScan } from '../runtime/hints';
import { ArraySet, ValueSet, WhereFilterSet, type Page } from '../runtime/sets';
import { frameSpan, NullReceiver, type CallCtx, type FieldResult, type FieldTable } from '../runtime/table';
import { p, tt } from '../runtime/types';
import { arityAccepts, ExtValue, IdV, ModuleV, NullV, type DocIdentity, type ExtNullCause, type Func, type RtValue, type Struct } from '../runtime/values';
import { baseTable } from '../stdlib/base';
import { storedToResponse, toRuntime, toStored } from './convert';
import { fromModel, PERMISSION_DENIED, requireWrite } from './errors';
import { readTimeOf, txnOf } from './hooks';
import { idRangeOf, inIdRange } from './idRange';
import { checkRoleLater } from './roleNames';
import type { IdRange } from './sources';

type SecretNative = 'keys' | 'tokens' | 'credentials';

/** What one native collection is in v10. */
export interface NativeSpec {
  readonly native: NativeName;
  /** The companion's global name: `Function`, `Key`… */
  readonly module: string;
  /** The documents' type name: `FunctionDef`, `Key`… */
  readonly docType: string;
  /** The label of constraint failures: `Failed to create Function.` */
  readonly label: string;
  /** Turns the v10 fields of a create/update/replace into the model's params. */
  toModel(ctx: CallCtx, fields: Obj, creating: boolean): Promise<Obj> | Obj;
  /** Other values `x isa <Module>` holds for (the Function collection: every function). */
  readonly alsoContains?: (v: RtValue) => boolean;
  /** The stored fields as v10 shows them, after `name`/`id`, `coll` and `ts`; `id` is the internal id. */
  display(fields: Obj, id: bigint): [string, Value][];
}

const named = (s: NativeSpec): s is NativeSpec & { native: NamedNative } => s.native !== 'keys' && s.native !== 'tokens' && s.native !== 'credentials';

class NativeNullCause implements ExtNullCause {
  readonly kind = 'ext';
  constructor(
    readonly doc: NativeDocV,
    readonly reason: 'not found' | 'deleted' | 'permission denied',
    readonly span: Span,
  ) {}
  failure(trace: Trace, access: boolean): QueryRuntimeFailure | undefined {
    if (this.reason === 'permission denied')
      return access ? new QueryRuntimeFailure('permission_denied', PERMISSION_DENIED, trace) : Failures.nullValue('Null value, due to permission denied', trace, this.span);
    return this.doc.notFound(trace);
  }
}

type Read = { readonly fields: Obj; readonly ts: bigint | TxnTime; readonly id: bigint } | NativeNullCause;

/** The core's ids of the native collections (CollectionID: Database 0, Collection 1, Key 2,
 *  Token 3, Credential 10, Function 11, Role 12, AccessProvider 13); user collections' ids are
 *  the same in Flora and the core (from 1024). Documents of different collections order by them. */
const CORE_COLLECTION_IDS: Readonly<Record<NativeName, bigint>> = {
  databases: 0n,
  collections: 1n,
  keys: 2n,
  tokens: 3n,
  indexes: 4n,
  credentials: 10n,
  functions: 11n,
  roles: 12n,
  access_providers: 13n,
};

export function coreCollectionId(native: NativeName): bigint {
  return CORE_COLLECTION_IDS[native];
}

/** A native document: by name (`key` a string) or by id (`key` a bigint). */
export class NativeDocV extends ExtValue {
  readonly orderRank = 6;
  constructor(
    readonly spec: NativeSpec,
    readonly db: bigint,
    readonly key: string | bigint,
    readonly deleted = false,
    /** Fields shown only by the create that made it (a key's or token's secret). */
    readonly once?: Obj,
    /** Valid time (µs) it reads at (`at (ts) Function.byName(…)`); undefined: the reader's. */
    readonly readTs?: bigint,
    /** Stored fields and internal id of a version not yet written (a write predicate's new
     *  document, the core's versionOverride): read as they are, unchecked, at the transaction's time. */
    readonly pending?: { readonly fields: Obj; readonly id: bigint },
  ) {
    super();
  }

  get typeName(): string {
    return this.spec.docType;
  }

  table(): FieldTable {
    return tableOf(this.spec);
  }

  display(): string {
    return `[doc ${this.key} in ${this.spec.module}]`;
  }

  compare(other: ExtValue): number | undefined {
    if (!(other instanceof NativeDocV) || other.spec !== this.spec) return undefined;
    return this.key < other.key ? -1 : this.key > other.key ? 1 : 0;
  }

  /** A named document's internal id, once prepareCompare has looked it up. */
  private namedId: { readonly id: bigint | undefined } | undefined;

  override docIdentity(): DocIdentity {
    const coll = coreCollectionId(this.spec.native);
    if (typeof this.key === 'bigint') return { coll, id: this.key };
    return { coll, id: this.pending?.id ?? this.namedId?.id, name: this.key };
  }

  override async prepareCompare(ctx: CallCtx): Promise<void> {
    const s = this.spec;
    if (typeof this.key !== 'string' || this.pending !== undefined || this.namedId !== undefined || !named(s)) return;
    this.namedId = { id: (await schemaAsOf(txnOf(ctx), this.db, this.readTs ?? readTimeOf(ctx))).get(s.native, this.key)?.id };
  }

  /** The ref v4 knows it by. */
  ref(): Ref {
    return typeof this.key === 'string' ? Ref.schema(this.spec.native, this.key) : new Ref(String(this.key), Ref.native(this.spec.native));
  }

  notFound(trace: Trace | null): QueryRuntimeFailure {
    const m = this.spec.module;
    return new QueryRuntimeFailure(
      'document_not_found',
      typeof this.key === 'string' ? `${m} \`${this.key}\` not found.` : `Collection \`${m}\` does not contain document with id ${this.key}.`,
      trace,
    );
  }

  /** What it names, in the schema as of `at` (µs; undefined: now). */
  async target(ctx: CallCtx, at?: bigint): Promise<Target> {
    const s = this.spec;
    if (typeof this.key === 'string' && named(s)) {
      const entry = (await schemaAsOf(txnOf(ctx), this.db, at)).get(s.native, this.key);
      return { kind: 'schema', db: this.db, native: s.native, name: this.key, entry, scoped: false };
    }
    return { kind: 'secretDoc', db: this.db, native: s.native as SecretNative, id: this.key as bigint, self: false, scoped: false };
  }

  async read(ctx: CallCtx): Promise<Read> {
    const span = frameSpan(ctx);
    if (this.deleted) return new NativeNullCause(this, 'deleted', span);
    if (this.pending !== undefined) return { ...this.pending, ts: TxnTime.instance };
    const tx = txnOf(ctx);
    const at = this.readTs ?? readTimeOf(ctx);
    const t = await this.target(ctx, at);
    if (t.kind === 'schema' && t.entry === undefined) return new NativeNullCause(this, 'not found', span);
    if (!(await allowed(tx, 'read', t))) return new NativeNullCause(this, 'permission denied', span);
    if (t.kind === 'schema') return { fields: t.entry!.fields, ts: t.entry!.ts, id: t.entry!.id };
    const doc = await readLive(tx, t, at);
    if (doc === null) return new NativeNullCause(this, 'not found', span);
    return { fields: doc.version.data ?? new Map(), ts: doc.version.ts, id: doc.key.id };
  }

  override async nullCause(ctx: CallCtx): Promise<NativeNullCause | undefined> {
    const r = await this.read(ctx);
    return r instanceof NativeNullCause ? r : undefined;
  }

  /** `name`/`id`, `coll`, `ts`, then the spec's fields (and what only the create shows). */
  private shown(r: Exclude<Read, NativeNullCause>): [string, Value | IdV | ModuleV][] {
    const out: [string, Value | IdV | ModuleV][] = [
      typeof this.key === 'string' ? ['name', this.key] : ['id', new IdV(this.key)],
      ['coll', companionOf(this.spec)],
      ['ts', r.ts instanceof TxnTime ? r.ts : Time.fromMicros(r.ts)],
    ];
    for (const [k, v] of this.spec.display(r.fields, r.id)) out.push([k, v]);
    if (this.once) for (const [k, v] of this.once) out.splice(secretAt(out), 0, [k, v]);
    return out;
  }

  async field(ctx: CallCtx, name: Name): Promise<FieldResult> {
    if (name.str === 'coll') return companionOf(this.spec);
    if (name.str === 'name' && typeof this.key === 'string') return this.key;
    if (name.str === 'id' && typeof this.key === 'bigint') return new IdV(this.key);
    const r = await this.read(ctx);
    if (r instanceof NativeNullCause) return new NullReceiver(r);
    const hit = this.shown(r).find(([k]) => k === name.str);
    return hit === undefined ? NullV.missingField(this, name) : shownRuntime(hit[1]);
  }

  async toStruct(ctx: CallCtx): Promise<Struct | NullV> {
    const r = await this.read(ctx);
    if (r instanceof NativeNullCause) return new NullV(r);
    return new Map(this.shown(r).map(([k, v]) => [k, shownRuntime(v)]));
  }

  async materialize(ctx: CallCtx): Promise<MValue> {
    const mod = new Module(this.spec.module);
    const ref = typeof this.key === 'string' ? new NamedRef(mod, this.key) : new DocRef(mod, String(this.key));
    const r = await this.read(ctx);
    if (r instanceof NativeNullCause) return new NullDoc(ref, r.reason);
    const fields: MObject = new Map();
    for (const [k, v] of this.shown(r)) fields.set(k, v instanceof IdV ? String(v.value) : isModule(v) ? mod : storedToResponse(v));
    return new Doc(ref, fields);
  }
}

/** Where a secret shown once goes: before `ttl` and `data` (the core's toDisplay version). */
function secretAt(out: [string, unknown][]): number {
  const i = out.findIndex(([k]) => k === 'ttl' || k === 'data');
  return i < 0 ? out.length : i;
}

function isModule(v: Value | IdV | ModuleV): v is ModuleV {
  return v instanceof ModuleV;
}

function shownRuntime(v: Value | IdV | ModuleV): RtValue {
  return v instanceof IdV || isModule(v) ? v : toRuntime(v);
}

// ---- writes ----

/** Runs a model write as the v10 language's (lambdas given as source are taken). */
async function asV10<T>(tx: TxnContext, fn: () => Promise<T>): Promise<T> {
  const was = tx.writingV10;
  tx.writingV10 = true;
  try {
    return await fn();
  } finally {
    tx.writingV10 = was;
  }
}

/** The summary of a refused create (`doc` undefined) or update (CollectionConfig.constraintViolationMessage). */
function writeSummary(spec: NativeSpec, doc: NativeDocV | undefined): string {
  if (doc === undefined) return `Failed to create ${spec.label}.`;
  return typeof doc.key === 'string' ? `Failed to update ${spec.label} \`${doc.key}\`.` : `Failed to update ${spec.label} with id ${doc.key}.`;
}

/** A function's or key's `role`, checked once the query has run (roleNames.ts); `role` undefined: deleted. */
async function roleCheck(ctx: CallCtx, spec: NativeSpec, db: bigint, key: string | bigint, role: Value | undefined, summary: string): Promise<void> {
  if (spec.native !== 'functions' && spec.native !== 'keys') return;
  // By the document's id, which a rename keeps.
  const id = typeof key === 'bigint' ? key : (await schemaOf(txnOf(ctx), db)).get('functions', key)?.id;
  if (id !== undefined) checkRoleLater(ctx, db, `${spec.native}:${id}`, role, summary);
}

/** A model refusal as the core's v10 failure: validation failures become constraint failures. */
function writeFailure(ctx: CallCtx, e: unknown, spec: NativeSpec, doc: NativeDocV | undefined, name?: Value): QueryRuntimeFailure {
  if (e instanceof QueryError) {
    const summary = writeSummary(spec, doc);
    if (e.code === 'validation failed' && e.failures?.length)
      return new QueryRuntimeFailure('constraint_failure', summary, ctx.trace, [], undefined, e.failures.map((f) => ({ paths: [f.field], message: f.description })));
    if (e.code === 'instance already exists' && named(spec))
      return new QueryRuntimeFailure('constraint_failure', summary, ctx.trace, [], undefined, [{ paths: [['name']], message: `A ${spec.label} already exists with the name \`${String(name)}\`` }]);
  }
  return fromModel(e, ctx.trace, doc && (() => doc.notFound(ctx.trace)));
}

/** Creates a native document from v10 fields; the value shows what only the create shows. */
export async function createNative(ctx: CallCtx, spec: NativeSpec, fields: Struct): Promise<NativeDocV> {
  requireWrite(ctx, 'create');
  const tx = txnOf(ctx);
  const db = tx.scope.db;
  const params = await spec.toModel(ctx, toStored(fields, ctx.trace) as Obj, true);
  let created: Obj;
  try {
    created = await asV10(tx, () => createDocument(tx, Ref.native(spec.native), params, []));
  } catch (e) {
    throw writeFailure(ctx, e, spec, undefined, params.get('name'));
  }
  const secret = created.get('secret');
  const once = typeof secret === 'string' ? new Map<string, Value>([['secret', secret]]) : undefined;
  const key = named(spec) ? String(created.get('name')) : BigInt((created.get('ref') as Ref).id);
  await roleCheck(ctx, spec, db, key, created.get('role'), writeSummary(spec, undefined));
  return new NativeDocV(spec, db, key, false, once);
}

async function writeNative(ctx: CallCtx, self: NativeDocV, fields: Struct, replace: boolean): Promise<NativeDocV> {
  requireWrite(ctx, replace ? 'replace' : 'update');
  const stored = toStored(fields, ctx.trace) as Obj;
  if (stored.has('secret')) throw readonlyField(ctx, self, 'secret');
  const params = await self.spec.toModel(ctx, stored, false);
  let out: Obj;
  try {
    const tx = txnOf(ctx);
    out = await asV10(tx, () => writeDocument(tx, self.ref(), params, replace, []));
  } catch (e) {
    throw await missingOr(ctx, e, self, () => writeFailure(ctx, e, self.spec, self, params.get('name')));
  }
  const name = out.get('name');
  const key = typeof self.key === 'string' && typeof name === 'string' ? name : self.key;
  await roleCheck(ctx, self.spec, self.db, key, out.get('role'), writeSummary(self.spec, self));
  return new NativeDocV(self.spec, self.db, key);
}

function readonlyField(ctx: CallCtx, self: NativeDocV, field: string): QueryRuntimeFailure {
  return new QueryRuntimeFailure('constraint_failure', writeSummary(self.spec, self), ctx.trace, [], undefined, [{ paths: [[field]], message: 'Failed to update field because it is readonly' }]);
}

/** A write to a named document that does not exist: the model cannot resolve its ref (`invalid ref`),
 *  the core answers document_not_found (`Database \`x\` not found.`). */
async function missingOr(ctx: CallCtx, e: unknown, self: NativeDocV, otherwise: () => QueryRuntimeFailure): Promise<QueryRuntimeFailure> {
  if (e instanceof QueryError && e.code === 'invalid ref' && (await self.nullCause(ctx)) !== undefined) return self.notFound(ctx.trace);
  return otherwise();
}

async function deleteNative(ctx: CallCtx, self: NativeDocV): Promise<NativeDocV> {
  requireWrite(ctx, 'delete');
  await roleCheck(ctx, self.spec, self.db, self.key, undefined, '');
  try {
    await deleteDocument(txnOf(ctx), self.ref(), []);
  } catch (e) {
    throw await missingOr(ctx, e, self, () => writeFailure(ctx, e, self.spec, self));
  }
  return new NativeDocV(self.spec, self.db, self.key, true);
}

// ---- tables ----

const tables = new Map<NativeSpec, FieldTable>();

function tableOf(spec: NativeSpec): FieldTable {
  let t = tables.get(spec);
  if (t !== undefined) return t;
  t = baseTable(spec.docType);
  tables.set(spec, t);
  t.dynGet = (ctx, self: NativeDocV, name) => self.field(ctx, name);
  t.field('coll', () => companionOf(spec));
  t.access(p('key', tt.Str), (ctx, self: NativeDocV, key: string, span) => self.field(ctx, { str: key, span }));
  t.method('exists', [], async (ctx, self: NativeDocV) => (await self.nullCause(ctx)) === undefined);
  t.method('update', [p('data', tt.Struct)], (ctx, self: NativeDocV, [d]: Struct[]) => writeNative(ctx, self, d, false));
  t.method('replace', [p('data', tt.Struct)], (ctx, self: NativeDocV, [d]: Struct[]) => writeNative(ctx, self, d, true));
  t.method('delete', [], (ctx, self: NativeDocV) => deleteNative(ctx, self));
  return t;
}

/** Methods a native module adds to its documents (`login`, `verify`). */
export function nativeDocTable(spec: NativeSpec): FieldTable {
  return tableOf(spec);
}

// ---- the companions ----

/** Every document of a native collection the caller may read, in id order. */
export class NativeDocsSet extends ValueSet {
  readonly streamRefusal = undefined;
  constructor(
    readonly spec: NativeSpec,
    readonly db: bigint,
    readonly range: IdRange = {},
  ) {
    super();
  }

  override readsFullStorageSet(): boolean {
    return true;
  }

  private async docs(ctx: CallCtx): Promise<NativeDocV[]> {
    const tx = txnOf(ctx);
    const spec = this.spec;
    const out: NativeDocV[] = [];
    const at = readTimeOf(ctx);
    if (named(spec)) {
      const entries = (await schemaAsOf(tx, this.db, at)).all(spec.native).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      for (const e of entries) if (inIdRange(e.id, this.range)) out.push(new NativeDocV(spec, this.db, e.name));
    } else {
      const { from, to } = this.range;
      const ids = { fromId: from, toId: to === undefined ? undefined : to + 1n };
      for await (const d of tx.txn.scan(this.db, nativeCollId(spec.native), { at, ...ids })) out.push(new NativeDocV(spec, this.db, d.id));
    }
    const visible: NativeDocV[] = [];
    for (const d of out) if (await allowed(tx, 'read', await d.target(ctx, at))) visible.push(d);
    return visible;
  }

  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    const page = await new ArraySet(await this.docs(ctx)).paginateImpl(ctx, count, cont);
    const retok = (t: { cont: RtValue[] | null }) => ({ set: this, cont: t.cont });
    return { elems: page.elems.map((e) => ({ value: e.value, tok: () => retok(e.tok()) })), after: page.after && retok(page.after) };
  }
}

function nativeCollId(native: NativeName): number {
  return NATIVE_IDS[native];
}

const companions = new Map<NativeSpec, { module: ModuleV; table: FieldTable }>();
const specsByModule = new Map<string, NativeSpec>();
const specsByNative = new Map<NativeName, NativeSpec>();

/** The spec of a native collection by its module name (cursors name it so). */
export function nativeSpecOf(module: string): NativeSpec | undefined {
  return specsByModule.get(module);
}

/** The spec of a native collection by the model's name for it (`tokens`: Token). */
export function nativeSpecFor(native: NativeName): NativeSpec | undefined {
  return specsByNative.get(native);
}

function companionOf(spec: NativeSpec): ModuleV {
  return nativeCompanion(spec).module;
}

function checkPred(ctx: CallCtx, f: Func): void {
  if (!arityAccepts(f.arity, 1)) throw Failures.invalidFuncParamArity('pred', 1, f.arity, ctx.trace);
}

/** The companion module of a native collection (its `create`, `all`, `byName` / `byId`, …). */
export function nativeCompanion(spec: NativeSpec): { module: ModuleV; table: FieldTable } {
  let c = companions.get(spec);
  if (c !== undefined) return c;
  const also = spec.alsoContains;
  const t = baseTable(spec.module);
  c = { module: new ModuleV(spec.module, t, (v) => (v instanceof NativeDocV && v.spec === spec) || (also !== undefined && also(v))), table: t };
  companions.set(spec, c);
  specsByModule.set(spec.module, spec);
  specsByNative.set(spec.native, spec);
  const db = (ctx: CallCtx) => txnOf(ctx).scope.db;
  const all = (ctx: CallCtx) => new NativeDocsSet(spec, db(ctx));
  t.method('all', [], (ctx) => all(ctx));
  t.method('all', [p('range', tt.Struct)], async (ctx, _s, [r]: Struct[]) => new NativeDocsSet(spec, db(ctx), await idRangeOf(ctx, r)));
  t.method('where', [p('pred', tt.Function)], (ctx, _s, [f]: Func[]) => {
    collectionScan(ctx, spec.module, 'where');
checkPred(ctx, f);
    return new WhereFilterSet(all(ctx), f, ctx.validTime, ctx.trace);
  });
  t.method('firstWhere', [p('pred', tt.Function)], (ctx, _s, [f]: Func[]) => {
    collectionScan(ctx, spec.module, 'firstWhere');
checkPred(ctx, f);
    return new WhereFilterSet(all(ctx), f, ctx.validTime, ctx.trace).first(ctx);
  });
  t.method('create', [p('data', tt.Struct)], (ctx, _s, [d]: Struct[]) => createNative(ctx, spec, d));
  t.method('toString', [], () => spec.module);
  if (named(spec)) t.method('byName', [p('name', tt.Str)], (ctx, _s, [n]: string[]) => new NativeDocV(spec, db(ctx), n, false, undefined, readTimeOf(ctx)));
  else {
    const byId = (ctx: CallCtx, id: IdV) => new NativeDocV(spec, db(ctx), id.value, false, undefined, readTimeOf(ctx));
    t.method('byId', [p('id', tt.ID)], (ctx, _s, [id]: IdV[]) => byId(ctx, id));
    t.apply([p('id', tt.ID)], (ctx, _s, [id]: IdV[]) => byId(ctx, id));
  }
  return c;
}

/** The read check a native module's own methods make (`Token.byDocument`, `credential.login`). */
export async function checkNativeRead(ctx: CallCtx, doc: NativeDocV): Promise<void> {
  try {
    await checkAccess(txnOf(ctx), 'read', await doc.target(ctx), []);
  } catch (e) {
    throw fromModel(e, ctx.trace);
  }
}

/** A stored ref to a named schema document as the name v10 shows (a role, a database). */
export function nameOf(v: Value): Value {
  if (Array.isArray(v)) return v.map(nameOf);
  return v instanceof Ref && v.collection !== undefined && !v.isUserDocument ? v.id : v;
}

/** The stored fields `keys` that are there, in that order, each through `show`. */
export function shownFields(fields: Obj, keys: readonly string[], show: (k: string, v: Value) => Value = (_k, v) => v): [string, Value][] {
  const out: [string, Value][] = [];
  for (const k of keys) if (fields.has(k)) out.push([k, show(k, fields.get(k) as Value)]);
  return out;
}

/** The v10 fields a native write passes on, renamed where the model names them otherwise. */
export function modelParams(fields: Obj, keys: readonly string[], renamed: Readonly<Record<string, string>> = {}): Obj {
  const out: Obj = new Map();
  for (const [k, v] of fields) if (keys.includes(k)) out.set(renamed[k] ?? k, v);
  return out;
}
