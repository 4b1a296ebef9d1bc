// Writes what a Fauna user holds (a snapshot export tree, driver dumps) into a directory from a
// description in neutral values, and says what Flora should read back from it. The forms follow the
// export's writer in Fauna's core (MaterializedValue.encode, ExportInfo.finalizeExport,
// OutfileWriter, FilesManager.emittedPath) and the v4 driver's toJSON.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseDate, parseIsoTime } from '../../src/wire/time';
import { Bytes, DateV, Ref, Time, type Obj, type Value } from '../../src/values/types';
import { formatDouble } from '../../src/wire/encode';
import { RESERVED_FIELDS } from '../../src/transfer/export/faunaRecord';

// --- neutral values ----------------------------------------------------------------------------

/** A value as the tests describe it; each writer renders it in its own form. */
export type FV =
  | null
  | boolean
  | string
  | { long: bigint }
  | { int: number }
  | { double: number }
  | { time: string }
  | { date: string }
  | { bytes: string }
  | { ref: { coll: string; id: string } }
  /** A ref to a document deleted before the export: `null` in simple, a ref with exists: false in tagged. */
  | { deletedRef: { coll: string; id: string } }
  | FV[]
  | { obj: [string, FV][] };

export interface FixtureDoc {
  coll: string;
  id: string;
  ts: string;
  ttl?: string;
  /** The user's fields (v4's data), in order; reserved names among them go to v10's `data`. */
  fields: [string, FV][];
}

export interface FixtureCredential {
  id: string;
  ts: string;
  document: { coll: string; id: string };
  hashedPassword: string;
}

// --- JSON text with exact integers -------------------------------------------------------------

/** A number's text as is (Java's Double.toString, a bare long). */
class RawNumber {
  constructor(readonly text: string) {}
}
type J = null | boolean | string | RawNumber | J[] | { [k: string]: J } | Map<string, J>;

function json(j: J): string {
  if (j === null || typeof j === 'boolean') return String(j);
  if (typeof j === 'string') return JSON.stringify(j);
  if (j instanceof RawNumber) return j.text;
  if (Array.isArray(j)) return `[${j.map(json).join(',')}]`;
  const entries = j instanceof Map ? [...j] : Object.entries(j);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${json(v)}`).join(',')}}`;
}

// --- the export's encodings ---------------------------------------------------------------------

export type Encoding = 'simple' | 'tagged';

function isTagged(v: FV): v is Exclude<FV, null | boolean | string | FV[]> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A value as the export writes it (MaterializedValue.scala:141-279). */
export function exportJson(v: FV, enc: Encoding): J {
  const tag = (t: string, inner: J): J => (enc === 'tagged' ? { [t]: inner } : inner);
  if (!isTagged(v)) return Array.isArray(v) ? v.map((x) => exportJson(x, enc)) : v;
  if ('long' in v) return enc === 'tagged' ? { '@long': String(v.long) } : new RawNumber(String(v.long));
  if ('int' in v) return enc === 'tagged' ? { '@int': String(v.int) } : new RawNumber(String(v.int));
  if ('double' in v) return enc === 'tagged' ? { '@double': formatDouble(v.double) } : new RawNumber(formatDouble(v.double));
  if ('time' in v) return tag('@time', v.time);
  if ('date' in v) return tag('@date', v.date);
  if ('bytes' in v) return tag('@bytes', v.bytes);
  if ('ref' in v) return tag('@ref', { id: v.ref.id, coll: tag('@mod', v.ref.coll) });
  if ('deletedRef' in v)
    return enc === 'tagged'
      ? { '@ref': { id: v.deletedRef.id, coll: { '@mod': v.deletedRef.coll }, exists: false, cause: 'deleted' } }
      : null;
  const fields = new Map(v.obj.map(([k, x]) => [k, exportJson(x, enc)] as [string, J]));
  return enc === 'tagged' && v.obj.some(([k]) => k.startsWith('@')) ? { '@object': fields } : fields;
}


/** A document's record text in the export: id, coll, ts, ttl, the user's fields, then `data` for reserved names. */
export function exportRecord(d: FixtureDoc, enc: Encoding): string {
  const top = new Map<string, J>([
    ['id', d.id],
    ['coll', enc === 'tagged' ? { '@mod': d.coll } : d.coll],
    ['ts', exportJson({ time: d.ts }, enc)],
  ]);
  if (d.ttl) top.set('ttl', exportJson({ time: d.ttl }, enc));
  const reserved = new Map<string, J>();
  for (const [k, v] of d.fields) (RESERVED_FIELDS.has(k) ? reserved : top).set(k, exportJson(v, enc));
  if (reserved.size > 0) top.set('data', enc === 'tagged' && [...reserved.keys()].some((k) => k.startsWith('@')) ? { '@object': reserved } : reserved);
  return json(top);
}

export function credentialRecord(c: FixtureCredential, enc: Encoding): string {
  return json(
    new Map<string, J>([
      ['id', c.id],
      ['coll', enc === 'tagged' ? { '@mod': 'Credential' } : 'Credential'],
      ['ts', exportJson({ time: c.ts }, enc)],
      ['document', exportJson({ ref: c.document }, enc)],
      ['hashed_password', c.hashedPassword],
    ]),
  );
}

// --- what Flora reads back ----------------------------------------------------------------------

/** The Flora value a reader should give for `v` read from `source`. */
export function floraValue(v: FV, source: Encoding | 'dump'): Value {
  if (!isTagged(v)) return Array.isArray(v) ? v.map((x) => floraValue(x, source)) : v;
  const plain = source === 'simple';
  if ('long' in v) return v.long;
  if ('int' in v) return BigInt(v.int);
  if ('double' in v) return v.double;
  if ('time' in v) return plain ? v.time : new Time(parseIsoTime(v.time)!);
  if ('date' in v) return plain ? v.date : new DateV(parseDate(v.date)!);
  if ('bytes' in v) return plain ? v.bytes : new Bytes(Buffer.from(v.bytes, 'base64'));
  if ('ref' in v) return Ref.doc(v.ref.coll, v.ref.id);
  if ('deletedRef' in v) return plain ? null : Ref.doc(v.deletedRef.coll, v.deletedRef.id);
  return new Map(v.obj.map(([k, x]) => [k, floraValue(x, source)] as [string, Value]));
}

export function floraData(d: FixtureDoc, source: Encoding | 'dump'): Obj {
  return new Map(d.fields.map(([k, v]) => [k, floraValue(v, source)] as [string, Value]));
}

// --- snapshot export trees ----------------------------------------------------------------------

/** A record placed in a data file: a document, a credential, or raw text (a corruption). */
export type Placed = { doc: FixtureDoc } | { cred: FixtureCredential } | { raw: string; coll: string };

export interface SnapshotSpec {
  encoding: Encoding;
  layout: 'jsonl' | 'json';
  gzip: boolean;
  /** The manifest's collections (`Credential` when credentials are exported). */
  collections: string[];
  /** Records in order; record i goes to part i % parts. */
  records: Placed[];
  parts?: number;
  /** Records per data file before the roll-over to the next ordinal (Fauna's is 128 MiB). */
  perFile?: number;
  /** Per part, manifest fields to write instead of the true ones (e.g. a wrong total_parts). */
  manifestOverrides?: Record<number, Record<string, unknown>>;
  /** Cut the gzip bytes of these files (by base name) to half after the manifest counted them: a truncated download. */
  truncate?: string[];
  /** Extra files, by path relative to the task directory. */
  extraFiles?: Record<string, string | Buffer>;
}

/** Where a record landed: its file and the line (and element) a reader should report. */
export interface Placement {
  file: string;
  line: number;
  element?: number;
}

export interface WrittenSnapshot {
  /** `<root>/<account>/export_<id>/<task>` */
  taskDir: string;
  exportDir: string;
  accountDir: string;
  /** Data files in reading order. */
  files: string[];
  /** Placement of each of spec.records, by index. */
  placements: Placement[];
}

const ACCOUNT = '386154127582707777';
const TASK = '412664785318134273';
export const SNAPSHOT_TS = '2025-01-09T19:07:30.100200Z';

export function recordText(r: Placed, enc: Encoding): string {
  return 'doc' in r ? exportRecord(r.doc, enc) : 'cred' in r ? credentialRecord(r.cred, enc) : r.raw;
}

function placedColl(r: Placed): string {
  return 'doc' in r ? r.doc.coll : 'cred' in r ? 'Credential' : r.coll;
}

export function writeSnapshot(root: string, spec: SnapshotSpec, exportId = 'test1'): WrittenSnapshot {
  const parts = spec.parts ?? 1;
  const perFile = spec.perFile ?? Math.max(1, spec.records.length);
  const accountDir = path.join(root, ACCOUNT);
  const exportDir = path.join(accountDir, `export_${exportId}`);
  const taskDir = path.join(exportDir, TASK);
  const ext = spec.layout + (spec.gzip ? '.gz' : '');
  const placements: Placement[] = [];
  const files: string[] = [];
  const partFiles = new Map<number, { count: number; bytes: number }>();

  // Group records by (collection, part), keeping their order, then cut into files of perFile.
  const groups = new Map<string, { coll: string; part: number; idx: number[] }>();
  spec.records.forEach((r, i) => {
    const coll = placedColl(r);
    const part = i % parts;
    const key = `${coll}\0${part}`;
    if (!groups.has(key)) groups.set(key, { coll, part, idx: [] });
    groups.get(key)!.idx.push(i);
  });
  for (const { coll, part, idx } of groups.values()) {
    for (let ord = 0; ord * perFile < idx.length; ord++) {
      const slice = idx.slice(ord * perFile, (ord + 1) * perFile);
      const name = `${coll}_${String(part).padStart(2, '0')}_${String(ord).padStart(6, '0')}.${ext}`;
      const file = path.join(taskDir, 'data', 'collections', coll, name);
      const texts = slice.map((i) => recordText(spec.records[i], spec.encoding));
      let body: string;
      if (spec.layout === 'jsonl') {
        body = texts.join('\n') + '\n';
        slice.forEach((i, k) => (placements[i] = { file, line: k + 1 }));
      } else {
        body = '[' + texts.join(',') + ']';
        // Lines inside a record (raw corruptions may hold some) move the next ones down.
        let line = 1;
        slice.forEach((i, k) => {
          placements[i] = { file, line, element: k + 1 };
          line += texts[k].split('\n').length - 1;
        });
      }
      let bytes = Buffer.from(body);
      if (spec.gzip) bytes = gzipSync(bytes);
      const pf = partFiles.get(part) ?? { count: 0, bytes: 0 };
      partFiles.set(part, { count: pf.count + 1, bytes: pf.bytes + bytes.length }); // the manifest counts the whole file
      if (spec.truncate?.includes(name)) bytes = bytes.subarray(0, Math.floor(bytes.length / 2));
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, bytes);
      files.push(file);
    }
  }
  mkdirSync(taskDir, { recursive: true });
  for (let part = 0; part < parts; part++) {
    const pf = partFiles.get(part) ?? { count: 0, bytes: 0 };
    // ExportInfo.finalizeExport's fields, in its order, pretty-printed.
    const manifest = {
      host_id: '7f3a2b9c-1d4e-4f5a-9b8c-7d6e5f4a3b2c',
      account_id: ACCOUNT,
      export_id: exportId,
      task_id: TASK,
      collections: spec.collections,
      snapshot_ts: SNAPSHOT_TS,
      doc_format: spec.encoding,
      datafile_format: spec.layout,
      datafile_compression: spec.gzip,
      datafile_ext: ext,
      part,
      total_parts: parts,
      files_count: pf.count,
      files_bytes: pf.bytes,
      ...spec.manifestOverrides?.[part],
    };
    writeFileSync(path.join(taskDir, `metadata_${String(part).padStart(2, '0')}.json`), JSON.stringify(manifest, null, 2));
  }
  for (const [rel, content] of Object.entries(spec.extraFiles ?? {})) {
    const file = path.join(taskDir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  // Reading order: collections as the manifest lists them, credentials last, then part and ordinal.
  const rank = (f: string) => {
    const coll = path.basename(path.dirname(f));
    return coll === 'Credential' ? Infinity : spec.collections.indexOf(coll);
  };
  files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return { taskDir, exportDir, accountDir, files, placements };
}

// --- v4 driver dumps ----------------------------------------------------------------------------

/** A value as the v4 driver's toJSON writes it (the wire's literal forms). */
export function dumpJson(v: FV): J {
  if (!isTagged(v)) return Array.isArray(v) ? v.map(dumpJson) : v;
  if ('long' in v) return new RawNumber(String(v.long));
  if ('int' in v) return new RawNumber(String(v.int));
  if ('double' in v) return new RawNumber(Number.isInteger(v.double) ? v.double.toFixed(1) : String(v.double)); // 3.0 stays a Double
  if ('time' in v) return { '@ts': v.time };
  if ('date' in v) return { '@date': v.date };
  if ('bytes' in v) return { '@bytes': v.bytes };
  if ('ref' in v || 'deletedRef' in v) {
    const r = 'ref' in v ? v.ref : v.deletedRef;
    return { '@ref': { id: r.id, collection: { '@ref': { id: r.coll, collection: { '@ref': { id: 'collections' } } } } } };
  }
  const fields = new Map(v.obj.map(([k, x]) => [k, dumpJson(x)] as [string, J]));
  return v.obj.some(([k]) => k.startsWith('@')) ? { '@obj': fields } : fields;
}

/** A document's line in a dump: {"ref", "ts" (µs), "ttl"?, "data"}. */
export function dumpRecord(d: FixtureDoc): string {
  const line = new Map<string, J>([
    ['ref', dumpJson({ ref: { coll: d.coll, id: d.id } })],
    ['ts', new RawNumber(String(parseIsoTime(d.ts)! / 1000n))],
  ]);
  if (d.ttl) line.set('ttl', { '@ts': d.ttl });
  line.set('data', new Map(d.fields.map(([k, v]) => [k, dumpJson(v)] as [string, J])));
  return json(line);
}

/** A credential's line as v4 returns it: no hashed_password unless `withHash`. */
export function dumpCredential(c: FixtureCredential, withHash: boolean): string {
  const line = new Map<string, J>([
    ['ref', { '@ref': { id: c.id, collection: { '@ref': { id: 'credentials' } } } }],
    ['ts', new RawNumber(String(parseIsoTime(c.ts)! / 1000n))],
    ['instance', dumpJson({ ref: c.document })],
  ]);
  if (withHash) line.set('hashed_password', c.hashedPassword);
  return json(line);
}

/** Writes `name` in `dir` holding these lines (NDJSON), or a JSON array of them; gzipped when the name ends in .gz. */
export function writeDump(dir: string, name: string, lines: string[], layout: 'lines' | 'array' = 'lines'): string {
  const file = path.join(dir, name);
  mkdirSync(dir, { recursive: true });
  const body = Buffer.from(layout === 'lines' ? lines.join('\n') + '\n' : '[\n' + lines.join(',\n') + '\n]\n');
  writeFileSync(file, name.endsWith('.gz') ? gzipSync(body) : body);
  return file;
}

// --- the fixture data ---------------------------------------------------------------------------

const TS = (n: number) => `2025-01-09T19:07:${String(20 + n).padStart(2, '0')}.642703Z`;

/** Every value type, refs across collections, look-alikes that are not refs, reserved field names. */
export const EVERY_TYPE: [string, FV][] = [
  ['long', { long: 9007199254740993n }], // beyond 2^53
  ['negLong', { long: -9223372036854775808n }],
  ['int', { int: 42 }],
  ['double', { double: 2.5 }],
  ['wholeDouble', { double: 3 }],
  ['bigDouble', { double: 1e300 }],
  ['text', 'héllo wörld ✓ 🎉 "quoted" \\ back'],
  ['yes', true],
  ['nothing', null],
  ['at', { time: '2024-02-29T12:34:56.123456Z' }],
  ['day', { date: '2024-02-29' }],
  ['blob', { bytes: 'AAEC/w==' }],
  ['nested', { obj: [['list', [{ int: 1 }, 'two', [{ double: 3.5 }], { obj: [['deep', true]] }]], ['empty', { obj: [] }], ['none', []]] }],
  ['friend', { ref: { coll: 'Coll0', id: '411' } }],
  ['gone', { deletedRef: { coll: 'Coll0', id: '499' } }],
  ['lookalike', { obj: [['id', '5'], ['coll', 'Elsewhere']] }],
  ['escaped', { obj: [['@weird', { int: 1 }], ['plain', 'x']] }],
  // v4 field names that v10 keeps under `data`
  ['ts', { long: 5n }],
  ['data', { obj: [['inner', 'kept']] }],
];

export const DOCS: FixtureDoc[] = [
  { coll: 'Coll0', id: '411', ts: TS(0), fields: [['desc', 'zero'], ['n', { int: 0 }]] },
  { coll: 'Coll0', id: '412', ts: TS(1), ttl: '2030-01-01T00:00:00Z', fields: [['desc', 'one'], ['peer', { ref: { coll: 'Coll1', id: '501' } }]] },
  { coll: 'Coll1', id: '501', ts: TS(2), fields: EVERY_TYPE },
  { coll: 'Coll1', id: '502', ts: TS(3), fields: [['desc', 'two'], ['back', [{ ref: { coll: 'Coll0', id: '412' } }]]] },
  { coll: 'Coll0', id: '413', ts: TS(4), fields: [] },
  { coll: 'Coll1', id: '503', ts: TS(5), fields: [['desc', 'three']] },
];

export const CREDENTIAL: FixtureCredential = {
  id: '601',
  ts: TS(6),
  document: { coll: 'Coll0', id: '411' },
  hashedPassword: '$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy',
};

export const COLLECTIONS = ['Coll0', 'Coll1', 'Credential'];

/** The standard records: every document, then the credential. */
export function standardRecords(): Placed[] {
  return [...DOCS.map((doc) => ({ doc })), { cred: CREDENTIAL }];
}
