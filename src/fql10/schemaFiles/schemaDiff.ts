// The diffs the schema API answers (SchemaManager.validate and stagedDiff, rendered by
// SchemaRequest.DiffFormat): from the files the database answers (the active ones, or the staged
// ones) to the files proposed, or from the active files to the staged ones. Items are compared as
// their files write them; a collection whose active file does not write `history_days` has the
// days the database keeps (SchemaValidate.fillDefaults).

import type { TxnContext } from '../../model/context';
import type { SourceText } from '../../model/schemaSources';
import type { SchemaItem } from '../fsl/ast';
import { parseSchemaFiles, renderSchemaErrors } from '../fsl/index';
import type { ColorKind } from './colorText';
import { currentSchema } from './current';
import { renderSemantic, renderSummary, renderTextual, type DiffFormat } from './diffRender';
import { activeSchema } from './files';
import { diffSchemaItems, itemView, type Renames, type SchemaItemDiff, type ViewedItem } from './itemChanges';
import { migrationsFor } from './migrate';
import { SchemaRefused } from './refused';
import { stagedItems, stagedRenames } from './staged';

export interface DiffStyle {
  readonly format: DiffFormat;
  readonly color: ColorKind;
}

/** One side of a diff: its files, and their items as the diff sees them. */
interface Side {
  readonly files: ReadonlyArray<SourceText>;
  readonly items: ReadonlyArray<ViewedItem>;
}

async function activeSide(tx: TxnContext): Promise<Side> {
  const { files, items } = await activeSchema(tx);
  const kept = new Map<string, bigint>();
  for (const i of (await currentSchema(tx)).items) if (i.kind === 'collection') kept.set(i.name.str, i.historyDays.value);
  const view = (i: SchemaItem) => itemView(i, i.kind === 'collection' ? kept.get(i.name.str) : undefined);
  return { files, items: items.map((item) => ({ item, view: view(item) })) };
}

const plainSide = (files: ReadonlyArray<SourceText>, items: ReadonlyArray<SchemaItem>): Side => ({ files, items: items.map((item) => ({ item, view: itemView(item) })) });

/** Proposed files, which must be valid. */
function proposedSide(files: ReadonlyArray<SourceText>): Side {
  const parsed = parseSchemaFiles(files);
  if (!parsed.ok) throw new SchemaRefused(renderSchemaErrors(parsed.errors));
  return plainSide(files, parsed.value);
}

async function render(tx: TxnContext, before: Side, after: Side, style: DiffStyle, renames?: Renames): Promise<string> {
  if (style.format === 'textual') {
    const texts = (s: Side) => new Map(s.files.map((f) => [f.name, f.text]));
    return renderTextual(texts(before), texts(after), style.color);
  }
  const diffs = await withMigrations(tx, diffSchemaItems(before.items, after.items, renames));
  return style.format === 'semantic' ? renderSemantic(diffs, style.color) : renderSummary(diffs, style.color);
}

/** Each modified collection with the migrations its documents take (SchemaValidate.validateMigrations). */
async function withMigrations(tx: TxnContext, diffs: SchemaItemDiff[]): Promise<SchemaItemDiff[]> {
  const out: SchemaItemDiff[] = [];
  for (const d of diffs) {
    if (d.kind === 'modify' && d.before.kind === 'collection' && d.item.kind === 'collection') out.push({ ...d, migrations: await migrationsFor(tx, d.before, d.item) });
    else out.push(d);
  }
  return out;
}

/** `files` against the active schema, or against `staged` files when given (validate/diff). */
export async function diffProposed(tx: TxnContext, files: ReadonlyArray<SourceText>, staged: ReadonlyArray<SourceText> | undefined, style: DiffStyle, renames?: Renames): Promise<string> {
  const after = proposedSide(files);
  const before = staged === undefined ? await activeSide(tx) : plainSide(staged, stagedItems(staged));
  return render(tx, before, after, style, renames);
}

/** The staged files against the active schema (staged/status), renaming as they were staged. */
export async function diffStagedSchema(tx: TxnContext, staged: ReadonlyArray<SourceText>, style: DiffStyle): Promise<string> {
  return render(tx, await activeSide(tx), plainSide(staged, stagedItems(staged)), style, await stagedRenames(tx));
}
