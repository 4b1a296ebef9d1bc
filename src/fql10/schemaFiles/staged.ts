// Staged schema pushes (the core's SchemaStatus: pin, commit, abandon; SchemaIndexStatus and
// StagedDiff for status). A staged push keeps its files aside (model/schemaStaged.ts) and starts
// building, as hidden index documents, the indexes it adds to collections that already exist, so
// that the active schema keeps serving unchanged; commit applies the files in one transaction once
// those indexes are built (the collections take them over, backing.ts), abandon drops them.
// Indexes of collections the staged files create, and unique constraints, are built at commit:
// a new collection is empty, and a unique index would already refuse writes of the active schema.

import type { TxnContext } from '../../model/context';
import { backingIndexWriter } from '../../model/documents';
import { schemaOf } from '../../model/resolve';
import { backingIndexesOf, backingKey, createBackingIndex, userIndexSpec } from '../../model/schema10/backing';
import { readStagedSchema, writeStagedSchema, type StagedIndex } from '../../model/schemaStaged';
import type { SourceText } from '../../model/schemaSources';
import type { Obj } from '../../values/types';
import type { SchemaItem } from '../fsl/ast';
import { itemDefinition } from '../fsl/definition';
import { parseSchemaFiles, parseSchemaItems, renderSchemaErrors } from '../fsl/index';
import type { Renames } from './itemChanges';
import { pushSchema } from './push';
import { SchemaRefused } from './refused';

/** SchemaIndexStatus, with `none` for nothing staged. */
export type StagedStatus = 'none' | 'pending' | 'ready' | 'failed';

/**
 * What the staged files rename once `renames` (of staged items) are added: each item's new key to
 * its active name, through renames staged before; an item renamed again keeps only its last rename.
 */
export async function stagedRenames(tx: TxnContext, renames: Renames = new Map()): Promise<Renames> {
  const kept = new Map((await readStagedSchema(tx, tx.scope.db))?.renames ?? []);
  for (const [key, old] of renames) {
    const oldKey = `${key.slice(0, key.indexOf(':'))}:${old}`;
    const active = kept.get(oldKey) ?? old;
    kept.delete(oldKey);
    kept.set(key, active);
  }
  return kept;
}

/** Stages `files` (already checked against the database; renaming items as `renames`, from stagedRenames) in place of any staged schema. */
export async function stageSchema(tx: TxnContext, files: ReadonlyArray<SourceText>, renames: Renames = new Map()): Promise<void> {
  const parsed = parseSchemaFiles(files);
  if (!parsed.ok) throw new SchemaRefused(renderSchemaErrors(parsed.errors));
  const db = tx.scope.db;
  const schema = await schemaOf(tx, db);
  const before = (await readStagedSchema(tx, db))?.indexes ?? [];
  const writer = backingIndexWriter(tx, db);
  const indexes: StagedIndex[] = [];
  for (const item of parsed.value) {
    if (item.kind !== 'collection') continue;
    const collection = item.name.str;
    const active = schema.get('collections', collection);
    if (active === undefined) continue;
    const built = new Set(backingIndexesOf(active.fields).map(backingKey));
    const wanted = itemDefinition(item).get('indexes');
    if (!(wanted instanceof Map)) continue;
    for (const [name, def] of wanted) {
      const spec = userIndexSpec(def as Obj);
      const key = backingKey(spec);
      if (built.has(key) || indexes.some((i) => i.collection === collection && i.key === key)) continue;
      // A replaced staged schema keeps what its predecessor has built already.
      const kept = before.find((i) => i.collection === collection && i.key === key && schema.get('indexes', i.index));
      indexes.push(kept ? { ...kept, name } : { collection, name, key, index: await createBackingIndex(writer, collection, spec, []) });
    }
  }
  for (const i of before) if (!indexes.some((x) => x.index === i.index)) await writer.remove(i.index, []);
  writeStagedSchema(tx, db, { files: [...files], indexes, ...(renames.size > 0 ? { renames: [...renames] } : {}) });
}

/** One staged index's state: CollectionIndex.Status (`failed`: its index document is gone). */
async function indexStates(tx: TxnContext, indexes: ReadonlyArray<StagedIndex>): Promise<{ index: StagedIndex; state: 'building' | 'complete' | 'failed' }[]> {
  const schema = await schemaOf(tx, tx.scope.db);
  return indexes.map((index) => {
    const entry = schema.get('indexes', index.index);
    return { index, state: entry === undefined ? 'failed' : entry.fields.get('active') === true ? 'complete' : 'building' };
  });
}

/** The staged schema's aggregate state, and the core's pending summary (SchemaStagedDiff.pendingSummary). */
export async function stagedStatus(tx: TxnContext): Promise<{ status: StagedStatus; pendingSummary: string }> {
  const staged = await readStagedSchema(tx, tx.scope.db);
  if (staged === undefined) return { status: 'none', pendingSummary: '' };
  const states = await indexStates(tx, staged.indexes);
  const status = states.some((s) => s.state === 'failed') ? 'failed' : states.some((s) => s.state === 'building') ? 'pending' : 'ready';
  let pendingSummary = '';
  const unfinished = states.filter((s) => s.state !== 'complete');
  for (const coll of new Set(unfinished.map((s) => s.index.collection))) {
    pendingSummary += `* Collection ${coll}:`;
    for (const s of unfinished.filter((x) => x.index.collection === coll)) pendingSummary += `\n  ${s.state === 'failed' ? '!' : '~'} index ${s.index.name}: ${s.state}`;
    pendingSummary += '\n';
  }
  return { status, pendingSummary };
}

/** The staged files, or undefined when nothing is staged. */
export async function stagedFiles(tx: TxnContext): Promise<SourceText[] | undefined> {
  return (await readStagedSchema(tx, tx.scope.db))?.files;
}

/** The staged files' items (for diffs against them, and where their items are). */
export function stagedItems(files: ReadonlyArray<SourceText>): SchemaItem[] {
  return files.flatMap((f) => {
    const r = parseSchemaItems(f.text, f.name);
    return r.ok ? r.value : [];
  });
}

/** SchemaStatus.commit: the staged files applied, once every staged index is built. */
export async function commitStaged(tx: TxnContext): Promise<void> {
  const db = tx.scope.db;
  const staged = await readStagedSchema(tx, db);
  if (staged === undefined) throw new SchemaRefused(['There is no staged schema to commit']);
  const { status } = await stagedStatus(tx);
  if (status === 'pending') throw new SchemaRefused(['Cannot commit schema before it is in the `ready` state. Check schema status for details.']);
  if (status === 'failed') throw new SchemaRefused(['Cannot commit schema in the `failed` state. Check schema status for details.']);
  await pushSchema(tx, staged.files, new Map(staged.renames ?? []));
  // What the collections did not take over (an index the push dropped again) goes.
  await dropStagedIndexes(tx);
  writeStagedSchema(tx, db, null);
}

/** SchemaStatus.abandon: the staged files and the indexes built for them are dropped. */
export async function abandonStaged(tx: TxnContext): Promise<void> {
  const db = tx.scope.db;
  if ((await readStagedSchema(tx, db)) === undefined) throw new SchemaRefused(['There is no staged schema to abandon']);
  await dropStagedIndexes(tx);
  writeStagedSchema(tx, db, null);
}

async function dropStagedIndexes(tx: TxnContext): Promise<void> {
  const db = tx.scope.db;
  const writer = backingIndexWriter(tx, db);
  for (const i of (await readStagedSchema(tx, db))?.indexes ?? []) await writer.remove(i.index, []);
}
