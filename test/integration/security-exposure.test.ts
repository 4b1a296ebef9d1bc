// Issue 30, the last two rows: what any web page and anyone on the network get. A page on another
// origin is answered CORS without credentials mode (so a browser never lets it read an answer to a
// request made with credentials the browser holds for Flora); and the default root secret never
// listens beyond loopback.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FLORA_BIN, ROOT, httpRequest, serverForFile } from '../helpers/server';

const srv = serverForFile();

for (const http2 of [false, true]) {
  test(`a page on any origin gets no credentials mode, preflight or not (${http2 ? 'h2' : 'HTTP/1.1'})`, { timeout: 30_000 }, async () => {
    const origin = 'https://evil.example';
    const pre = await httpRequest(srv.flora.url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' }, http2 });
    assert.equal(pre.status, 200);
    assert.equal(pre.headers['access-control-allow-credentials'], undefined);
    const headers = { origin, authorization: `Bearer ${srv.flora.secret}`, 'content-type': 'text/plain' };
    const res = await httpRequest(srv.flora.url, { method: 'POST', headers, body: '{"add":[1,2]}', http2 });
    assert.equal(res.status, 200);
    assert.equal(res.headers['access-control-allow-origin'], origin);
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
    const ping = await httpRequest(srv.flora.url, { path: '/ping', headers: { origin }, http2 });
    assert.equal(ping.headers['access-control-allow-credentials'], undefined);
  });
}

test('the default root secret is refused beyond loopback before anything is opened; the message names the flags', { timeout: 30_000 }, async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'flora-exposure-'));
  try {
    for (const args of [['--host', '0.0.0.0'], ['--host', '::']]) {
      const env = { ...process.env };
      delete env.FLORA_ROOT_SECRET;
      delete env.FLORA_ALLOW_DEFAULT_SECRET;
      const proc = spawn(process.execPath, [FLORA_BIN, 'start', '--port', '0', '--data-dir', dataDir, '--workers', '1', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      proc.stdout.on('data', (c: Buffer) => (out += c));
      proc.stderr.on('data', (c: Buffer) => (out += c));
      const code = await new Promise<number | null>((resolve) => proc.once('exit', resolve));
      assert.equal(code, 2, out);
      assert.match(out, /Refusing to listen on .* with the default root secret 'secret'/);
      assert.match(out, /--root-secret .*FLORA_ROOT_SECRET/);
      assert.match(out, /--allow-default-secret/);
      assert.doesNotMatch(out, /listening/i);
    }
    // Refused before the store was opened: the data directory is as it was.
    assert.deepEqual(await readdir(dataDir), []);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
