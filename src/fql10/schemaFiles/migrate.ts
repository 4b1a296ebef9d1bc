// The migrations of a schema push (the core's MigrationDeriver and MigrationConverter): each
// collection the push changes has its `migrations` block checked against the live schema (only
// against itself when the collection is new or has no documents: those need no migration), and
// once the push has written the new definitions, the derived steps rewrite the documents
// (model/schema10/migrations.ts), backfill values evaluated once each as the core does. A
// collection changed through FQL (Collection.update, replace) is migrated the same way, from its
// definition before the query to the one after (migrateToDefinition).

import type { TxnContext } from '../../model/context';
import { schemaOf } from '../../model/resolve';
import { definitionOf } from '../../model/schema10/api';
import { migrateDocuments, MigrationConflict, type Migration } from '../../model/schema10/migrations';
import { displayPath, displayType, validate, type SchemaType } from '../../model/schema10/schemaType';
import { QueryError } from '../../values/errors';
import type { Obj, Value } from '../../values/types';
import type { Expr } from '../ast';
import { error, renderDiagnostic, type Diagnostic } from '../diagnostic';
import type { Collection, FieldPath } from '../fsl/ast';
import { QueryRuntimeFailure } from '../runtime/failure';
import { displayExpr } from '../fsl/display';
import { collectionFromDefinition } from '../fsl/fromDefinition';
import { renderSchemaErrors } from '../fsl/index';
import { deriveMigrations, type MigrationResult, type SchemaMigration } from './migrationValidator';
import type { ItemDiff } from './push';
import { SchemaRefused } from './refused';

export interface PlannedMigration {
  /** The collection as submitted. */
  readonly item: Collection;
  readonly steps: ReadonlyArray<SchemaMigration>;
}

/** The migrations `diffs` call for; refuses the push with the core's errors when a block is wrong. */
export async function planMigrations(tx: TxnContext, diffs: ReadonlyArray<ItemDiff>): Promise<PlannedMigration[]> {
  const errors: Diagnostic[] = [];
  const plans: PlannedMigration[] = [];
  for (const d of diffs) {
    if (d.kind === 'remove' || d.item.kind !== 'collection') continue;
    const live = d.kind === 'modify' && d.before.kind === 'collection' ? d.before : null;
    const r = await derive(tx, live, d.item, live && (await collectionId(tx, live.name.str)));
    if (!r.ok) errors.push(...r.errors);
    else if (r.value.length > 0) plans.push({ item: d.item, steps: r.value });
  }
  if (errors.length) throw new SchemaRefused(renderSchemaErrors(errors));
  return plans;
}

/**
 * The steps taking collection `live`'s documents to `submitted` (SchemaValidate.validateMigrations,
 * for a diff's modification); refuses with the core's errors when the block is wrong.
 */
export async function migrationsFor(tx: TxnContext, live: Collection, submitted: Collection): Promise<SchemaMigration[]> {
  const r = await derive(tx, live, submitted, await collectionId(tx, live.name.str));
  if (!r.ok) throw new SchemaRefused(renderSchemaErrors(r.errors));
  return r.value;
}

const collectionId = async (tx: TxnContext, name: string): Promise<bigint | undefined> => (await schemaOf(tx, tx.scope.db)).get('collections', name)?.id;

/** deriveMigrations against `live` (collection `id`) when it has documents; a new or empty collection needs none (its block is only checked). */
async function derive(tx: TxnContext, live: Collection | null, submitted: Collection, id: bigint | null | undefined): Promise<MigrationResult> {
  const full = live !== null && typeof id === 'bigint' && !(await isEmpty(tx, id));
  const r = deriveMigrations(full ? live : null, submitted);
  return r.ok && !full ? { ok: true, value: [] } : r;
}

async function isEmpty(tx: TxnContext, coll: bigint): Promise<boolean> {
  for await (const _ of tx.txn.scan(tx.scope.db, Number(coll))) return false;
  return true;
}

/** Runs `plans` on the collections as the push left them; what fails refuses the push. */
export async function runMigrations(tx: TxnContext, plans: ReadonlyArray<PlannedMigration>): Promise<void> {
  for (const plan of plans) {
    try {
      await applySteps(tx, plan.item.name.str, plan.steps);
    } catch (e) {
      if (e instanceof BackfillMismatch)
        throw new SchemaRefused([renderDiagnostic(error(`Invalid database schema update.\n    error: Failed to convert backfill value.\n    constraint failures:\n${e.failures}\n    at <no source>`, plan.item.span))]);
      if (e instanceof QueryRuntimeFailure || e instanceof QueryError || e instanceof MigrationConflict) throw new SchemaRefused([e.message]);
      throw e;
    }
  }
}

/** `steps` run on the documents of collection `name` (as the database has it now). */
async function applySteps(tx: TxnContext, name: string, steps: ReadonlyArray<SchemaMigration>): Promise<void> {
  const db = tx.scope.db;
  const entry = (await schemaOf(tx, db)).get('collections', name);
  if (entry === undefined) return;
  const converted: Migration[] = [];
  for (const m of steps) converted.push(...(await convert(tx, name, m)));
  await migrateDocuments(tx, db, entry, converted, []);
}

/** Collection.update's migrations refused (TypeEnvValidator.mkFailure): the core's errors, each line indented. */
export class MigrationRefused extends Error {
  constructor(readonly detail: string) {
    super(`Invalid database schema update.\n${detail}`);
  }
}

const indented = (lines: ReadonlyArray<string>): string => lines.flatMap((l) => l.trim().split('\n')).map((l) => `    ${l}`).join('\n');

/**
 * Collection `id` (of the transaction's database) taken from definition `live` (as the query found
 * it; null: the query created it, and its block is only checked) to the definition it has now, as a push would (MigrationDeriver, for Collection.update and
 * replace): the derived steps run on its documents. A block that does not fit, a backfill not of
 * its field's type or a step that would overwrite a value throws MigrationRefused.
 */
export async function migrateToDefinition(tx: TxnContext, id: bigint, live: Obj | null): Promise<void> {
  const entry = (await schemaOf(tx, tx.scope.db)).all('collections').find((e) => e.id === id);
  if (entry === undefined) return; // deleted by the query
  const now = await definitionOf(tx, tx.scope.db, entry.name);
  if (now === undefined) return;
  const r = await derive(tx, live && collectionFromDefinition(live), collectionFromDefinition(now), id);
  if (!r.ok) throw new MigrationRefused(indented(r.errors.map((d) => renderDiagnostic(d))));
  try {
    await applySteps(tx, entry.name, r.value);
  } catch (e) {
    if (e instanceof BackfillMismatch) throw new MigrationRefused(`    error: Failed to convert backfill value.\n    constraint failures:\n${e.failures}\n    at <no source>`);
    if (e instanceof QueryError || e instanceof MigrationConflict) throw new MigrationRefused(indented([e.message]));
    throw e;
  }
}

/** A backfill value not of its field's type: the constraint failures, one indented line each. */
class BackfillMismatch extends Error {
  constructor(readonly failures: string) {
    super(failures);
  }
}

const names = (p: FieldPath): string[] => p.elems.map((e) => (e.kind === 'field' ? e.name : String(e.index)));

/** One derived migration as document steps (MigrationConverter.fromFSL). */
async function convert(tx: TxnContext, coll: string, m: SchemaMigration): Promise<Migration[]> {
  switch (m.kind) {
    case 'add':
      return [{ kind: 'add', path: names(m.field), type: displayType(m.ty), value: await backfill(tx, coll, m.backfill, m.ty, names(m.field)) }];
    case 'drop':
      return [{ kind: 'drop', path: names(m.field) }];
    case 'move':
      return [{ kind: 'move', from: names(m.field), to: names(m.to) }];
    case 'split': {
      const out: Migration[] = [];
      const [head] = m.targets;
      // The first target takes the source's place: the same field, or a move.
      if (names(m.source).join('.') !== names(head.path).join('.')) out.push({ kind: 'move', from: names(m.source), to: names(head.path) });
      for (let i = 0; i + 1 < m.targets.length; i++) {
        const from = m.targets[i];
        const to = m.targets[i + 1];
        out.push({
          kind: 'split',
          field: names(from.path),
          spill: names(to.path),
          type: displayType(from.ty),
          fieldBackfill: await backfill(tx, coll, from.backfill, from.ty, names(from.path)),
          spillBackfill: await backfill(tx, coll, to.backfill, null, names(to.path)),
        });
      }
      return out;
    }
    case 'move_conflicts':
      return [{ kind: 'move_conflicts', into: names(m.into) }];
    case 'move_wildcard':
      return [{ kind: 'move_wildcard', into: names(m.into), keep: m.keep }];
    case 'add_wildcard':
      return [];
  }
}

/** A backfill (or default) evaluated, and checked against the field's type when it has one. */
async function backfill(tx: TxnContext, coll: string, expr: Expr | null, ty: SchemaType | null, path: string[]): Promise<Value> {
  if (expr === null) return null;
  const lang = tx.schemaLanguage;
  if (lang === undefined) throw new Error('migrations need the FQL v10 language loaded');
  const v = await lang.evalDefault(tx, displayExpr(expr), `*migration:${coll}*`);
  const failures = ty === null ? [] : validate(ty, path, v);
  if (failures.length) throw new BackfillMismatch(failures.map((f) => `      ${displayPath(f.paths[0] ?? path)}: ${f.message}`).join('\n'));
  return v;
}
