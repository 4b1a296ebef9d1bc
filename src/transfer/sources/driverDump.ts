// Dumps made with the v4 driver: NDJSON files (or JSON arrays), one document per record as the
// driver's toJSON writes it: {"ref": {"@ref": …}, "ts": <µs>, "data": {…}, "ttl"?: {"@ts": …}},
// values in the wire's literal forms (@ref, @ts, @date, @bytes, @set, @query, @obj), decoded by
// the wire decoder itself. The collection comes from each record's ref, so a file may hold any.

import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { decodeLiteral } from '../../wire/decode';
import type { JsonObject, JsonValue } from '../../wire/expr';
import { QueryError } from '../../values/errors';
import { Ref, Time, isObj, type Obj, type Value } from '../../values/types';
import { BadValue, checkId, recordItem } from './badValue';
import { readRecords } from './records';
import type { Origin, ReadOptions, Source, SourceItem } from './types';

export const DUMP_FILE = /\.(ndjson|jsonl|json)(\.gz)?$/;

/** The dump files of a directory (not its subdirectories), sorted by name. */
export async function findDumpFiles(dir: string): Promise<string[]> {
  const list = await readdir(dir, { withFileTypes: true });
  return list
    .filter((e) => e.isFile() && DUMP_FILE.test(e.name))
    .map((e) => path.join(dir, e.name))
    .sort();
}

export async function openDriverDump(files: readonly string[]): Promise<Source> {
  const described = await Promise.all(files.map(async (p) => ({ path: p, bytes: (await stat(p)).size })));
  const collections: string[] = []; // filled in as records are read
  return {
    describe: () => ({ format: 'driver-dump', collections, files: described }),
    items: (opts) => dumpItems(files, collections, opts),
  };
}

async function* dumpItems(files: readonly string[], collections: string[], opts?: ReadOptions): AsyncGenerator<SourceItem> {
  const seen = new Set(collections);
  for (const file of files) {
    if (opts?.skipFiles?.has(file)) continue;
    for await (const batch of readRecords(file, 'auto', undefined, opts?.onBytes))
      for (const r of batch) {
        if (r.kind === 'problem') {
          yield { kind: 'problem', file, line: r.line, element: r.element, reason: r.reason };
          continue;
        }
        const item = dumpItem(r.text, { file, line: r.line, element: r.element });
        if (item.kind === 'document' && !seen.has(item.doc.collection)) {
          seen.add(item.doc.collection);
          collections.push(item.doc.collection);
        }
        yield item;
      }
  }
}

const DOCUMENT_FIELDS = new Set(['ref', 'ts', 'ttl', 'data']);
const CREDENTIAL_FIELDS = new Set(['ref', 'ts', 'instance', 'data', 'hashed_password']);

/** One record of a dump as an item: a document, a credential, or the problem. */
export function dumpItem(text: string, origin: Origin): SourceItem {
  return recordItem(text, origin, (json) => toItem(json, origin));
}

function toItem(json: JsonObject, origin: Origin): SourceItem {
  if (!json.has('ref')) {
    const hint = json.has('coll') && json.has('id') ? ' (this looks like a document of Fauna\'s snapshot export: point at the export\'s directory, which holds metadata_NN.json)' : '';
    throw new BadValue('ref', `missing${hint}`);
  }
  const ref = literal(json.get('ref')!, 'ref');
  if (!(ref instanceof Ref)) throw new BadValue('ref', 'not a {"@ref": …}');
  const ts = docTime(json.get('ts'), 'ts');
  const native = ref.nativeParent;
  if (native === 'keys' || native === 'tokens')
    throw new BadValue('ref', `a ${native === 'keys' ? 'key' : 'token'} is not imported: Fauna never returns secrets, so it could not be used; create new ones`);
  if (native === 'credentials') return credential(json, ref, ts, origin);
  if (!ref.isUserDocument) throw new BadValue('ref', `${ref.toString()} is not a document of a user collection`);
  if (ref.collection!.database) throw new BadValue('ref', 'a document of a child database: import it into that database');
  for (const k of json.keys()) if (!DOCUMENT_FIELDS.has(k)) throw new BadValue(k, 'unexpected in a document');
  const id = checkId(ref.id, 'ref.id');
  const data = json.has('data') ? literal(json.get('data')!, 'data') : new Map();
  if (!isObj(data)) throw new BadValue('data', 'not an object');
  const ttl = docTime(json.get('ttl'), 'ttl');
  return { kind: 'document', doc: { collection: ref.collection!.id, id, ts, ttl, data: data as Obj, origin } };
}

function credential(json: JsonObject, ref: Ref, ts: Time | undefined, origin: Origin): SourceItem {
  for (const k of json.keys()) if (!CREDENTIAL_FIELDS.has(k)) throw new BadValue(k, 'unexpected in a credential');
  const instance = json.has('instance') ? literal(json.get('instance')!, 'instance') : undefined;
  if (!(instance instanceof Ref) || !instance.isUserDocument) throw new BadValue('instance', 'missing or not a ref to a document');
  const hashed = json.get('hashed_password');
  if (typeof hashed !== 'string' || hashed === '')
    throw new BadValue('hashed_password', 'missing: Fauna v4 never returns password hashes, so this credential cannot be imported (set a new password)');
  return {
    kind: 'credential',
    cred: { id: checkId(ref.id, 'ref.id'), instance: { collection: instance.collection!.id, id: instance.id }, hashedPassword: hashed, ts, origin },
  };
}

function literal(j: JsonValue, field: string): Value {
  try {
    return decodeLiteral(j);
  } catch (err) {
    if (err instanceof QueryError) throw new BadValue(field + err.position.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join(''), err.description);
    throw err;
  }
}

/** A document's `ts` is a Long of microseconds; `ttl` (and a `ts` written as one) a {"@ts": …}. */
function docTime(j: JsonValue | undefined, field: string): Time | undefined {
  if (j === undefined || j === null) return undefined;
  if (typeof j === 'bigint') return Time.fromMicros(j);
  const t = literal(j, field);
  if (!(t instanceof Time)) throw new BadValue(field, 'not a time (microseconds or {"@ts": …})');
  return t;
}
