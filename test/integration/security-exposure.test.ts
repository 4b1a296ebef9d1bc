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

for (const http2 of [false, true]) {
  test(`a secret a browser attached to another site's form is not taken; a navigation gets no Basic challenge (${http2 ? 'h2' : 'HTTP/1.1'})`, { timeout: 30_000 }, async () => {
    const basic = `Basic ${Buffer.from(`${srv.flora.secret}:`).toString('base64')}`;
    const name = `forged_${http2 ? 'h2' : 'h1'}`;
    const create = JSON.stringify({ create_database: { object: { name } } });
    // What a page on evil.example makes the browser send: a form post, or a no-cors fetch, to Flora.
    for (const mode of ['navigate', 'no-cors']) {
      for (const site of ['cross-site', 'same-site']) {
        const headers = { authorization: basic, 'content-type': 'text/plain', 'sec-fetch-site': site, 'sec-fetch-mode': mode, origin: 'https://evil.example' };
        const res = await httpRequest(srv.flora.url, { method: 'POST', headers, body: create, http2 });
        assert.equal(res.status, 401, `${mode} ${site}: ${res.body}`);
        assert.deepEqual(JSON.parse(res.body), { errors: [{ code: 'unauthorized', description: 'Unauthorized' }] });
      }
    }
    const exists = await httpRequest(srv.flora.url, { method: 'POST', headers: { authorization: `Bearer ${srv.flora.secret}` }, body: JSON.stringify({ exists: { database: name } }), http2 });
    assert.equal(JSON.parse(exists.body).resource, false, 'nothing ran');
    // The same secret set by a page's own code (CORS mode), or by a page of Flora's origin, is taken.
    const cors = await httpRequest(srv.flora.url, { method: 'POST', headers: { authorization: basic, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', origin: 'https://app.example' }, body: '{"add":[1,2]}', http2 });
    assert.equal(cors.status, 200, cors.body);
    const own = await httpRequest(srv.flora.url, { method: 'POST', headers: { authorization: basic, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate' }, body: '{"add":[1,2]}', http2 });
    assert.equal(own.status, 200, own.body);
    // A browser opening Flora's address goes to the dashboard (cli-messages.test.ts); one opening
    // an API path is not asked for a login it would then remember; a driver still is.
    const opened = await httpRequest(srv.flora.url, { path: '/tokens/self', headers: { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', accept: 'text/html' }, http2 });
    assert.equal(opened.status, 401);
    assert.equal(opened.headers['www-authenticate'], undefined);
    const driver = await httpRequest(srv.flora.url, { method: 'POST', body: '{"add":[1,2]}', http2 });
    assert.equal(driver.status, 401);
    assert.equal(driver.headers['www-authenticate'], 'Basic realm="Unauthorized"');
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
