// The schema API's single-item routes (SchemaEndpoint.singleItemEndpoints): an item's FSL found in
// the files (the staged ones when a schema is staged, SchemaSource.locateFSLItem), a snippet read
// as exactly one item of the route's kind, the files with the item appended to main.fsl, patched
// where it stands or cut out, and the item's definition as FQL reads it.

import type { TxnContext } from '../../model/context';
import type { SourceText } from '../../model/schemaSources';
import type { MValue } from '../../wire/v10/model';
import type { SchemaItem } from '../fsl/ast';
import { FSL_SNIPPET, parseSchemaItems, renderSchemaErrors } from '../fsl/index';
import { evaluate } from '../eval/evaluate';
import { parseQuery } from '../parser';
import { TxnHooks } from '../run/hooks';
import { storeLanguage } from '../run/storePlugs';
import { toRuntime } from '../store/convert';
import { activeSchema, MAIN_FSL } from './files';
import { SchemaRefused } from './refused';
import { stagedFiles } from './staged';

type Kind = SchemaItem['kind'];

/** The routes' resources: each one's item kind, module, and how the core's error names it. */
export const ITEM_RESOURCES: Readonly<Record<string, { kind: Kind; module: string; desc: string }>> = {
  collections: { kind: 'collection', module: 'Collection', desc: 'a collection' },
  functions: { kind: 'function', module: 'Function', desc: 'a function' },
  roles: { kind: 'role', module: 'Role', desc: 'a role' },
  access_providers: { kind: 'access provider', module: 'AccessProvider', desc: 'an access provider' },
};

/** parseSingleSchemaItem: the body as one item of `kind` (`desc` names it). */
export function parseSnippet(body: string, kind: Kind, desc: string): SchemaItem {
  if (body.trim() === '') throw new SchemaRefused(['No FSL snippet provided']);
  const r = parseSchemaItems(body, FSL_SNIPPET);
  if (!r.ok) throw new SchemaRefused(renderSchemaErrors(r.errors));
  if (r.value.length !== 1) throw new SchemaRefused([`Expected a single schema item, got: ${r.value.length}`]);
  if (r.value[0].kind !== kind) throw new SchemaRefused([`Wrong FSL snippet. Expected ${desc}`]);
  return r.value[0];
}

/** The files items are looked up in and patched: the staged ones, else the active ones. */
export async function latestFiles(tx: TxnContext): Promise<SourceText[]> {
  return (await stagedFiles(tx)) ?? (await activeSchema(tx)).files;
}

export interface LocatedItem {
  readonly file: SourceText;
  readonly item: SchemaItem;
}

/** Item `name` of `kind` in `files`, where it stands; undefined when no file defines it. */
export function locateItem(files: ReadonlyArray<SourceText>, kind: Kind, name: string): LocatedItem | undefined {
  for (const file of files) {
    const r = parseSchemaItems(file.text, file.name);
    const item = r.ok ? r.value.find((i) => i.kind === kind && i.name.str === name) : undefined;
    if (item !== undefined) return { file, item };
  }
  return undefined;
}

/** The item's text in its file. */
export const itemText = (at: LocatedItem): string => at.file.text.slice(at.item.span.start, at.item.span.end);

/** `files` with `file` in place of its namesake (or added). */
export function withFile(files: ReadonlyArray<SourceText>, file: SourceText): SourceText[] {
  const out = files.filter((f) => f.name !== file.name);
  const at = files.findIndex((f) => f.name === file.name);
  out.splice(at < 0 ? out.length : at, 0, file);
  return out;
}

/** main.fsl with `snippet` appended (FSL.append: after a blank line). */
export function appendToMain(files: ReadonlyArray<SourceText>, snippet: string): SourceText {
  const main = files.find((f) => f.name === MAIN_FSL);
  return { name: MAIN_FSL, text: `${main?.text ?? ''}\n\n${snippet}` };
}

/** `at`'s file with the item's text replaced by `snippet` (FSL.patch; '' cuts it out). */
export function patchItem(at: LocatedItem, snippet: string): SourceText {
  const { text } = at.file;
  return { name: at.file.name, text: text.slice(0, at.item.span.start) + snippet + text.slice(at.item.span.end) };
}

/** The definition of item `name` as FQL reads it (`Collection.byName(name)`), for the answer's `definition`. */
export async function itemDefinition(tx: TxnContext, module: string, name: string): Promise<MValue> {
  const parsed = parseQuery(`${module}.byName(name)`);
  if (!parsed.ok) throw new Error(`definition query does not parse: ${parsed.errors.map((e) => e.message).join('; ')}`);
  const out = await evaluate(parsed.value, new Map([['name', toRuntime(name)]]), new TxnHooks(tx, storeLanguage()));
  if (!out.ok) throw new SchemaRefused([out.failure.message]);
  return out.value;
}
