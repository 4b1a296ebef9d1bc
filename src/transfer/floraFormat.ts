// The flora export format (docs/export-format.md), shared by its writer (transfer/export) and its
// reader (transfer/sources/floraExport.ts): where each database's files go, and the manifest,
// written last, that makes a directory a complete export.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { JsonValue } from '../wire/expr';
import { jsonString, parseJson } from '../wire/json';
import { formatTime } from '../wire/time';
import { SourceError } from './sources/types';

export const FLORA_FORMAT = 'flora-export';
export const FLORA_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';

/** A file as the manifest lists it: path relative to the export's root (always with `/`). */
export interface ManifestFile {
  readonly path: string;
  readonly records: number;
  readonly bytes: number;
  readonly sha256: string;
}

export interface DatabaseCounts {
  /** `a/b` relative to the exported database; empty for the exported database itself. */
  readonly path: string;
  readonly collections: Record<string, number>;
  readonly credentials: number;
  readonly keys: number;
  readonly tokens: number;
}

export interface FloraManifest {
  readonly snapshotTs: bigint;
  readonly source: { readonly url: string; readonly database: string };
  readonly options: { readonly history: boolean; readonly keys: boolean; readonly gzip: boolean };
  readonly files: readonly ManifestFile[];
  readonly databases: readonly DatabaseCounts[];
}

/** The directory of a database (`db`, `db/databases/a`, `db/databases/a/databases/b`), relative to the root. */
export function databaseDir(dbPath: readonly string[]): string {
  return ['db', ...dbPath.flatMap((name) => ['databases', name])].join('/');
}

/** `name.ndjson` or `name.ndjson.gz`. */
export const ndjsonName = (name: string, gzip: boolean) => `${name}.ndjson${gzip ? '.gz' : ''}`;

export function renderManifest(m: FloraManifest): string {
  const time = formatTime(m.snapshotTs * 1000n);
  const head = `{"format":"${FLORA_FORMAT}","version":${FLORA_VERSION},"snapshot_ts":${m.snapshotTs},"snapshot_time":${jsonString(time)},`;
  const body = JSON.stringify({ source: m.source, options: m.options, files: m.files, databases: m.databases }, null, 1);
  return head + body.slice(1) + '\n';
}

/** Reads `<dir>/manifest.json`: undefined when there is none or it is not a flora export's; SourceError when it is one Flora cannot follow. */
export async function readFloraManifest(dir: string): Promise<FloraManifest | undefined> {
  const file = path.join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  let json: JsonValue;
  try {
    json = parseJson(text);
  } catch {
    throw new SourceError(`${file}: not valid JSON (an export interrupted while writing its manifest? run it again)`);
  }
  if (!(json instanceof Map) || json.get('format') !== FLORA_FORMAT) return undefined;
  const bad = (what: string) => new SourceError(`${file}: ${what}`);
  if (json.get('version') !== BigInt(FLORA_VERSION)) throw bad(`version ${String(json.get('version'))}: this Flora reads version ${FLORA_VERSION}`);
  const ts = json.get('snapshot_ts');
  if (typeof ts !== 'bigint') throw bad('"snapshot_ts" is missing or not microseconds');
  const obj = (j: JsonValue | undefined, what: string) => {
    if (!(j instanceof Map)) throw bad(`"${what}" is missing or not an object`);
    return j;
  };
  const str = (j: JsonValue | undefined, what: string) => {
    if (typeof j !== 'string') throw bad(`${what} is missing or not a string`);
    return j;
  };
  const count = (j: JsonValue | undefined, what: string) => {
    if (typeof j !== 'bigint' || j < 0n) throw bad(`${what} is missing or not a count`);
    return Number(j);
  };
  const bool = (j: JsonValue | undefined, what: string) => {
    if (typeof j !== 'boolean') throw bad(`options.${what} is missing or not true/false`);
    return j;
  };
  const list = (j: JsonValue | undefined, what: string) => {
    if (!Array.isArray(j)) throw bad(`"${what}" is missing or not a list`);
    return j;
  };
  const source = obj(json.get('source'), 'source');
  const options = obj(json.get('options'), 'options');
  const files = list(json.get('files'), 'files').map((f, i) => {
    const m = obj(f, `files[${i}]`);
    const p = str(m.get('path'), `files[${i}].path`);
    if (p.startsWith('/') || p.split('/').includes('..')) throw bad(`files[${i}].path ${p} leaves the export's directory`);
    const sha = str(m.get('sha256'), `files[${i}].sha256`);
    if (!/^[0-9a-f]{64}$/.test(sha)) throw bad(`files[${i}].sha256 is not a SHA-256 in hex`);
    return { path: p, records: count(m.get('records'), `files[${i}].records`), bytes: count(m.get('bytes'), `files[${i}].bytes`), sha256: sha };
  });
  const databases = list(json.get('databases'), 'databases').map((d, i) => {
    const m = obj(d, `databases[${i}]`);
    const colls = obj(m.get('collections'), `databases[${i}].collections`);
    return {
      path: str(m.get('path'), `databases[${i}].path`),
      collections: Object.fromEntries([...colls].map(([k, v]) => [k, count(v, `databases[${i}].collections.${k}`)])),
      credentials: count(m.get('credentials'), `databases[${i}].credentials`),
      keys: count(m.get('keys'), `databases[${i}].keys`),
      tokens: count(m.get('tokens'), `databases[${i}].tokens`),
    };
  });
  return {
    snapshotTs: ts,
    source: { url: str(source.get('url'), 'source.url'), database: str(source.get('database'), 'source.database') },
    options: { history: bool(options.get('history'), 'history'), keys: bool(options.get('keys'), 'keys'), gzip: bool(options.get('gzip'), 'gzip') },
    files,
    databases,
  };
}
