// Entry points of the FSL parser: schema files to raw nodes (the grammar) and to schema items
// (collections, roles, functions, access providers). Errors are the core's, rendered by
// ../diagnostic.ts against the file they point into (each span's `src` carries its file's name and
// text). A schema is several files: parseSchemaFiles reads them all, then judges their items
// together, so a name defined in two files is a duplicate.

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

/** One file's schema items (Parser.schemaItems). */
export function parseSchemaItems(text: string, name = FSL_SNIPPET): ParseResult<SchemaItem[]> {
  return parseSchemaFiles([{ name, text }]);
}

/** Several files' schema items: each file parsed, then all nodes converted together. Parse
 *  errors of every file are reported before any item is judged, as a failed parse stops the core. */
export function parseSchemaFiles(files: ReadonlyArray<FslFile>): ParseResult<SchemaItem[]> {
  const nodes: FslNode[] = [];
  const errors = [];
  for (const f of files) {
    const r = parseFslNodes(f.text, f.name);
    if (r.ok) nodes.push(...r.value);
    else errors.push(...r.errors);
  }
  if (errors.length > 0) return { ok: false, errors };
  const { items, errors: convErrors } = convertNodes(nodes);
  return convErrors.length > 0 ? { ok: false, errors: convErrors } : { ok: true, value: items };
}
