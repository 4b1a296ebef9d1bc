// The manifests of Fauna's snapshot export: one `metadata_NN.json` per part, written by
// ExportInfo.finalizeExport (core: ext/model/src/main/scala/tasks/export/ExportInfo.scala:176-210)
// once the part's files are in place. They must agree on the export; what Flora cannot read (an
// unknown doc_format, datafile_format or compression) is an error before anything is read.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { JsonValue } from '../../wire/expr';
import { parseJson } from '../../wire/json';
import { parseIsoTime } from '../../wire/time';
import { Time } from '../../values/types';
import type { Encoding } from './exportDocument';
import { SourceError } from './types';

export const MANIFEST_NAME = /^metadata_(\d+)\.json$/;

export interface Manifest {
  readonly file: string;
  readonly text: string;
  readonly exportId: string;
  readonly taskId: string;
  readonly collections: readonly string[];
  readonly snapshotTs: Time;
  readonly encoding: Encoding;
  readonly layout: 'lines' | 'array';
  readonly compressed: boolean;
  /** `jsonl`, `json`, `jsonl.gz` or `json.gz`. */
  readonly ext: string;
  readonly part: number;
  readonly totalParts: number;
  readonly filesCount: number;
  readonly filesBytes: number;
}

export async function readManifest(file: string): Promise<Manifest> {
  const text = await readFile(file, 'utf8');
  let json: JsonValue;
  try {
    json = parseJson(text);
  } catch {
    throw new SourceError(`${file}: not valid JSON`);
  }
  if (!(json instanceof Map)) throw new SourceError(`${file}: not a JSON object`);
  const m = json;
  const bad = (key: string, what: string) => new SourceError(`${file}: "${key}" ${what}`);
  const str = (key: string): string => {
    const v = m.get(key);
    if (typeof v !== 'string') throw bad(key, 'is missing or not a string');
    return v;
  };
  const num = (key: string): number => {
    const v = m.get(key);
    if (typeof v !== 'bigint' || v < 0n) throw bad(key, 'is missing or not a whole number');
    return Number(v);
  };

  const docFormat = str('doc_format');
  if (docFormat !== 'simple' && docFormat !== 'tagged')
    throw bad('doc_format', `is "${docFormat}": Flora reads the "simple" and "tagged" encodings`);
  const datafileFormat = str('datafile_format');
  if (datafileFormat !== 'json' && datafileFormat !== 'jsonl')
    throw bad('datafile_format', `is "${datafileFormat}": Flora reads "json" and "jsonl" files`);
  const compressed = m.get('datafile_compression');
  if (typeof compressed !== 'boolean') throw bad('datafile_compression', `is not true or false`);
  const ext = str('datafile_ext');
  // DatafileFormat.fileExt (tasks/export/DatafileFormat.scala:7-8)
  const expectedExt = compressed ? `${datafileFormat}.gz` : datafileFormat;
  if (ext !== expectedExt) throw bad('datafile_ext', `is "${ext}", but the format and compression say "${expectedExt}"`);
  const collections = m.get('collections');
  if (!Array.isArray(collections) || !collections.every((c) => typeof c === 'string'))
    throw bad('collections', 'is missing or not a list of names');
  const snapshotNanos = parseIsoTime(str('snapshot_ts'));
  if (snapshotNanos === undefined) throw bad('snapshot_ts', 'is not a time');
  const part = num('part');
  const nameMatch = MANIFEST_NAME.exec(path.basename(file));
  if (nameMatch && Number(nameMatch[1]) !== part) throw bad('part', `is ${part}, but the file is named for part ${Number(nameMatch[1])}`);

  return {
    file,
    text,
    exportId: str('export_id'),
    taskId: str('task_id'),
    collections: collections as string[],
    snapshotTs: new Time(snapshotNanos),
    encoding: docFormat,
    layout: datafileFormat === 'jsonl' ? 'lines' : 'array',
    compressed,
    ext,
    part,
    totalParts: num('total_parts'),
    filesCount: num('files_count'),
    filesBytes: num('files_bytes'),
  };
}

/** The fields all parts of one export share: a mix of exports (or of one export's tries) is an error. */
const SHARED: readonly (keyof Manifest)[] = ['exportId', 'taskId', 'encoding', 'layout', 'compressed'];

export function checkSameExport(manifests: readonly Manifest[]): void {
  const [first, ...rest] = manifests;
  for (const m of rest) {
    for (const key of SHARED)
      if (m[key] !== first[key])
        throw new SourceError(`${m.file} and ${first.file} differ in ${key} (${String(m[key])} vs ${String(first[key])}): not parts of one export`);
    if (m.snapshotTs.nanos !== first.snapshotTs.nanos || m.collections.join('\0') !== first.collections.join('\0'))
      throw new SourceError(`${m.file} and ${first.file} differ in snapshot_ts or collections: not parts of one export`);
  }
}

/** The 1-based line of `"key"` in a manifest's text (Fauna writes them pretty-printed), for a report. */
export function lineOfKey(text: string, key: string): number {
  const at = text.indexOf(`"${key}"`);
  return at < 0 ? 1 : text.slice(0, at).split('\n').length;
}
