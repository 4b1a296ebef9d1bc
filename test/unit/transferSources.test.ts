// The readers of Fauna exports and driver dumps (src/transfer/sources): every layout read back to
// the exact values, every corruption reported where it is with the good documents around it kept,
// and memory bounded on large files.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openSource, SourceError, type SourceDocument, type SourceItem } from '../../src/transfer/sources';
import { splitJsonArray } from '../../src/transfer/sources/jsonArray';
import { splitLines } from '../../src/transfer/sources/lines';
import type { RecordOrProblem } from '../../src/transfer/sources/records';
import { decodeSimple, decodeTagged } from '../../src/transfer/sources/exportValues';
import { parseJson } from '../../src/wire/json';
import { parseIsoTime } from '../../src/wire/time';
import { Time } from '../../src/values/types';
import {
  COLLECTIONS,
  CREDENTIAL,
  DOCS,
  SNAPSHOT_TS,
  dumpCredential,
  dumpRecord,
  exportRecord,
  floraData,
  standardRecords,
  writeDump,
  writeSnapshot,
  type Encoding,
  type FixtureDoc,
} from '../helpers/faunaExports';
import { canon, collect } from '../helpers/sourceItems';

const docsOf = (items: SourceItem[]) => items.flatMap((i) => (i.kind === 'document' ? [i.doc] : []));
const problemsOf = (items: SourceItem[]) => items.flatMap((i) => (i.kind === 'problem' ? [i] : []));
const credsOf = (items: SourceItem[]) => items.flatMap((i) => (i.kind === 'credential' ? [i.cred] : []));

function assertDoc(got: SourceDocument | undefined, want: FixtureDoc, source: Encoding | 'dump'): void {
  assert.ok(got, `${want.coll}/${want.id} read`);
  assert.equal(got.collection, want.coll);
  assert.equal(got.id, want.id);
  assert.equal(canon(got.ts), canon(timeOf(want.ts)), `${want.id} ts`);
  assert.equal(canon(got.ttl), want.ttl ? canon(timeOf(want.ttl)) : 'undefined');
  assert.equal(canon(got.data), canon(floraData(want, source)), `${want.coll}/${want.id} data`);
}

const timeOf = (iso: string) => new Time(parseIsoTime(iso)!);

let root: string;
before(() => {
  root = mkdtempSync(path.join(tmpdir(), 'flora-sources-'));
});
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = () => path.join(root, `t${n++}`);

describe('snapshot export: every encoding × layout × compression', () => {
  for (const encoding of ['simple', 'tagged'] as const)
    for (const layout of ['jsonl', 'json'] as const)
      for (const gzip of [false, true]) {
        test(`${encoding} ${layout}${gzip ? '.gz' : ''}, 2 parts, rolled over every 2 documents`, async () => {
          const records = standardRecords();
          const w = writeSnapshot(freshDir(), { encoding, layout, gzip, collections: COLLECTIONS, records, parts: 2, perFile: 2 });
          const source = await openSource(w.taskDir);
          const d = source.describe();
          assert.equal(d.format, 'fauna-snapshot');
          assert.equal(d.encoding, encoding);
          assert.deepEqual(d.collections, COLLECTIONS);
          assert.equal(canon(d.snapshotTs), `Time(${SNAPSHOT_TS})`);
          assert.deepEqual(d.files.map((f) => f.path), w.files);
          assert.ok(w.files.length >= 5, 'several files per collection (roll-over) and per part');

          const items: SourceItem[] = [];
          for await (const item of source.items()) items.push(item);
          assert.deepEqual(problemsOf(items), []);
          const docs = docsOf(items);
          assert.equal(docs.length, DOCS.length);
          DOCS.forEach((want, i) => {
            const got = docs.find((x) => x.id === want.id);
            assertDoc(got, want, encoding);
            const at = w.placements[i];
            assert.deepEqual(got!.origin, { file: at.file, line: at.line, element: at.element }, `${want.id} origin`);
          });
          assert.deepEqual(credsOf(items), [
            {
              id: CREDENTIAL.id,
              instance: { collection: CREDENTIAL.document.coll, id: CREDENTIAL.document.id },
              hashedPassword: CREDENTIAL.hashedPassword,
              ts: credsOf(items)[0].ts,
              origin: { file: w.placements[DOCS.length].file, line: 1, element: layout === 'json' ? 1 : undefined },
            },
          ]);
          assert.equal(canon(credsOf(items)[0].ts), canon(timeOf(CREDENTIAL.ts)));
          const notes = items.filter((i) => i.kind === 'note');
          if (encoding === 'simple') {
            assert.equal(notes.length, 1);
            assert.match((notes[0] as { text: string }).text, /^simple encoding: 3 object\(s\) of exactly \{id, coll\}/);
          } else assert.equal(notes.length, 0);
          // Credentials come after every document they could name.
          assert.equal(items.findIndex((i) => i.kind === 'credential'), DOCS.length);
        });
      }

  test('the user may point at the task directory, export_<id>/, the account directory, or a manifest', async () => {
    const w = writeSnapshot(freshDir(), { encoding: 'tagged', layout: 'jsonl', gzip: false, collections: COLLECTIONS, records: standardRecords() });
    for (const p of [w.taskDir, w.exportDir, w.accountDir, path.join(w.taskDir, 'metadata_00.json')]) {
      const source = await openSource(p);
      assert.equal(source.describe().format, 'fauna-snapshot', p);
      assert.deepEqual(source.describe().files.map((f) => f.path), w.files);
    }
  });

  test('skipFiles leaves out the files a resumed import finished', async () => {
    const w = writeSnapshot(freshDir(), { encoding: 'tagged', layout: 'jsonl', gzip: true, collections: COLLECTIONS, records: standardRecords(), perFile: 2 });
    const items = await collect(w.taskDir, new Set([w.files[0]]));
    const ids = docsOf(items).map((d) => d.id);
    assert.equal(ids.length, DOCS.length - 2);
    assert.ok(!ids.includes('411') && !ids.includes('412'));
  });

  test('onBytes is told every byte of every data file as it is read (the progress of an import)', async () => {
    const w = writeSnapshot(freshDir(), { encoding: 'tagged', layout: 'json', gzip: true, collections: COLLECTIONS, records: standardRecords(), perFile: 2 });
    const source = await openSource(w.taskDir);
    let read = 0;
    for await (const _ of source.items({ onBytes: (n) => (read += n) }));
    assert.equal(read, source.describe().files.reduce((a, f) => a + f.bytes, 0));
    assert.ok(read > 0);
  });

  test('a simple {id, coll} naming an exported collection is a ref, one naming another is an object; reserved names come back from `data`', async () => {
    const w = writeSnapshot(freshDir(), { encoding: 'simple', layout: 'jsonl', gzip: false, collections: COLLECTIONS, records: standardRecords() });
    const doc = docsOf(await collect(w.taskDir)).find((d) => d.id === '501')!;
    assert.equal(canon(doc.data.get('friend')), 'Ref(collections/Coll0/411)');
    assert.equal(canon(doc.data.get('lookalike')), '{"coll":"Elsewhere","id":"5"}');
    assert.equal(doc.data.get('gone'), null);
    assert.equal(canon(doc.data.get('ts')), 'L5');
    assert.equal(canon(doc.data.get('data')), '{"inner":"kept"}');
    assert.equal(canon(doc.data.get('escaped')), '{"@weird":L1,"plain":"x"}');
  });
});

describe('snapshot export: corruptions are reported where they are, the rest is read', () => {
  const good = (i: number): { doc: FixtureDoc } => ({ doc: DOCS[i] });

  for (const layout of ['jsonl', 'json'] as const)
    test(`bad records in ${layout}: malformed JSON, no id, {"@int":"x"}, a non-numeric id, a foreign coll`, async () => {
      const records = [
        good(0),
        { raw: '{"id":"700","coll":{"@mod":"Coll0"},"ts":{"@time":"2025-01-09T19:07:25Z"},"desc":', coll: 'Coll0' },
        good(1),
        { raw: '{"coll":{"@mod":"Coll0"},"ts":{"@time":"2025-01-09T19:07:25Z"},"desc":"no id"}', coll: 'Coll0' },
        { raw: '{"id":"701","coll":{"@mod":"Coll0"},"ts":{"@time":"2025-01-09T19:07:25Z"},"n":{"@int":"x"}}', coll: 'Coll0' },
        { raw: '{"id":"abc","coll":{"@mod":"Coll0"},"ts":{"@time":"2025-01-09T19:07:25Z"}}', coll: 'Coll0' },
        { raw: '{"id":"702","coll":{"@mod":"Coll1"},"ts":{"@time":"2025-01-09T19:07:25Z"}}', coll: 'Coll0' },
        { raw: '{"id":"703","coll":{"@mod":"Coll0"},"ts":{"@time":"2025-01-09T19:07:25Z"},"s":{"@set":"abc"}}', coll: 'Coll0' },
        good(4),
      ];
      // A malformed array element needs balanced brackets for the cutter to find its end.
      if (layout === 'json') records[1] = { raw: '{"id":"700","coll":{"@mod":"Coll0"},"desc":nope}', coll: 'Coll0' };
      const w = writeSnapshot(freshDir(), { encoding: 'tagged', layout, gzip: false, collections: ['Coll0', 'Coll1'], records });
      const items = await collect(w.taskDir);
      assert.deepEqual(docsOf(items).map((d) => d.id), ['411', '412', '413']);
      const problems = problemsOf(items).map((p) => ({ file: p.file, line: p.line, element: p.element, reason: p.reason }));
      const at = (i: number) => ({ file: w.placements[i].file, line: w.placements[i].line, element: w.placements[i].element });
      const expected: [number, RegExp][] = [
        [1, /^malformed JSON/],
        [3, /^field id: missing$/],
        [4, /^field n: @int value "x" is not an integer$/],
        [5, /^field id: id "abc" is not a 64-bit number$/],
        [6, /^field coll: "Coll1" in a file of collection Coll0$/],
        [7, /^field s: @set values have no FQL v4 form$/],
      ];
      assert.equal(problems.length, expected.length, JSON.stringify(problems));
      expected.forEach(([i, reason], k) => {
        const { reason: got, ...where } = problems[k];
        assert.deepEqual(where, at(i), `record ${i}`);
        assert.match(got, reason);
      });
    });

  /** 400 documents in one gzipped file cut in half: what is read, and the problems. */
  async function truncated(encoding: Encoding, layout: 'jsonl' | 'json') {
    const many: FixtureDoc[] = Array.from({ length: 400 }, (_, i) => ({
      coll: 'Coll0',
      id: String(1000 + i),
      ts: '2025-01-09T19:07:25.642703Z',
      fields: [['desc', `document ${i} ${'x'.repeat(i % 50)}`], ['n', { long: BigInt(i) }]],
    }));
    const w = writeSnapshot(freshDir(), {
      encoding,
      layout,
      gzip: true,
      collections: ['Coll0'],
      records: many.map((doc) => ({ doc })),
      truncate: [`Coll0_00_000000.${layout}.gz`],
    });
    const items = await collect(w.taskDir);
    const docs = docsOf(items);
    assert.ok(docs.length > 0 && docs.length < many.length, `${docs.length} read`);
    docs.forEach((d, i) => assert.equal(d.id, String(1000 + i), 'the documents before the cut, in order, none skipped'));
    const [size, cut, ...more] = problemsOf(items);
    assert.deepEqual(more, []);
    assert.deepEqual([size.file, size.line], [path.join(w.taskDir, 'metadata_00.json'), 17], 'the line of "files_bytes"');
    assert.match(size.reason, /^files_bytes is \d+ but the data files of part 0 hold \d+ bytes: one may be truncated or changed$/);
    assert.equal(cut.file, w.files[0]);
    return { docs, problem: cut };
  }

  test('a truncated .jsonl.gz: the complete lines before the cut are read, the cut is reported at the line reached', async () => {
    const { docs, problem } = await truncated('tagged', 'jsonl');
    assert.equal(problem.line, docs.length + 1);
    assert.match(problem.reason, /^gzip data ends early \(truncated file\) \(the line is incomplete and was not read\)$/);
  });

  test('a truncated .json.gz: the elements before the cut are read, the one cut is reported', async () => {
    const { docs, problem } = await truncated('simple', 'json');
    assert.deepEqual([problem.line, problem.element], [1, docs.length + 1]);
    assert.match(problem.reason, /^gzip data ends early \(truncated file\) \(element \d+ is incomplete and was not read\)$/);
  });

  test('an empty data file, a stray file, a wrong total_parts, a files_count that does not match', async () => {
    const w = writeSnapshot(freshDir(), {
      encoding: 'tagged',
      layout: 'jsonl',
      gzip: false,
      collections: ['Coll0', 'Coll1'],
      records: [good(0), good(2), good(1), good(3)],
      parts: 2,
      manifestOverrides: { 1: { total_parts: 3 }, 0: { files_count: 3 } },
      extraFiles: {
        'data/collections/Coll0/Coll0_00_000001.jsonl': '',
        'data/collections/Coll1/notes.txt': 'hello',
      },
    });
    const items = await collect(w.taskDir);
    assert.deepEqual(docsOf(items).map((d) => d.id).sort(), ['411', '412', '501', '502']);
    const problems = problemsOf(items);
    const find = (re: RegExp) => problems.find((p) => re.test(p.reason));
    const stray = find(/not a data file/);
    assert.equal(stray?.file, path.join(w.taskDir, 'data/collections/Coll1/notes.txt'));
    const empty = find(/^empty file/);
    assert.deepEqual([empty?.file, empty?.line], [path.join(w.taskDir, 'data/collections/Coll0/Coll0_00_000001.jsonl'), 0]);
    const parts = find(/^total_parts is 3 for part 1; .*metadata_00\.json says 2$/);
    assert.equal(parts?.file, path.join(w.taskDir, 'metadata_01.json'));
    assert.equal(parts?.line, 16, 'the line of "total_parts" in the pretty-printed manifest');
    const count = find(/^files_count is 3 but 2 data file\(s\) of part 0 were found$/);
    assert.deepEqual([count?.file, count?.line], [path.join(w.taskDir, 'metadata_00.json'), 17]);
    assert.equal(problems.length, 4, JSON.stringify(problems));
    // Problems about the tree come before any document.
    assert.ok(items.findIndex((i) => i.kind === 'document') > items.findIndex((i) => i.kind === 'problem'));
  });

  test('a missing part is reported; manifests Flora cannot follow are clear errors', async () => {
    const w = writeSnapshot(freshDir(), { encoding: 'tagged', layout: 'jsonl', gzip: false, collections: ['Coll0'], records: [good(0)], manifestOverrides: { 0: { total_parts: 2 } } });
    const missing = problemsOf(await collect(w.taskDir)).find((p) => /^part 1 of 2 has no manifest/.test(p.reason));
    assert.equal(missing?.file, path.join(w.taskDir, 'metadata_01.json'));

    const cases: [Record<string, unknown>, RegExp][] = [
      [{ doc_format: 'decorated' }, /"doc_format" is "decorated": Flora reads the "simple" and "tagged" encodings/],
      [{ datafile_format: 'csv' }, /"datafile_format" is "csv"/],
      [{ datafile_compression: 'zstd' }, /"datafile_compression" is not true or false/],
      [{ datafile_ext: 'jsonl.zst' }, /"datafile_ext" is "jsonl.zst", but the format and compression say "jsonl"/],
    ];
    for (const [override, message] of cases) {
      const bad = writeSnapshot(freshDir(), { encoding: 'tagged', layout: 'jsonl', gzip: false, collections: ['Coll0'], records: [good(0)], manifestOverrides: { 0: override } });
      await assert.rejects(openSource(bad.taskDir), (e: unknown) => e instanceof SourceError && message.test(e.message));
    }
  });

  test('paths that hold no export, or several, are clear errors', async () => {
    await assert.rejects(openSource(path.join(root, 'nowhere')), /no such file or directory/);
    const empty = freshDir();
    writeFileSync(path.join(root, 'readme.txt'), 'x');
    await assert.rejects(openSource(path.join(root, 'readme.txt')), /not a Fauna export/);
    writeSnapshot(empty, { encoding: 'tagged', layout: 'jsonl', gzip: false, collections: ['Coll0'], records: [good(0)] }, 'a');
    const two = writeSnapshot(empty, { encoding: 'tagged', layout: 'jsonl', gzip: false, collections: ['Coll0'], records: [good(0)] }, 'b');
    await assert.rejects(openSource(two.accountDir), /holds 2 snapshot exports; point at one of/);
    const nothing = freshDir();
    writeDump(nothing, 'x.txt', ['{}']);
    await assert.rejects(openSource(nothing), /no Fauna export found/);
  });
});

describe('driver dumps', () => {
  test('NDJSON per collection, plain and gzipped, and a JSON array: every value type, documents and credentials', async () => {
    const dir = freshDir();
    const withHash = dumpCredential(CREDENTIAL, true);
    writeDump(dir, 'Coll0.ndjson', DOCS.filter((d) => d.coll === 'Coll0').map(dumpRecord));
    writeDump(dir, 'Coll1.jsonl.gz', DOCS.filter((d) => d.coll === 'Coll1').map(dumpRecord));
    writeDump(dir, 'credentials.json', [withHash], 'array');
    const source = await openSource(dir);
    assert.equal(source.describe().format, 'driver-dump');
    assert.equal(source.describe().files.length, 3);
    const items: SourceItem[] = [];
    for await (const item of source.items()) items.push(item);
    assert.deepEqual(problemsOf(items), []);
    for (const want of DOCS) assertDoc(docsOf(items).find((d) => d.id === want.id), want, 'dump');
    assert.deepEqual(source.describe().collections, ['Coll0', 'Coll1']);
    const [cred] = credsOf(items);
    assert.deepEqual([cred.id, cred.instance, cred.hashedPassword], [CREDENTIAL.id, { collection: 'Coll0', id: '411' }, CREDENTIAL.hashedPassword]);
    assert.deepEqual(cred.origin, { file: path.join(dir, 'credentials.json'), line: 2, element: 1 });
    const d412 = docsOf(items).find((d) => d.id === '412')!;
    assert.deepEqual(d412.origin, { file: path.join(dir, 'Coll0.ndjson'), line: 2, element: undefined });
  });

  test('keys, tokens, credentials without a hash, bad lines: reported and skipped, the rest read', async () => {
    const dir = freshDir();
    const file = writeDump(dir, 'mixed.ndjson', [
      dumpRecord(DOCS[0]),
      '{"ref":{"@ref":{"id":"300","collection":{"@ref":{"id":"keys"}}}},"ts":1,"role":"server","hashed_secret":"x"}',
      dumpCredential(CREDENTIAL, false),
      '{"ref":{"@ref":{"id":"9","collection":{"@ref":{"id":"tokens"}}}},"ts":1}',
      '{"ref":{"@ref":{"id":"1","collection":{"@ref":{"id":"Coll0","collection":{"@ref":{"id":"collections"}}}}}},"ts":1,"data":{"t":{"@ts":"yesterday"}}}',
      'not json',
      '',
      '{"id":"411","coll":"Coll0","ts":"2025-01-09T19:07:25Z"}',
      '{"ref":{"@ref":{"id":"x1","collection":{"@ref":{"id":"Coll0","collection":{"@ref":{"id":"collections"}}}}}},"ts":1,"data":{}}',
      '{"ref":{"@ref":{"id":"2","collection":{"@ref":{"id":"Coll0","collection":{"@ref":{"id":"collections"}}}}}},"ts":1,"data":{},"extra":1}',
      dumpRecord(DOCS[1]),
    ]);
    const items = await collect(file);
    assert.deepEqual(docsOf(items).map((d) => [d.id, d.origin.line]), [['411', 1], ['412', 11]]);
    const problems = problemsOf(items).map((p) => [p.line, p.reason]);
    const expected: [number, RegExp][] = [
      [2, /^field ref: a key is not imported/],
      [3, /^field hashed_password: missing: Fauna v4 never returns password hashes/],
      [4, /^field ref: a token is not imported/],
      [5, /^field data\.t: Invalid time\.$/],
      [6, /^malformed JSON/],
      [8, /this looks like a document of Fauna's snapshot export/],
      [9, /^field ref\.id: id "x1" is not a 64-bit number$/],
      [10, /^field extra: unexpected in a document$/],
    ];
    assert.equal(problems.length, expected.length, JSON.stringify(problems));
    expected.forEach(([line, re], k) => {
      assert.equal(problems[k][0], line);
      assert.match(problems[k][1] as string, re);
    });
    assert.ok(problemsOf(items).every((p) => p.file === file));
  });
});

describe('export values', () => {
  const tagged = (text: string) => canon(decodeTagged(parseJson(text), 'f'));
  const taggedError = (text: string) => assert.throws(() => decodeTagged(parseJson(text), 'f'), (e: Error) => (void assert.match(e.message, /^field f/), true));

  test('tagged: numbers by tag, refs to documents, natives and schema documents, @object', () => {
    assert.equal(tagged('{"@int":"-2147483648"}'), 'L-2147483648');
    assert.equal(tagged('{"@long":"9223372036854775807"}'), 'L9223372036854775807');
    assert.equal(tagged('[{"@double":"1.0E300"},{"@double":"-0.0"},{"@double":"NaN"},{"@double":"-Infinity"}]'), '[D1e+300,D-0,DNaN,D-Infinity]');
    assert.equal(tagged('{"@mod":"Coll0"}'), 'Ref(collections/Coll0)');
    assert.equal(tagged('{"@mod":"Collection"}'), 'Ref(collections)');
    assert.equal(tagged('{"@ref":{"id":"7","coll":{"@mod":"Credential"}}}'), 'Ref(credentials/7)');
    assert.equal(tagged('{"@ref":{"id":"7","coll":{"@mod":"Key"}}}'), 'Ref(keys/7)');
    assert.equal(tagged('{"@ref":{"name":"Coll0","coll":{"@mod":"Collection"}}}'), 'Ref(collections/Coll0)');
    assert.equal(tagged('{"@ref":{"name":"double","coll":{"@mod":"Function"}}}'), 'Ref(functions/double)');
    assert.equal(tagged('{"@ref":{"id":"8","coll":{"@mod":"Coll0"},"exists":false,"cause":"deleted"}}'), 'Ref(collections/Coll0/8)');
    assert.equal(tagged('{"@object":{"@ref":{"@int":"1"},"b":{"@object":{"@x":null}}}}'), '{"@ref":L1,"b":{"@x":null}}');
    assert.equal(tagged('{"a":"@int","@b":1}'), '{"@b":L1,"a":"@int"}');
  });

  test('tagged: values that are not what their tag says are bad values naming the field', () => {
    for (const bad of [
      '{"@int":"2147483648"}',
      '{"@long":"9223372036854775808"}',
      '{"@long":12}',
      '{"@double":"1,5"}',
      '{"@time":"2025-13-01T00:00:00Z"}',
      '{"@date":"2025-02-30"}',
      '{"@bytes":"***"}',
      '{"@ref":{"id":"x","coll":{"@mod":"Coll0"}}}',
      '{"@ref":{"id":"1","coll":"Coll0"}}',
      '{"@ref":{"id":"1","coll":{"@mod":"Function"}}}',
      '{"@uuid":"3f1e2d"}',
      '{"@foo":1}',
    ])
      taggedError(bad);
  });

  test('simple: {id, coll} is a ref only for an exported collection and a numeric id', () => {
    const ctx = { exported: new Set(['Coll0', 'Credential']), refsTaken: 0 };
    const simple = (text: string) => canon(decodeSimple(parseJson(text), ctx, ''));
    assert.equal(simple('{"id":"1","coll":"Coll0"}'), 'Ref(collections/Coll0/1)');
    assert.equal(simple('{"id":"2","coll":"Credential"}'), 'Ref(credentials/2)');
    assert.equal(simple('{"id":"1","coll":"Other"}'), '{"coll":"Other","id":"1"}');
    assert.equal(simple('{"id":"x","coll":"Coll0"}'), '{"coll":"Coll0","id":"x"}');
    assert.equal(simple('{"id":"1","coll":"Coll0","more":1}'), '{"coll":"Coll0","id":"1","more":L1}');
    assert.equal(simple('{"coll":"Coll0","id":"3"}'), 'Ref(collections/Coll0/3)');
    assert.equal(simple('[1.0,1,"2024-01-01"]'), '[D1,L1,"2024-01-01"]');
    assert.equal(ctx.refsTaken, 3);
  });
});

describe('record cutters', () => {
  async function* bytes(text: string, size: number): AsyncGenerator<Buffer> {
    const b = Buffer.from(text);
    for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
  }
  async function all(gen: AsyncIterable<RecordOrProblem[]>): Promise<RecordOrProblem[]> {
    const out: RecordOrProblem[] = [];
    for await (const batch of gen) out.push(...batch);
    return out;
  }

  test('JSON arrays: strings holding brackets, commas, quotes and newlines, cut one byte at a time', async () => {
    const text = ' [\n{"a":"],[{\\"}"},\n  "plain ✓",\n 12 , [1,[2]],{"b":{"c":[]}},\n"line\\nbreak"\n]\n ';
    for (const size of [1, 3, 1024]) {
      const got = await all(splitJsonArray(bytes(text, size), 1 << 20));
      assert.deepEqual(
        got.map((r) => (r.kind === 'record' ? [r.line, r.element, r.text.trim()] : r)),
        [
          [2, 1, '{"a":"],[{\\"}"}'],
          [3, 2, '"plain ✓"'],
          [4, 3, '12'],
          [4, 4, '[1,[2]]'],
          [4, 5, '{"b":{"c":[]}}'],
          [5, 6, '"line\\nbreak"'],
        ],
        `chunks of ${size}`,
      );
    }
  });

  test('JSON arrays: empty, missing elements, not closed, trailing text, not an array, an element too long', async () => {
    const cut = async (text: string, max = 1 << 20) => (await all(splitJsonArray(bytes(text, 2), max))).map((r) => (r.kind === 'record' ? r.text : `! ${r.line}:${r.element} ${r.reason}`));
    assert.deepEqual(await cut('[]'), []);
    assert.deepEqual(await cut('[1,,2]'), ['1', '! 1:2 array element 2 is missing', '2']);
    assert.deepEqual(await cut('[1,2'), ['1', '! 1:2 the array is not closed: the file ends inside element 2, which was not read']);
    assert.deepEqual(await cut('[1,\n'), ['1', '! 2:1 the array is not closed: the file ends after element 1']);
    assert.deepEqual(await cut('[1] x'), ['1', '! 1:undefined text after the end of the array: not read']);
    assert.deepEqual(await cut('{"a":1}'), ['! 1:undefined not a JSON array (the file does not start with "["): not read']);
    assert.deepEqual(await cut(`[1,"${'x'.repeat(100)}",3]`, 50), ['1', '! 1:2 array element longer than 50 characters: not read', '3']);
  });

  test('lines: CRLF, blank lines, no final newline, a multi-byte character split across chunks, invalid UTF-8, an overlong line', async () => {
    const cut = async (chunks: AsyncIterable<Buffer>, max = 1 << 20) => (await all(splitLines(chunks, max))).map((r) => (r.kind === 'record' ? `${r.line}:${r.text}` : `! ${r.line} ${r.reason}`));
    assert.deepEqual(await cut(bytes('a\r\n\n  \nb✓c\nlast', 1)), ['1:a', '4:b✓c', '5:last']);
    async function* invalid() {
      yield Buffer.from('ok\n');
      yield Buffer.from([0xff, 0xfe, 0x0a]);
      yield Buffer.from('fine\n');
    }
    assert.deepEqual(await cut(invalid()), ['1:ok', '! 2 line is not valid UTF-8', '3:fine']);
    assert.deepEqual(await cut(bytes(`short\n${'y'.repeat(100)}\nafter\n`, 7), 40), ['1:short', '! 2 line longer than 40 bytes: not read', '3:after']);
    async function* failing() {
      yield Buffer.from('one\ntw');
      throw new Error('disk on fire');
    }
    assert.deepEqual(await cut(failing()), ['1:one', '! 2 read error: disk on fire (the line is incomplete and was not read)']);
  });
});

describe('memory stays bounded on large files', () => {
  // gc() through V8's flag when the runner did not pass --expose-gc.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // Buffers live outside V8's heap: a reader holding the file's bytes shows in `external`.
  const heap = () => {
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };

  /** Reads every item, sampling the heap after a gc every `every` documents; the peak growth. */
  async function peakGrowth(p: string, every: number): Promise<{ docs: number; problems: number; growth: number }> {
    const base = heap();
    let peak = 0;
    let docs = 0;
    let problems = 0;
    const source = await openSource(p);
    for await (const item of source.items()) {
      if (item.kind === 'document' && ++docs % every === 0) peak = Math.max(peak, heap() - base);
      if (item.kind === 'problem') problems++;
    }
    return { docs, problems, growth: peak };
  }

  // One record rendered by the fixture writer, its id, number and text then varied (rendering each is slow).
  const template = exportRecord(
    { coll: 'Big', id: '100000', ts: '2025-01-09T19:07:25.642703Z', fields: [['n', { long: 777n }], ['text', 'TEXT'], ['at', { time: '2024-02-29T12:34:56Z' }]] },
    'tagged',
  );
  function line(i: number): string {
    return template.replace('"100000"', `"${100000 + i}"`).replace('"777"', `"${i}"`).replace('TEXT', `row ${i} `.padEnd(160, 'x'));
  }

  async function writeBig(file: string, count: number, layout: 'jsonl' | 'json', gzip: boolean): Promise<number> {
    const out = createWriteStream(file);
    const sink = gzip ? createGzip({ level: 1 }) : undefined;
    sink?.pipe(out);
    const target = sink ?? out;
    let raw = 0;
    let batch: string[] = [];
    const flush = async () => {
      const text = layout === 'jsonl' ? batch.join('\n') + '\n' : batch.join(',');
      raw += text.length;
      if (!target.write(text)) await once(target, 'drain');
      batch = [];
    };
    if (layout === 'json') target.write('[');
    for (let i = 0; i < count; i++) {
      if (layout === 'json' && i > 0 && batch.length === 0) target.write(',');
      batch.push(line(i));
      if (batch.length === 2000) await flush();
    }
    if (batch.length) await flush();
    if (layout === 'json') target.write(']');
    target.end();
    await once(out, 'close');
    return raw;
  }

  function manifestFor(taskDir: string, file: string, layout: 'jsonl' | 'json', gzip: boolean): void {
    const manifest = {
      host_id: 'h', account_id: '1', export_id: 'big', task_id: '2', collections: ['Big'], snapshot_ts: SNAPSHOT_TS,
      doc_format: 'tagged', datafile_format: layout, datafile_compression: gzip, datafile_ext: layout + (gzip ? '.gz' : ''),
      part: 0, total_parts: 1, files_count: 1, files_bytes: statSync(file).size,
    };
    writeFileSync(path.join(taskDir, 'metadata_00.json'), JSON.stringify(manifest, null, 2));
  }

  test('a 200k-line jsonl.gz and a ~50 MB single-line JSON array are read with the heap growing far less than the file', async () => {
    for (const [layout, gzip, count] of [['jsonl', true, 200_000], ['json', false, 170_000]] as const) {
      const taskDir = freshDir();
      const collDir = path.join(taskDir, 'data', 'collections', 'Big');
      mkdirSync(collDir, { recursive: true });
      const file = path.join(collDir, `Big_00_000000.${layout}${gzip ? '.gz' : ''}`);
      const raw = await writeBig(file, count, layout, gzip);
      manifestFor(taskDir, file, layout, gzip);
      const r = await peakGrowth(taskDir, 40_000);
      assert.equal(r.problems, 0);
      assert.equal(r.docs, count);
      assert.ok(raw > 45e6, `${layout}: ${raw} characters of JSON`);
      // Holding the text whole would take ≥ raw bytes; the readers hold one chunk and one record.
      assert.ok(r.growth < 16 * 1024 * 1024, `${layout}: heap grew ${(r.growth / 1e6).toFixed(1)} MB over ${(raw / 1e6).toFixed(0)} MB of JSON`);
      rmSync(taskDir, { recursive: true, force: true });
    }
  });
});
