// A schema push applied at once (SchemaManager.update, staged=false, override mode): the files are
// parsed and checked, compared with what the database holds, and the items created, replaced and
// deleted to match them, in the caller's transaction, through the same FQL that Collection.create,
// Function.byName(..).replace and the like run (so every check of theirs holds); then the files
// are kept as pushed. Items the files do not name are deleted: the files are the whole schema.
// Collections' migrations are checked first and run on their documents last (migrate.ts).

import type { TxnContext } from '../../model/context';
import { writeSchemaSources, type SourceText } from '../../model/schemaSources';
import type { Obj, Value } from '../../values/types';
import type { SchemaItem } from '../fsl/ast';
import { itemDefinition } from '../fsl/definition';
import type { TakenNames } from '../fsl/fromDefinition';
import { parseSchemaFiles, renderSchemaErrors } from '../fsl/index';
import { evaluate } from '../eval/evaluate';
import { parseQuery } from '../parser';
import { TxnHooks } from '../run/hooks';
import { storeLanguage } from '../run/storePlugs';
import type { RtValue } from '../runtime/values';
import { toRuntime } from '../store/convert';
import { currentSchema, normalForm } from './current';
import { itemKey, renamedKey, type Renames } from './itemChanges';
import { planMigrations, runMigrations } from './migrate';
import { SchemaRefused } from './refused';

export type ItemDiff =
  | { readonly kind: 'add'; readonly item: SchemaItem }
  | { readonly kind: 'remove'; readonly item: SchemaItem }
  | { readonly kind: 'modify'; readonly before: SchemaItem; readonly item: SchemaItem };

/** The files' items against the database's (SchemaDiff.diffItems). */
export async function diffSchema(tx: TxnContext, files: ReadonlyArray<SourceText>, renames: Renames = new Map()): Promise<ItemDiff[]> {
  const { items, taken } = await currentSchema(tx);
  return diffItems(items, taken, files, renames);
}

/** The files' items against `before` (items whose names are `taken`); a renamed item modifies the one it renames. */
function diffItems(before: ReadonlyArray<SchemaItem>, taken: TakenNames, files: ReadonlyArray<SourceText>, renames: Renames): ItemDiff[] {
  const parsed = parseSchemaFiles(files);
  if (!parsed.ok) throw new SchemaRefused(renderSchemaErrors(parsed.errors));
  const keys = new Set(before.map(itemKey));
  const after = new Map(parsed.value.map((i) => [renamedKey(i, renames, keys), i]));
  const diffs: ItemDiff[] = [];
  for (const b of before) {
    const a = after.get(itemKey(b));
    if (a === undefined) diffs.push({ kind: 'remove', item: b });
    else if (a.name.str !== b.name.str || normalForm(a, taken) !== normalForm(b, taken)) diffs.push({ kind: 'modify', before: b, item: a });
    after.delete(itemKey(b));
  }
  for (const a of after.values()) diffs.push({ kind: 'add', item: a });
  return diffs;
}

const MODULE = { collection: 'Collection', function: 'Function', role: 'Role', 'access provider': 'AccessProvider' } as const;
/** Removals first, dependants before what they name; then writes, what is named before its dependants. */
const REMOVE_ORDER = ['access provider', 'role', 'function', 'collection'] as const;
const WRITE_ORDER = ['collection', 'function', 'role', 'access provider'] as const;

/** Applies `files` to the transaction's database; returns what changed. A renamed item keeps its document (a collection its documents and id). */
export async function pushSchema(tx: TxnContext, files: ReadonlyArray<SourceText>, renames: Renames = new Map()): Promise<ItemDiff[]> {
  const diffs = await diffSchema(tx, files, renames);
  const migrations = await planMigrations(tx, diffs);
  const lines: string[] = [];
  const vars = new Map<string, RtValue>();
  const bind = (v: Value): string => {
    const name = `a${vars.size}`;
    vars.set(name, toRuntime(v));
    return name;
  };
  for (const kind of REMOVE_ORDER) {
    for (const d of diffs) if (d.kind === 'remove' && d.item.kind === kind) lines.push(`${MODULE[kind]}.byName(${bind(d.item.name.str)})!.delete()`);
  }
  // A function's role may be one this push creates: the role is set once the roles are written.
  const roleLater: string[] = [];
  for (const kind of WRITE_ORDER) {
    for (const d of diffs) {
      if (d.kind === 'remove' || d.item.kind !== kind) continue;
      const def: Obj = itemDefinition(d.item);
      const role = def.get('role');
      if (kind === 'function' && role !== undefined) {
        def.delete('role');
        roleLater.push(`Function.byName(${bind(d.item.name.str)})!.update({ role: ${bind(role)} })`);
      }
      if (d.kind === 'add') lines.push(`${MODULE[kind]}.create(${bind(def)})`);
      else lines.push(`${MODULE[kind]}.byName(${bind(d.before.name.str)})!.replace(${bind(def)})`);
    }
    if (kind === 'role') lines.push(...roleLater.splice(0));
  }
  lines.push('null');
  const parsed = parseQuery(lines.join('\n'));
  if (!parsed.ok) throw new Error(`schema push query does not parse: ${parsed.errors.map((e) => e.message).join('; ')}`);
  const out = await evaluate(parsed.value, vars, new TxnHooks(tx, { ...storeLanguage(), schemaPush: true }));
  if (!out.ok) {
    const f = out.failure;
    const cfs = 'constraintFailures' in f ? f.constraintFailures ?? [] : [];
    throw new SchemaRefused([f.message, ...cfs.map((c) => c.message)]);
  }
  await runMigrations(tx, migrations);
  writeSchemaSources(tx, tx.scope.db, files);
  return diffs;
}
