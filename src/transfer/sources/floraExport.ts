// The flora export format (docs/export-format.md), as `flora export` writes it: a manifest listing
// every file with its record count and SHA-256, and per database `schema`, `collections/<c>`,
// `credentials`, `keys`, `tokens` and `history/<c>` NDJSON files in the v4 wire form. Before any
// item, each file is checked against the manifest (a file missing, changed or not listed is a
// problem naming it); then the items come database by database (a database before its children),
// and within one: schema, documents, credentials, keys, tokens, history.

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { databaseDir, type FloraManifest, type ManifestFile } from '../floraFormat';
import { decodeLiteral } from '../../wire/decode';
import type { JsonValue } from '../../wire/expr';
import { Ref, Time, isObj, type Obj } from '../../values/types';
import { BadValue, recordItem } from './badValue';
import { dumpItem } from './driverDump';
import { readRecords } from './records';
import type { DatabasePath, Origin, ReadOptions, SchemaNative, Source, SourceItem } from './types';

type FileKind = 'schema' | 'collection' | 'credentials' | 'keys' | 'tokens' | 'history';
const KIND_ORDER: readonly FileKind[] = ['schema', 'collection', 'credentials', 'keys', 'tokens', 'history'];
const SCHEMA_NATIVES: ReadonlySet<string> = new Set<SchemaNative>(['collections', 'indexes', 'functions', 'roles', 'access_providers']);
const ACTIONS: ReadonlySet<string> = new Set(['create', 'update', 'delete']);

interface FloraFile {
  readonly listed: ManifestFile;
  readonly abs: string;
  readonly database: DatabasePath;
  readonly kind: FileKind;
  /** The collection of a `collections/` or `history/` file. */
  readonly collection?: string;
}

const FILE_PATH = /^db((?:\/databases\/[^/]+)*)\/(?:(schema|credentials|keys|tokens)|(collections|history)\/([^/]+))\.ndjson(\.gz)?$/;

/** Where a manifest's path puts a file: its database and kind; undefined for a path the format has no place for. */
function placeFile(listed: ManifestFile, root: string): FloraFile | undefined {
  const m = FILE_PATH.exec(listed.path);
  if (!m) return undefined;
  const database = m[1].split('/databases/').slice(1);
  const kind = (m[2] ?? (m[3] === 'collections' ? 'collection' : 'history')) as FileKind;
  return { listed, abs: path.join(root, ...listed.path.split('/')), database, kind, collection: m[4] };
}

/** A database before its children, siblings by name; within a database, files in KIND_ORDER, then by collection. */
function readingOrder(a: FloraFile, b: FloraFile): number {
  for (let i = 0; i < Math.min(a.database.length, b.database.length); i++)
    if (a.database[i] !== b.database[i]) return a.database[i] < b.database[i] ? -1 : 1;
  if (a.database.length !== b.database.length) return a.database.length - b.database.length;
  return KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || (a.collection ?? '').localeCompare(b.collection ?? '');
}

export function openFloraExport(root: string, manifest: FloraManifest): Source {
  const problems: SourceItem[] = [];
  const files: FloraFile[] = [];
  for (const listed of manifest.files) {
    const placed = placeFile(listed, root);
    if (placed) files.push(placed);
    else problems.push(problem(path.join(root, listed.path), 0, 'the manifest lists a file the flora format has no place for: not read'));
  }
  files.sort(readingOrder);
  const top = manifest.databases.find((d) => d.path === '');
  return {
    describe: () => ({
      format: 'flora-export',
      collections: Object.keys(top?.collections ?? {}),
      snapshotTs: Time.fromMicros(manifest.snapshotTs),
      files: files.map((f) => ({ path: f.abs, bytes: f.listed.bytes })),
    }),
    items: (opts) => floraItems(root, files, problems, opts),
  };
}

function problem(file: string, line: number, reason: string): SourceItem {
  return { kind: 'problem', file, line, reason };
}

async function* floraItems(root: string, files: readonly FloraFile[], problems: readonly SourceItem[], opts?: ReadOptions): AsyncGenerator<SourceItem> {
  yield* problems;
  const wanted = files.filter((f) => !opts?.skipFiles?.has(f.abs));
  const intact = new Set<FloraFile>();
  for (const f of wanted) {
    const wrong = await checkFile(f);
    if (wrong) yield problem(f.abs, 0, wrong);
    else intact.add(f);
  }
  yield* strayFiles(root, new Set(files.map((f) => f.abs)));
  for (const f of wanted) {
    if (f.listed.bytes === 0 && intact.has(f)) continue; // an uncompressed file of no records: nothing to read
    let records = 0;
    for await (const batch of readRecords(f.abs, 'lines'))
      for (const r of batch) {
        if (r.kind === 'problem') {
          yield problem(f.abs, r.line, r.reason);
          continue;
        }
        records++;
        yield fileItem(f, r.text, { file: f.abs, line: r.line });
      }
    if (records !== f.listed.records) yield problem(f.abs, 0, `the manifest says ${f.listed.records} records, the file holds ${records}`);
  }
}

/** Why a file is not the one the manifest lists (missing, another size, another SHA-256), or undefined. */
async function checkFile(f: FloraFile): Promise<string | undefined> {
  let size: number;
  try {
    size = (await stat(f.abs)).size;
  } catch {
    return 'listed in the manifest but missing: its records are not in this export';
  }
  if (size !== f.listed.bytes) return `the manifest says ${f.listed.bytes} bytes, the file holds ${size}: truncated or changed since the export`;
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(f.abs)) hash.update(chunk as Buffer);
  const sha = hash.digest('hex');
  if (sha !== f.listed.sha256) return `SHA-256 ${sha} differs from the manifest's ${f.listed.sha256}: the file changed since the export`;
  return undefined;
}

/** Files under db/ that the manifest does not list (left by something else): reported, never read. */
async function* strayFiles(root: string, listed: ReadonlySet<string>): AsyncGenerator<SourceItem> {
  const walk = async function* (dir: string): AsyncGenerator<string> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) yield* walk(p);
      else if (!listed.has(p)) yield p;
    }
  };
  for await (const p of walk(path.join(root, databaseDir([])))) yield problem(p, 0, 'not listed in the manifest: not read');
}

function fileItem(f: FloraFile, text: string, origin: Origin): SourceItem {
  if (f.kind === 'collection' || f.kind === 'credentials') {
    const item = dumpItem(text, origin);
    if (item.kind === 'document') {
      if (f.kind !== 'collection' || item.doc.collection !== f.collection)
        return problem(origin.file, origin.line, `a document of collection ${item.doc.collection} in the file of ${f.kind === 'collection' ? `collection ${f.collection}` : 'credentials'}`);
      return { kind: 'document', doc: { ...item.doc, database: f.database } };
    }
    if (item.kind === 'credential') {
      if (f.kind !== 'credentials') return problem(origin.file, origin.line, `a credential in the file of collection ${f.collection}`);
      return { kind: 'credential', cred: { ...item.cred, database: f.database } };
    }
    return item;
  }
  return recordItem(text, origin, (json) => wireItem(f, json));
}

/** The native collection a schema document, key or token belongs to: its ref's collection. */
function nativeOf(json: Map<string, JsonValue>): { native: string; ref: Ref } {
  const ref = decodeLiteral(json.get('ref') ?? null);
  if (!(ref instanceof Ref) || ref.nativeParent === undefined) throw new BadValue('ref', 'missing or not a ref to a schema document, key or token');
  return { native: ref.nativeParent, ref };
}

function wireItem(f: FloraFile, json: Map<string, JsonValue>): SourceItem {
  const database = f.database;
  switch (f.kind) {
    case 'schema': {
      const { native, ref } = nativeOf(json);
      if (native === 'databases') return { kind: 'database', path: [...database, ref.id], document: json };
      if (!SCHEMA_NATIVES.has(native)) throw new BadValue('ref', `a document of ${native} in a schema file`);
      return { kind: 'schema', database, native: native as SchemaNative, document: json };
    }
    case 'keys':
    case 'tokens': {
      const { native } = nativeOf(json);
      if (native !== f.kind) throw new BadValue('ref', `a document of ${native} in the ${f.kind} file`);
      return { kind: f.kind === 'keys' ? 'key' : 'token', database, document: json };
    }
    case 'history':
      return version(f, json);
  }
  throw new Error(`unreachable: ${f.kind}`);
}

function version(f: FloraFile, json: Map<string, JsonValue>): SourceItem {
  const ref = decodeLiteral(json.get('ref') ?? null);
  if (!(ref instanceof Ref) || !ref.isUserDocument) throw new BadValue('ref', 'missing or not a ref to a document');
  if (ref.collection!.id !== f.collection) throw new BadValue('ref', `a version of collection ${ref.collection!.id} in the history of ${f.collection}`);
  const ts = json.get('ts');
  if (typeof ts !== 'bigint') throw new BadValue('ts', 'missing or not microseconds');
  const action = json.get('action');
  if (typeof action !== 'string' || !ACTIONS.has(action)) throw new BadValue('action', 'not create, update or delete');
  const raw = json.get('data');
  const data = raw === null || raw === undefined ? null : decodeLiteral(raw);
  if (data !== null && !isObj(data)) throw new BadValue('data', 'not an object or null');
  return {
    kind: 'version',
    database: f.database,
    collection: f.collection!,
    id: ref.id,
    ts: Time.fromMicros(ts),
    action: action as 'create' | 'update' | 'delete',
    data: data as Obj | null,
  };
}
