// The pieces of `flora export` that need no server: values and documents in Fauna's snapshot form
// read back by the snapshot reader, the flora manifest written and read (and refused when it
// cannot be followed), the line files' counts and hashes, and the progress lines.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { faunaCredential, faunaDocument, faunaValue, NoFaunaForm } from '../../src/transfer/export/faunaRecord';
import { LineFile } from '../../src/transfer/export/lineFile';
import { streamProgress } from '../../src/transfer/export/progress';
import { databaseDir, readFloraManifest, renderManifest, type FloraManifest } from '../../src/transfer/floraFormat';
import { exportItem } from '../../src/transfer/sources/exportDocument';
import { decodeTagged } from '../../src/transfer/sources/exportValues';
import { SourceError } from '../../src/transfer/sources';
import { parseJson } from '../../src/wire/json';
import { parseDate, parseIsoTime } from '../../src/wire/time';
import { Bytes, DateV, Lambda, Ref, SetV, Time, type Obj, type Value } from '../../src/values/types';
import { canon } from '../helpers/sourceItems';

const time = (iso: string) => new Time(parseIsoTime(iso)!);

const EVERY: [string, Value][] = [
  ['int', 42n],
  ['long', 9007199254740993n],
  ['minLong', -9223372036854775808n],
  ['double', 2.5],
  ['wholeDouble', 3],
  ['bigDouble', 1e300],
  ['text', 'héllo "q" \\'],
  ['yes', true],
  ['nothing', null],
  ['at', time('2024-02-29T12:34:56.123456789Z')],
  ['day', new DateV(parseDate('2024-02-29')!)],
  ['blob', new Bytes(Uint8Array.from([0, 1, 2, 255]))],
  ['friend', Ref.doc('people', '7')],
  ['key', new Ref('12', Ref.native('keys'))],
  ['coll', Ref.collection('people')],
  ['role', Ref.schema('roles', 'admin_role')],
  ['native', Ref.native('collections')],
  ['nested', [1n, [2.5, new Map<string, Value>([['deep', 'x']])]]],
  ['escaped', new Map<string, Value>([['@weird', 1n]])],
];

describe("Fauna's snapshot form", () => {
  test('tagged: every value reads back as what it was', () => {
    for (const [name, v] of EVERY) {
      const text = faunaValue(v, 'tagged', name);
      assert.equal(canon(decodeTagged(parseJson(text), name)), canon(v), `${name}: ${text}`);
    }
    assert.equal(faunaValue(42n, 'tagged', ''), '{"@int":"42"}');
    assert.equal(faunaValue(2n ** 31n, 'tagged', ''), '{"@long":"2147483648"}');
    assert.equal(faunaValue(3, 'tagged', ''), '{"@double":"3.0"}');
  });

  test('simple: the same without wrappers', () => {
    assert.equal(faunaValue(time('2024-02-29T12:34:56Z'), 'simple', ''), '"2024-02-29T12:34:56Z"');
    assert.equal(faunaValue(Ref.doc('people', '7'), 'simple', ''), '{"id":"7","coll":"people"}');
    assert.equal(faunaValue(Ref.collection('people'), 'simple', ''), '{"name":"people","coll":"Collection"}');
    assert.equal(faunaValue(new Map([['@x', 1n]]), 'simple', ''), '{"@x":1}');
    assert.equal(faunaValue(3, 'simple', ''), '3.0');
    assert.equal(faunaValue(NaN, 'simple', ''), '"NaN"');
  });

  test('values v10 cannot hold name where they are', () => {
    const cases: [Value, RegExp][] = [
      [new Lambda('x', { var: 'x' }, '4'), /data.f: a Lambda value has no form/],
      [new SetV(new Map([['documents', Ref.collection('c')]])), /data.f: a SetV value has no form/],
      [Ref.schema('indexes', 'by_name'), /data.f: the ref indexes\/by_name has no form/],
      [Ref.doc('c', '1', Ref.schema('databases', 'child')), /data.f: the ref .* into another database/],
    ];
    for (const [v, message] of cases) assert.throws(() => faunaValue(new Map([['f', v]]), 'tagged', 'data'), (e: Error) => e instanceof NoFaunaForm && message.test(e.message));
  });

  test('a document and a credential read back by the snapshot reader; reserved names go inside data', () => {
    const data: Obj = new Map<string, Value>([...EVERY.filter(([k]) => k !== 'native' && k !== 'role' && k !== 'coll'), ['ts', 5n], ['data', new Map([['inner', 'kept']])], ['update', true]]);
    for (const enc of ['tagged', 'simple'] as const) {
      const text = faunaDocument('people', '101', time('2025-01-01T00:00:00.5Z'), time('2030-01-01T00:00:00Z'), data, enc);
      const top = parseJson(text) as Map<string, unknown>;
      assert.deepEqual([...top.keys()].slice(0, 4), ['id', 'coll', 'ts', 'ttl']);
      assert.deepEqual([...(top.get('data') as Map<string, unknown>).keys()], ['ts', 'data', 'update']);
      const item = exportItem(text, 'people', { file: 'f', line: 1 }, { encoding: enc, simple: { exported: new Set(['people']), refsTaken: 0 } });
      assert.equal(item.kind, 'document', item.kind === 'problem' ? item.reason : item.kind);
      if (item.kind !== 'document') continue;
      assert.equal(canon(item.doc.ts), canon(time('2025-01-01T00:00:00.5Z')));
      assert.equal(canon(item.doc.ttl), canon(time('2030-01-01T00:00:00Z')));
      if (enc === 'tagged') assert.equal(canon(item.doc.data), canon(data));
      else assert.equal(item.doc.data.get('at'), '2024-02-29T12:34:56.123456789Z');
    }
    const cred = faunaCredential('601', time('2025-01-01T00:00:00Z'), Ref.doc('people', '101'), '$2a$10$abc', 'tagged');
    const item = exportItem(cred, 'Credential', { file: 'f', line: 1 }, { encoding: 'tagged', simple: { exported: new Set(), refsTaken: 0 } });
    assert.deepEqual(item.kind === 'credential' && [item.cred.id, item.cred.instance, item.cred.hashedPassword], ['601', { collection: 'people', id: '101' }, '$2a$10$abc']);
  });
});

describe('the flora manifest', () => {
  const manifest: FloraManifest = {
    snapshotTs: 1732650000123456n,
    source: { url: 'http://h:1', database: 'a/b' },
    options: { history: true, keys: false, gzip: true },
    files: [{ path: 'db/schema.ndjson.gz', records: 3, bytes: 99, sha256: 'a'.repeat(64) }],
    databases: [{ path: '', collections: { people: 3 }, credentials: 1, keys: 0, tokens: 0 }],
  };

  test('written and read back; a database directory per path', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'flora-manifest-'));
    try {
      writeFileSync(path.join(dir, 'manifest.json'), renderManifest(manifest));
      const json = parseJson(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Map<string, unknown>;
      assert.equal(json.get('snapshot_time'), '2024-11-26T19:40:00.123456Z');
      assert.deepEqual(await readFloraManifest(dir), manifest);
      assert.equal(databaseDir([]), 'db');
      assert.equal(databaseDir(['a', 'b']), 'db/databases/a/databases/b');
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  test('one that cannot be followed is a SourceError saying why; another format is not ours', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'flora-manifest-'));
    const write = (text: string) => writeFileSync(path.join(dir, 'manifest.json'), text);
    try {
      assert.equal(await readFloraManifest(dir), undefined, 'no manifest');
      write('{"format":"something-else"}');
      assert.equal(await readFloraManifest(dir), undefined);
      const cases: [string, RegExp][] = [
        [renderManifest(manifest).replace('"version":1', '"version":2'), /version 2: this Flora reads version 1/],
        [renderManifest(manifest).replace('db/schema.ndjson.gz', '../etc/passwd'), /leaves the export's directory/],
        [renderManifest(manifest).replace('a'.repeat(64), 'xyz'), /not a SHA-256/],
        [renderManifest(manifest).replace('"records": 3', '"records": -1'), /files\[0\]\.records is missing or not a count/],
        ['{"format":"flora-export",', /not valid JSON/],
      ];
      for (const [text, message] of cases) {
        write(text);
        await assert.rejects(readFloraManifest(dir), (e: Error) => e instanceof SourceError && message.test(e.message), message.source);
      }
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe('line files and progress', () => {
  test('a gzipped line file counts its records and hashes the bytes on disk', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'flora-lines-'));
    try {
      const f = await LineFile.open(dir, 'db/collections/c.ndjson.gz', true);
      for (let i = 0; i < 5000; i++) await f.write(`{"n":${i}}`);
      const written = await f.close();
      const bytes = readFileSync(path.join(dir, 'db/collections/c.ndjson.gz'));
      assert.deepEqual(written, { path: 'db/collections/c.ndjson.gz', records: 5000, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
      assert.equal(gunzipSync(bytes).toString().split('\n')[4999], '{"n":4999}');
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  test('a line per collection in a log; one line rewritten in place on a terminal', () => {
    let clock = 0;
    const capture = () => {
      const s = new PassThrough();
      let text = '';
      s.on('data', (c: Buffer) => (text += c.toString()));
      return { s, text: () => text };
    };
    const log = capture();
    const plain = streamProgress(log.s, false, () => clock);
    plain.started('app', 'collection c');
    clock = 2000;
    plain.records(100);
    plain.finished('app', 'collection c', 100);
    plain.done('complete');
    assert.equal(log.text(), 'app: collection c: 100 records (100 in all, 50/s)\ncomplete\n');

    const term = capture();
    const tty = streamProgress(term.s, true, () => clock);
    tty.started('', 'collection c');
    tty.records(10);
    tty.finished('', 'collection c', 10);
    assert.match(term.text(), /^\r\x1b\[K0 done, 0 records, 0\/s — collection c\r\x1b\[K1 done, 10 records/);
    assert.ok(!term.text().includes('\n'));
  });
});
