// Entry points of the FSL parser: schema files to raw nodes (the grammar) and to schema items
// (collections, roles, functions, access providers). Errors are the core's, rendered by
// ../diagnostic.ts against the file they point into (each span's `src` carries its file's name and
// text). A schema is several files: parseSchemaFiles reads each, then checks names across them.

import { renderDiagnostic, type Diagnostic } from '../diagnostic';
import { run, type ParseResult } from '../parser';
import type { Src } from '../span';
import type { FslNode, SchemaItem } from './ast';
import { convertNodes } from './convert';
import { fslFile } from './rawParser';

/** The source name of an FSL snippet that is no file (the core's Src.FSL). */
export const FSL_SNIPPET = '*fsl*';

export interface FslFile {
  readonly name: string;
  readonly text: string;
}

function fileSrc(name: string, text: string): Src {
  return { name, text };
}

/** One file's raw nodes (Parser.fslNodes). */
export function parseFslNodes(text: string, name = FSL_SNIPPET): ParseResult<FslNode[]> {
  return run(text, fileSrc(name, text), false, fslFile);
}

/** One file's schema items (Parser.schemaItems): its nodes, then the items they make. */
export function parseSchemaItems(text: string, name = FSL_SNIPPET): ParseResult<SchemaItem[]> {
  const r = parseFslNodes(text, name);
  if (!r.ok) return r;
  const { items, errors } = convertNodes(r.value);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: items };
}

/** A schema's errors: parse errors (rendered against their file) and the messages of problems
 *  between files, which point nowhere (the core's SchemaError.Validation). */
export type SchemaError = Diagnostic | string;

export type SchemaFilesResult = { readonly ok: true; readonly value: SchemaItem[] } | { readonly ok: false; readonly errors: SchemaError[] };

/** Several files' schema items (SchemaValidate.parseAndValidateFSLItems): each file read on its
 *  own, then every item's name checked against the other files' (a collection and a function
 *  share names). The errors of every file are reported. */
export function parseSchemaFiles(files: ReadonlyArray<FslFile>): SchemaFilesResult {
  const seen = { collection: new Map<string, string>(), role: new Map<string, string>(), 'access provider': new Map<string, string>() };
  const what = { collection: 'collection or function', role: 'role', 'access provider': 'access provider' };
  const items: SchemaItem[] = [];
  const errors: SchemaError[] = [];
  for (const f of files) {
    const r = parseSchemaItems(f.text, f.name);
    if (!r.ok) {
      errors.push(...r.errors);
      continue;
    }
    for (const item of r.value) {
      const kind = item.kind === 'function' ? 'collection' : item.kind;
      const first = seen[kind].get(item.name.str);
      if (first !== undefined) errors.push(`Duplicate ${what[kind]} \`${item.name.str}\` in ${f.name} (originally seen in ${first})`);
      else seen[kind].set(item.name.str, f.name);
    }
    items.push(...r.value);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: items };
}

/** Each error as the schema API words it. */
export function renderSchemaErrors(errors: ReadonlyArray<SchemaError>): string[] {
  return errors.map((e) => (typeof e === 'string' ? e : renderDiagnostic(e)));
}
