// saveUpload (src/server/uploads.ts): an upload is written to its file as it arrives, each chunk
// reserved from the memory pool only while it is written, so a pool smaller than the upload takes
// it; a chunk that does not fit is TooBusy and leaves no file; a write the disk refuses rejects the
// upload (the process lives); the file is named by what it holds.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { MemoryPool, TooBusy } from '../../src/model/budget';
import type { RequestContext } from '../../src/server/context';
import { saveUpload } from '../../src/server/uploads';

const dir = mkdtempSync(path.join(tmpdir(), 'flora-uploads-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A request whose body arrives in `chunks` (pipeBody as the exchange runs it: one write at a time). */
function request(chunks: Buffer[], seen: number[], pool: MemoryPool): RequestContext {
  return {
    pipeBody: async (_limit: number, write: (chunk: Buffer) => Promise<void>) => {
      let bytes = 0;
      for (const c of chunks) {
        const writing = write(c);
        seen.push(pool.inUse);
        await writing;
        bytes += c.length;
      }
      return bytes;
    },
  } as unknown as RequestContext;
}

test('an upload ten times the pool goes through, the pool holding one chunk at a time', async () => {
  const pool = new MemoryPool(1000);
  const chunks = Array.from({ length: 10 }, (_, i) => Buffer.alloc(1000, 0x30 + i));
  const seen: number[] = [];
  const saved = await saveUpload(request(chunks, seen, pool), pool, 64 * 1024, path.join(dir, 'big'));
  assert.equal(saved.bytes, 10_000);
  assert.equal(path.basename(saved.path), 'upload.ndjson');
  assert.deepEqual(readFileSync(saved.path), Buffer.concat(chunks));
  assert.deepEqual(seen, Array(10).fill(1000), 'each chunk reserved while it was written');
  assert.equal(pool.inUse, 0, 'and given back');
});

test('a chunk the pool cannot take is TooBusy, and no file is left', async () => {
  const pool = new MemoryPool(1000);
  const at = path.join(dir, 'refused');
  await assert.rejects(saveUpload(request([Buffer.alloc(500), Buffer.alloc(1500)], [], pool), pool, 64 * 1024, at), TooBusy);
  assert.deepEqual(readdirSync(at), []);
  assert.equal(pool.inUse, 0);
});

test('a write the disk refuses (a full disk: /dev/full) rejects the upload, leaves no file, and the process lives', { skip: process.platform !== 'linux' }, async () => {
  const pool = new MemoryPool(1 << 20);
  const at = path.join(dir, 'full');
  mkdirSync(at);
  symlinkSync('/dev/full', path.join(at, 'upload.part'));
  await assert.rejects(saveUpload(request([Buffer.alloc(100, 0x31), Buffer.alloc(100, 0x32)], [], pool), pool, 1 << 20, at), { code: 'ENOSPC' });
  await new Promise((resolve) => setTimeout(resolve, 50)); // an unhandled 'error' would end the process by now
  assert.deepEqual(readdirSync(at), []);
  assert.equal(pool.inUse, 0);
});

test('the file is named by what it holds: gzip, a JSON array, or lines', async () => {
  const pool = new MemoryPool(1 << 20);
  const named = async (body: Buffer, name: string) => path.basename((await saveUpload(request([body.subarray(0, 1), body.subarray(1)], [], pool), pool, 1 << 20, path.join(dir, name))).path);
  assert.equal(await named(gzipSync('{}\n'), 'gz'), 'upload.ndjson.gz');
  assert.equal(await named(Buffer.from('  [{"a":1}]'), 'array'), 'upload.json');
  assert.equal(await named(Buffer.from('{"a":1}\n'), 'lines'), 'upload.ndjson');
});
