// Document writes (WriteBroker): create, update, replace and delete through model/documents.ts, so
// v4 sees them and every v4 rule applies (permissions, schema enforcement, indexes, ttl). Default
// mode splits the given fields into the document's own (`id` on create, `ttl`) and its data;
// the `…Data` methods write every field as data.

import { QueryError } from '../../values/errors';
import { Ref, type Obj, type Value } from '../../values/types';
import type { SchemaEntry } from '../../model/catalog';
import { createDocument, deleteDocument, writeDocument } from '../../model/documents';
import { UniqueViolation } from '../../model/indexMaintenance';
import { backingIndexesOf } from '../../model/schema10/backing';
import { parseFieldPath } from '../../model/schema10/definition';
import type { ConstraintFailure } from '../../wire/v10/envelope';
import { QueryRuntimeFailure } from '../runtime/failure';
import type { CallCtx } from '../runtime/table';
import { IdV, SmallLong, type RtValue, type Struct } from '../runtime/values';
import { toStored } from './convert';
import { DocV, documentNotFound } from './docs';
import { noteCollectionWrite } from './collectionWrites';
import { fromModel, requireWrite } from './errors';
import { txnOf } from './hooks';

/** The model's params `{data, ttl}` for fields given in the default mode or as plain data. */
function params(ctx: CallCtx, fields: Struct, plainData: boolean): Obj {
  const stored = toStored(fields, ctx.trace) as Obj;
  if (plainData) return new Map([['data', stored]]);
  const out: Obj = new Map();
  const data: Obj = new Map();
  for (const [k, v] of stored) {
    if (k === 'ttl') out.set('ttl', v);
    else if (k !== 'id') data.set(k, v);
  }
  out.set('data', data);
  return out;
}

/** The id a create asks for (getOrMakeID), or undefined to make one. */
function chosenId(ctx: CallCtx, fields: Struct, plainData: boolean): bigint | undefined {
  if (plainData || !fields.has('id')) return undefined;
  const v = fields.get('id')!;
  const id = v instanceof IdV || v instanceof SmallLong ? v.value : typeof v === 'bigint' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? BigInt(v) : undefined;
  if (id === undefined)
    throw new QueryRuntimeFailure('constraint_failure', 'Failed to create document in collection.', ctx.trace, [], undefined, [
      { paths: [['id']], message: 'Expected ID | String | Long' },
    ]);
  if (id < 0n) throw new QueryRuntimeFailure('constraint_failure', 'Failed to create document in collection.', ctx.trace, [], undefined, [{ paths: [['id']], message: 'id must be nonnegative' }]);
  return id;
}

/** Unique indexes refused the write (WriteBroker.mapUniqueConstraintError): one failure per index,
 *  a unique constraint's naming its fields, a v4 unique index's its name (in the summary only). */
function uniqueFailure(ctx: CallCtx, entry: SchemaEntry, indexes: readonly string[]): QueryRuntimeFailure {
  const backing = backingIndexesOf(entry.fields);
  const failures = indexes.map((name): ConstraintFailure => {
    const b = backing.find((x) => x.index === name && x.unique);
    if (b === undefined) return { paths: [], message: 'Failed unique constraint', label: name };
    return { paths: b.terms.map((t) => parseFieldPath(t.field) ?? [t.field]), message: 'Failed unique constraint' };
  });
  return new QueryRuntimeFailure('constraint_failure', 'Failed unique constraint.', ctx.trace, [], undefined, failures);
}

function failure(ctx: CallCtx, e: unknown, entry: SchemaEntry, doc?: DocV): QueryRuntimeFailure {
  if (e instanceof UniqueViolation) return uniqueFailure(ctx, entry, e.indexes);
  return fromModel(e, ctx.trace, doc === undefined ? undefined : () => documentNotFound(doc, ctx.trace));
}

export async function createDoc(ctx: CallCtx, db: bigint, entry: SchemaEntry, fields: Struct, plainData: boolean): Promise<DocV> {
  requireWrite(ctx, 'create');
  const id = chosenId(ctx, fields, plainData);
  const tx = txnOf(ctx);
  const ref = id === undefined ? Ref.collection(entry.name) : Ref.doc(entry.name, String(id));
  let created: Obj;
  try {
    created = await createDocument(tx, ref, params(ctx, fields, plainData), [], { idAlsoNeedsCreate: true });
  } catch (e) {
    if (e instanceof QueryError && e.code === 'instance already exists')
      throw new QueryRuntimeFailure('document_id_exists', `Collection \`${entry.name}\` already contains document with id ${id}.`, ctx.trace);
    throw failure(ctx, e, entry);
  }
  noteCollectionWrite(ctx, db, entry.id, 'document');
  const r = created.get('ref') as Value;
  return new DocV(db, entry.id, entry.name, BigInt((r as Ref).id));
}

export async function writeDoc(ctx: CallCtx, doc: DocV, fields: Struct, action: 'update' | 'replace', plainData: boolean): Promise<RtValue> {
  requireWrite(ctx, action);
  const entry = await doc.entry(ctx);
  if (entry === undefined) throw documentNotFound(doc, ctx.trace);
  const tx = txnOf(ctx);
  try {
    await writeDocument(tx, doc.storedRef(), params(ctx, fields, plainData), action === 'replace', []);
  } catch (e) {
    throw failure(ctx, e, entry, doc);
  }
  noteCollectionWrite(ctx, doc.db, doc.collId, 'document');
  return new DocV(doc.db, doc.collId, entry.name, doc.id);
}

export async function deleteDoc(ctx: CallCtx, doc: DocV): Promise<RtValue> {
  requireWrite(ctx, 'delete');
  const entry = await doc.entry(ctx);
  if (entry === undefined) throw documentNotFound(doc, ctx.trace);
  try {
    await deleteDocument(txnOf(ctx), doc.storedRef(), []);
  } catch (e) {
    throw failure(ctx, e, entry, doc);
  }
  noteCollectionWrite(ctx, doc.db, doc.collId, 'document');
  return new DocV(doc.db, doc.collId, entry.name, doc.id, undefined, true);
}
