// The database's FSL files as `GET /schema/1/files` answers them (SchemaSource.getActive and
// SourceGenerator): the files last pushed, patched to what the database holds now. An item changed
// since (through FQL or v4) is rewritten where it stands, one deleted is cut out, one created is
// added to main.fsl; with nothing pushed, main.fsl is generated from every item.

import type { TxnContext } from '../../model/context';
import { readSchemaSources, type SourceText } from '../../model/schemaSources';
import type { SchemaItem } from '../fsl/ast';
import { displayItem } from '../fsl/display';
import { parseSchemaItems } from '../fsl/index';
import { currentSchema, normalForm } from './current';
import { itemKey } from './itemChanges';

export const MAIN_FSL = 'main.fsl';

/** SourceGenerator.Preamble: the head of a generated main.fsl (its blank line keeps it no doc comment). */
export const PREAMBLE = '// The following schema is auto-generated.\n// This file contains FSL for FQL10-compatible schema items.\n';

/** The files as they stand, and each file's items (parsed, with spans into its text). */
export interface ActiveSchema {
  readonly files: SourceText[];
  readonly items: SchemaItem[];
}

export async function activeSchema(tx: TxnContext): Promise<ActiveSchema> {
  const files = await activeFiles(tx);
  const items: SchemaItem[] = [];
  for (const f of files) {
    const r = parseSchemaItems(f.text, f.name);
    if (r.ok) items.push(...r.value);
  }
  return { files, items };
}

async function activeFiles(tx: TxnContext): Promise<SourceText[]> {
  const stored = await readSchemaSources(tx, tx.scope.db);
  const { items, taken } = await currentSchema(tx);
  const now = new Map(items.map((i) => [itemKey(i), i]));
  const placed = new Set<string>();
  const files: SourceText[] = [];
  for (const f of stored) {
    const r = parseSchemaItems(f.text, f.name);
    if (!r.ok) continue; // stored files were valid when pushed; one that is not is regenerated
    let text = f.text;
    // From the end, so that earlier spans stay where they are.
    for (const item of [...r.value].sort((a, b) => b.span.start - a.span.start)) {
      const key = itemKey(item);
      const current = now.get(key);
      if (current !== undefined) placed.add(key);
      if (current === undefined) text = text.slice(0, item.span.start) + text.slice(item.span.end);
      else if (normalForm(item, taken) !== normalForm(current, taken)) {
        // The item's doc comment stays: it is the file's, not the definition's.
        const doc = item.docComment === null ? '' : text.slice(item.span.start, item.docComment.end).trimEnd() + '\n';
        text = text.slice(0, item.span.start) + doc + displayItem(current).trimEnd() + text.slice(item.span.end);
      }
    }
    files.push({ name: f.name, text });
  }
  const added = items.filter((i) => !placed.has(itemKey(i)));
  if (added.length > 0) {
    const main = files.find((f) => f.name === MAIN_FSL);
    const appended = added.map((i) => '\n' + displayItem(i)).join('');
    if (main === undefined) files.push({ name: MAIN_FSL, text: PREAMBLE + appended });
    else files[files.indexOf(main)] = { name: MAIN_FSL, text: main.text + appended };
  }
  return files;
}
