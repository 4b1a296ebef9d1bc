// The backup file's codec (src/backup/format.ts, readBackup.ts): what the encoder frames the
// decoder gives back whatever pieces the bytes arrive in, and every kind of bad file is refused
// with an error that says what and where.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { KV } from '../../src/storage/engine';
import { FORMAT_VERSION } from '../../src/storage/format';
import { BackupError, closing, headerLine, MAGIC, RecordDecoder, RecordEncoder, type BackupHeader } from '../../src/backup/format';
import { openBackup } from '../../src/backup/readBackup';
import { prng } from '../helpers/prng';

const header: BackupHeader = {
  magic: MAGIC,
  version: 1,
  storage_format: FORMAT_VERSION,
  created: '2026-01-01T00:00:00.000Z',
  issued_ts: '1767225600000000',
  engine: 'lmdb',
  query_log: 'not included',
};

function records(n: number, seed = 1): KV[] {
  const rand = prng(seed);
  return Array.from({ length: n }, (_, i) => {
    // Now and then a value larger than a gzip piece, so records straddle them.
    const value = Buffer.alloc(Math.floor(rand() * (i % 50 === 0 ? 70_000 : 200)));
    for (let j = 0; j < value.length; j++) value[j] = Math.floor(rand() * 256);
    return { key: Buffer.concat([Uint8Array.of(0x41), Buffer.from(String(i).padStart(8, '0'))]), value };
  });
}

/** The uncompressed bytes of a backup of `kvs`, framed in chunks of `per`. */
function raw(kvs: KV[], h: object = header, per = 100): Buffer {
  const enc = new RecordEncoder();
  const parts = [headerLine(h as BackupHeader)];
  for (let i = 0; i < kvs.length; i += per) parts.push(enc.frame(kvs.slice(i, i + per)));
  parts.push(closing(enc.trailer()));
  return Buffer.concat(parts);
}

function decodeIn(bytes: Buffer, sizes: () => number): { kvs: KV[]; dec: RecordDecoder } {
  const dec = new RecordDecoder();
  const kvs: KV[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = Math.max(1, sizes());
    for (const kv of dec.push(bytes.subarray(at, at + n))) kvs.push({ key: Buffer.from(kv.key), value: Buffer.from(kv.value) });
    at += n;
  }
  dec.end();
  return { kvs, dec };
}

const same = (a: KV[], b: KV[]) => {
  assert.equal(a.length, b.length);
  for (let i = 0; i < a.length; i++) {
    assert.ok(Buffer.from(a[i].key).equals(Buffer.from(b[i].key)), `key ${i}`);
    assert.ok(Buffer.from(a[i].value).equals(Buffer.from(b[i].value)), `value ${i}`);
  }
};

describe('framing', () => {
  test('round-trips in pieces of any size (1 byte, random, whole)', () => {
    const kvs = records(400);
    const bytes = raw(kvs);
    const rand = prng(7);
    for (const sizes of [() => bytes.length, () => 1 + Math.floor(rand() * 5000), () => 1, () => 3]) {
      const { kvs: got, dec } = decodeIn(bytes, sizes);
      same(got, kvs);
      assert.equal(dec.header?.issued_ts, header.issued_ts);
      assert.equal(dec.trailer?.records, 400);
    }
  });

  test('an empty store is a header and a trailer', () => {
    const { kvs, dec } = decodeIn(raw([]), () => 5);
    assert.equal(kvs.length, 0);
    assert.equal(dec.trailer?.records, 0);
  });

  test('every truncation is an error naming where the file ends', () => {
    const bytes = raw(records(30));
    for (let cut = 0; cut < bytes.length; cut += 7) {
      assert.throws(() => decodeIn(bytes.subarray(0, cut), () => 64), (e: Error) => e instanceof BackupError && /truncated|not a Flora backup/.test(e.message), `cut at ${cut}`);
    }
  });

  test('a flipped byte in a record fails the checksum; in a length, names the record', () => {
    const kvs = records(50);
    const bytes = raw(kvs);
    const headerLen = headerLine(header).length;
    // A byte of the last record's value (its lengths intact): only the SHA-256 can tell.
    const valueByte = bytes.length - closing({ records: 50, sha256: '0'.repeat(64) }).length - 1;
    const flipped = Buffer.from(bytes);
    flipped[valueByte] ^= 0x01;
    assert.throws(() => decodeIn(flipped, () => 1000), /checksum mismatch: the SHA-256 of the 50 records/);
    // The first record's key length made huge.
    const badLen = Buffer.from(bytes);
    badLen[headerLen] = 0x7f;
    assert.throws(() => decodeIn(badLen, () => 1000), /corrupt at record 1 \(byte \d+ of the decompressed data\): a key length/);
  });

  test('a wrong count in the trailer, data after it', () => {
    const kvs = records(3);
    const enc = new RecordEncoder();
    const body = enc.frame(kvs);
    const t = enc.trailer();
    const miscounted = Buffer.concat([headerLine(header), body, closing({ ...t, records: 4 })]);
    assert.throws(() => decodeIn(miscounted, () => 100), /holds 3 records but its trailer says 4/);
    assert.throws(() => decodeIn(Buffer.concat([raw(kvs), Buffer.from('x')]), () => 100), /unexpected data after the trailer/);
  });

  test('headers: not a backup, a newer file version, a newer storage format', () => {
    assert.throws(() => decodeIn(Buffer.from('hello world\n'), () => 100), /not a Flora backup \(its first line is not a JSON header\)/);
    assert.throws(() => decodeIn(raw([], { ...header, magic: 'other' }), () => 100), /not a Flora backup \(its header does not start with the magic/);
    assert.throws(() => decodeIn(raw([], { ...header, version: 2 }), () => 100), /format version 2, newer than this release reads \(1\)/);
    assert.throws(
      () => decodeIn(raw([], { ...header, storage_format: FORMAT_VERSION + 1 }), () => 100),
      new RegExp(`storage format ${FORMAT_VERSION + 1}, newer than this release knows \\(${FORMAT_VERSION}\\)`),
    );
    assert.throws(() => decodeIn(Buffer.alloc(70_000, 0x20), () => 100), /not a Flora backup \(no header line\)/);
  });
});

describe('reading a file', () => {
  const read = async (file: Buffer) => {
    const b = await openBackup(Readable.from([file.subarray(0, 10), file.subarray(10)]));
    let n = 0;
    for await (const chunk of b.records) n += chunk.length;
    return { n, trailer: b.trailer(), header: b.header };
  };

  test('a gzip file reads back with its header and trailer', async () => {
    const { n, trailer, header: h } = await read(gzipSync(raw(records(120))));
    assert.equal(n, 120);
    assert.equal(trailer.records, 120);
    assert.equal(h.engine, 'lmdb');
  });

  test('not gzip, cut short, corrupt compressed data', async () => {
    await assert.rejects(read(raw(records(3))), /not a Flora backup \(the file is not gzip data\)/);
    const file = gzipSync(raw(records(200)));
    await assert.rejects(read(file.subarray(0, Math.floor(file.length / 2))), /truncated/);
    const flipped = Buffer.from(file);
    flipped[Math.floor(file.length / 2)] ^= 0xff;
    await assert.rejects(read(flipped), (e: Error) => e instanceof BackupError && /corrupt|checksum|truncated/.test(e.message) && /byte|record/.test(e.message));
  });
});
