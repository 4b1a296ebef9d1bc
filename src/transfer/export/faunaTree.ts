// Writes a database tree in Fauna's snapshot-export layout (what transfer/sources reads, and tools
// written for Fauna's export): per database a task directory with `metadata_00.json` and
// `data/collections/<C>/<C>_00_<ord>.jsonl[.gz]`, a new ordinal each 128 MiB of JSON. Only what
// Fauna's export holds: documents, and credentials as collection `Credential`. A child database
// gets a tree of its own in `databases/<name>/` (Fauna exported one database per export).

import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CREDENTIAL_COLLECTION, type Encoding } from '../sources/exportDocument';
import { decodeLiteral } from '../../wire/decode';
import type { JsonValue } from '../../wire/expr';
import { formatTime } from '../../wire/time';
import { Ref, Time, isObj, type Obj } from '../../values/types';
import type { QueryClient } from './client';
import { documents, getVar, mapPage, nativeSet, paginate } from './fql';
import { faunaCredential, faunaDocument } from './faunaRecord';
import { LineFile, type WrittenFile } from './lineFile';
import { nameOf, PAGE_SIZE, pagesAt } from './pages';
import type { ExportProgress } from './progress';

/** Fauna's export starts a new data file past this many bytes (OutfileWriter). */
export const FAUNA_FILE_BYTES = 128 * 1024 * 1024;

export interface FaunaTreeOptions {
  readonly out: string;
  readonly ts: bigint;
  readonly gzip: boolean;
  readonly encoding: Encoding;
  readonly progress: ExportProgress;
  /** Roll-over size (tests make it small). */
  readonly fileBytes?: number;
}

export interface FaunaTreeResult {
  /** Paths relative to `out`. */
  readonly files: WrittenFile[];
  readonly databases: { path: string; collections: Record<string, number> }[];
}

export async function writeFaunaTree(client: QueryClient, opts: FaunaTreeOptions): Promise<FaunaTreeResult> {
  const result: FaunaTreeResult = { files: [], databases: [] };
  await writeDatabase(client, [], opts, result);
  return result;
}

/** The task directory of a database: the root for the exported one, `databases/<a>/databases/<b>` below it. */
export function faunaTaskDir(dbPath: readonly string[]): string {
  return dbPath.flatMap((name) => ['databases', name]).join('/');
}

async function writeDatabase(client: QueryClient, dbPath: string[], opts: FaunaTreeOptions, result: FaunaTreeResult): Promise<void> {
  const label = dbPath.join('/');
  const taskDir = faunaTaskDir(dbPath);
  const names = async (native: string) => {
    const found: string[] = [];
    for await (const page of pagesAt(client, opts.ts, (after) => mapPage(paginate(nativeSet(native), PAGE_SIZE, after), 'r', getVar('r'))))
      found.push(...page.map(nameOf));
    return found;
  };
  const collections = await names('collections');
  const children = await names('databases');
  const counts: Record<string, number> = {};
  const written: WrittenFile[] = [];

  const writeCollection = async (coll: string, set: string, record: (doc: JsonValue) => string) => {
    opts.progress.started(label, `collection ${coll}`);
    const files = new RollingFiles(opts.out, `${taskDir ? taskDir + '/' : ''}data/collections/${coll}/${coll}`, opts.gzip, opts.fileBytes ?? FAUNA_FILE_BYTES);
    try {
      for await (const page of pagesAt(client, opts.ts, (after) => mapPage(paginate(set, PAGE_SIZE, after), 'r', getVar('r')))) {
        for (const doc of page) await files.write(record(doc));
        opts.progress.records(page.length);
      }
    } catch (err) {
      files.abort();
      throw err;
    }
    const done = await files.close();
    written.push(...done);
    counts[coll] = done.reduce((n, f) => n + f.records, 0);
    opts.progress.finished(label, `collection ${coll}`, counts[coll]);
  };
  for (const c of collections) await writeCollection(c, documents(c), (doc) => documentRecord(doc, opts.encoding));
  await writeCollection(CREDENTIAL_COLLECTION, nativeSet('credentials'), (doc) => credentialRecord(doc, opts.encoding));
  if (counts[CREDENTIAL_COLLECTION] === 0) delete counts[CREDENTIAL_COLLECTION];

  await writeFile(path.join(opts.out, taskDir, 'metadata_00.json'), metadata(opts, Object.keys(counts), written));
  result.files.push(...written);
  result.databases.push({ path: label, collections: counts });
  for (const child of children) await writeDatabase(client.child(child), [...dbPath, child], opts, result);
}

/** A collection's data files of part 00: ordinal 000000, 000001, … each past `limit` bytes of JSON. */
class RollingFiles {
  private current?: LineFile;
  private readonly done: WrittenFile[] = [];
  constructor(
    private readonly root: string,
    private readonly prefix: string,
    private readonly gzip: boolean,
    private readonly limit: number,
  ) {}

  async write(text: string): Promise<void> {
    if (this.current && this.current.textBytes >= this.limit) {
      this.done.push(await this.current.close());
      this.current = undefined;
    }
    this.current ??= await LineFile.open(this.root, `${this.prefix}_00_${String(this.done.length).padStart(6, '0')}.jsonl${this.gzip ? '.gz' : ''}`, this.gzip);
    await this.current.write(text);
  }

  abort(): void {
    this.current?.abort();
  }

  /** The files written; none for a collection without documents (the manifest still names it). */
  async close(): Promise<WrittenFile[]> {
    if (this.current) this.done.push(await this.current.close());
    return this.done;
  }
}

function metadata(opts: FaunaTreeOptions, collections: string[], files: readonly WrittenFile[]): string {
  // ExportInfo.finalizeExport's fields, in its order.
  const m = {
    host_id: randomUUID(),
    account_id: 'flora',
    export_id: `flora-${opts.ts}`,
    task_id: String(opts.ts),
    collections,
    snapshot_ts: formatTime(opts.ts * 1000n),
    doc_format: opts.encoding,
    datafile_format: 'jsonl',
    datafile_compression: opts.gzip,
    datafile_ext: opts.gzip ? 'jsonl.gz' : 'jsonl',
    part: 0,
    total_parts: 1,
    files_count: files.length,
    files_bytes: files.reduce((n, f) => n + f.bytes, 0),
  };
  return JSON.stringify(m, null, 2) + '\n';
}

function decoded(doc: JsonValue): Obj {
  const v = decodeLiteral(doc);
  if (!isObj(v)) throw new Error('Get answered something else than a document');
  return v as Obj;
}

function documentRecord(doc: JsonValue, enc: Encoding): string {
  const d = decoded(doc);
  const ref = d.get('ref') as Ref;
  const data = d.get('data');
  return faunaDocument(ref.collection!.id, ref.id, Time.fromMicros(d.get('ts') as bigint), d.get('ttl') as Time | undefined, data !== undefined && isObj(data) ? (data as Obj) : new Map(), enc);
}

function credentialRecord(doc: JsonValue, enc: Encoding): string {
  const d = decoded(doc);
  const ref = d.get('ref') as Ref;
  const hashed = d.get('hashed_password');
  if (typeof hashed !== 'string') throw new Error(`credential ${ref.id} came without its hashed_password: export it with an admin secret`);
  return faunaCredential(ref.id, Time.fromMicros(d.get('ts') as bigint), d.get('instance') as Ref, hashed, enc);
}
