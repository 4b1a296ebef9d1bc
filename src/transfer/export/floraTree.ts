// Writes a database tree in the flora export format (docs/export-format.md): for each database,
// its schema documents, each collection's documents, credentials, keys and tokens (--keys), every
// version within retention (--history), then its child databases the same way. Every read is at
// the snapshot time T; every file streams one page at a time.

import type { DatabaseCounts } from '../floraFormat';
import { databaseDir, ndjsonName } from '../floraFormat';
import { decodeLiteral } from '../../wire/decode';
import { encodeJson } from '../../wire/encode';
import { Ref } from '../../values/types';
import type { JsonValue } from '../../wire/expr';
import type { QueryClient } from './client';
import { deletedDocuments, documents, getVar, mapPage, nativeSet, paginate, SCHEMA_NATIVES, versionsOf } from './fql';
import { LineFile, type WrittenFile } from './lineFile';
import { field, nameOf, PAGE_SIZE, pagesAt } from './pages';
import type { ExportProgress } from './progress';

/** Documents per history query: each brings its first HISTORY_PAGE versions, so a query holds at most 100 × 100 events. */
const HISTORY_DOCS = 100;
const HISTORY_PAGE = 100;

export interface FloraTreeOptions {
  readonly out: string;
  readonly ts: bigint;
  readonly gzip: boolean;
  readonly history: boolean;
  readonly keys: boolean;
  readonly progress: ExportProgress;
}

export interface FloraTreeResult {
  readonly files: WrittenFile[];
  readonly databases: DatabaseCounts[];
}

export async function writeFloraTree(client: QueryClient, opts: FloraTreeOptions): Promise<FloraTreeResult> {
  const result: FloraTreeResult = { files: [], databases: [] };
  await writeDatabase(client, [], opts, result);
  return result;
}

async function writeDatabase(client: QueryClient, dbPath: string[], opts: FloraTreeOptions, result: FloraTreeResult): Promise<void> {
  const dir = databaseDir(dbPath);
  const label = dbPath.join('/');
  const file = (name: string) => `${dir}/${ndjsonName(name, opts.gzip)}`;
  const getAll = (native: string) => (after?: JsonValue) => mapPage(paginate(nativeSet(native), PAGE_SIZE, after), 'r', getVar('r'));

  /** Writes the pages of each query, in turn, into one file; `seen` is told each record. */
  const writeFile = async (rel: string, what: string, queries: ((after?: JsonValue) => string)[], seen?: (doc: JsonValue) => void) => {
    opts.progress.started(label, what);
    const written = await LineFile.fill(opts.out, rel, opts.gzip, async (out) => {
      for (const q of queries)
        for await (const page of pagesAt(client, opts.ts, q)) {
          for (const doc of page) {
            seen?.(doc);
            await out.write(encodeJson(doc));
          }
          opts.progress.records(page.length);
        }
    });
    result.files.push(written);
    opts.progress.finished(label, what, written.records);
    return written.records;
  };

  const collections: string[] = [];
  const children: string[] = [];
  await writeFile(file('schema'), 'schema', [...SCHEMA_NATIVES, 'databases'].map(getAll), (doc) => {
    const ref = decodeLiteral(field(doc, 'ref') ?? null);
    const native = ref instanceof Ref ? ref.nativeParent : undefined;
    if (native === 'collections') collections.push(nameOf(doc));
    if (native === 'databases') children.push(nameOf(doc));
  });

  const counts = { path: label, collections: {} as Record<string, number>, credentials: 0, keys: 0, tokens: 0 };
  result.databases.push(counts);
  for (const c of collections) {
    const all = (after?: JsonValue) => mapPage(paginate(documents(c), PAGE_SIZE, after), 'r', getVar('r'));
    counts.collections[c] = await writeFile(`${dir}/collections/${ndjsonName(c, opts.gzip)}`, `collection ${c}`, [all]);
  }
  counts.credentials = await writeFile(file('credentials'), 'credentials', [getAll('credentials')]);
  if (opts.keys) {
    counts.keys = await writeFile(file('keys'), 'keys', [getAll('keys')]);
    counts.tokens = await writeFile(file('tokens'), 'tokens', [getAll('tokens')]);
  }
  if (opts.history) for (const c of collections) await writeHistory(client, c, `${dir}/history/${ndjsonName(c, opts.gzip)}`, label, opts, result);
  for (const child of children) await writeDatabase(client.child(child), [...dbPath, child], opts, result);
}

/**
 * The versions of every document of `collection` within retention: those of the documents that
 * exist at T (a page of documents at a time, each with its first versions in the same query), then
 * those of the documents deleted by T.
 */
async function writeHistory(client: QueryClient, collection: string, rel: string, label: string, opts: FloraTreeOptions, result: FloraTreeResult): Promise<void> {
  const what = `history of ${collection}`;
  opts.progress.started(label, what);
  /**
   * Writes a page of events, and reads the document's further versions when the page says there
   * are more. Event pages are not bounded by At: events after T are left out here.
   */
  const writeEvents = async (out: LineFile, doc: JsonValue, events: JsonValue) => {
    const first = field(events, 'data');
    if (!Array.isArray(first)) throw new Error(`Events of ${encodeJson(doc)} did not answer a page`);
    const writePage = async (page: JsonValue[]): Promise<boolean> => {
      let written = 0;
      for (const e of page) {
        const ts = field(e, 'ts');
        if (typeof ts !== 'bigint' || ts > opts.ts) break;
        await out.write(versionLine(e));
        written++;
      }
      opts.progress.records(written);
      return written === page.length;
    };
    const after = field(events, 'after');
    if (!(await writePage(first)) || after === undefined) return;
    for await (const page of pagesAt(client, opts.ts, (a) => versionsOf(encodeJson(doc), PAGE_SIZE, a ?? after))) if (!(await writePage(page))) return;
  };
  // Each query: a page of documents, each with its first versions ([doc, page of events]).
  const withVersions = (doc: string) => `[${doc},${versionsOf(doc, HISTORY_PAGE)}]`;
  const live = (after?: JsonValue) => mapPage(paginate(documents(collection), HISTORY_DOCS, after), 'r', withVersions('{"var":"r"}'));
  const deleted = (after?: JsonValue) =>
    mapPage(deletedDocuments(collection, opts.ts, HISTORY_DOCS, after), 'x', withVersions('{"select":"document","from":{"var":"x"}}'));
  const written = await LineFile.fill(opts.out, rel, opts.gzip, async (out) => {
    for (const query of [live, deleted])
      for await (const page of pagesAt(client, opts.ts, query))
        for (const pair of page) {
          if (!Array.isArray(pair)) throw new Error('a history query answered something else than [document, events]');
          await writeEvents(out, pair[0], pair[1]);
        }
  });
  result.files.push(written);
  opts.progress.finished(label, what, written.records);
}

/** An event of Events(ref) as a line of a history file: {"ref", "ts", "action", "data"}. */
function versionLine(e: JsonValue): string {
  const get = (k: string) => {
    const v = field(e, k);
    if (v === undefined) throw new Error(`an event without "${k}"`);
    return encodeJson(v);
  };
  return `{"ref":${get('document')},"ts":${get('ts')},"action":${get('action')},"data":${get('data')}}`;
}
