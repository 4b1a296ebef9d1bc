// Readers of what a Fauna user holds, for `flora import`: Fauna's snapshot export (simple or tagged
// encoding, JSONL or JSON-array files, gzipped or not, in any number of parts) and NDJSON / JSON
// dumps made with the v4 driver; and Flora's own export (`flora export`, docs/export-format.md),
// which adds child databases, schema, keys, tokens and history (FloraItem in types.ts).
//
//   const source = await openSource(path);   // SourceError (a clear message) when nothing readable is there
//   source.describe();                       // format, encoding, collections, snapshot ts, files with sizes
//   for await (const item of source.items({ skipFiles })) …
//
// items() streams, holding one chunk of a file and one record at a time. It gives, in order:
// problems about the export's tree (manifests that disagree, missing parts, stray files), then each
// file's records in reading order (collections as the manifest lists them, `Credential` last so
// that the documents credentials name come first), each as a `document`, a `credential`, or a
// `problem` (file, 1-based line, element for JSON-array files, reason) — never half a document,
// never a silent drop — and last `note`s for the import's report (what the simple encoding cannot
// tell apart). Values are Flora values; refs are Ref.doc(collection, id) with no database, so they
// resolve in the database imported into.

export { openSource } from './openSource';
export { SourceError } from './types';
export type {
  DatabasePath,
  FloraItem,
  Origin,
  ReadOptions,
  SchemaNative,
  Source,
  SourceCredential,
  SourceDescription,
  SourceDocument,
  SourceFile,
  SourceFormat,
  SourceItem,
} from './types';
