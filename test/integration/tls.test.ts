// TLS on the port (issue 34): `flora cert` makes a self-signed pair; `--tls-cert`/`--tls-key` serve
// HTTPS with HTTP/2 chosen by ALPN and HTTP/1.1; both drivers connect with https (trusting the
// certificate through NODE_EXTRA_CA_CERTS, in a child process, as an application would); cleartext
// is refused on that port, and a handshake that never completes is dropped; the certificate is
// reloaded on SIGHUP and when its files change; bad files are refused at start with the path named.
// In the runner's tier pass every server is a tier (the supervisor forwards SIGHUP to its workers).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as http2 from 'node:http2';
import * as https from 'node:https';
import * as http from 'node:http';
import * as tls from 'node:tls';
import * as net from 'node:net';
import { X509Certificate } from 'node:crypto';
import { startFlora, waitFor, type FloraProcess } from '../helpers/server';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const FLORA_BIN = path.join(ROOT, 'bin', 'flora.js');

let dir: string;
let flora: FloraProcess;
let certFile: string;
let keyFile: string;

function flor(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [FLORA_BIN, ...args], { cwd: ROOT, env: { ...process.env, FLORA_NO_BUILD_CHECK: '1' } }, (error, out, err) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out, err }),
    );
  });
}

/** The SHA-256 fingerprint of the certificate the server presents now. */
function servedFingerprint(url: string, ca: Buffer): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: u.hostname, port: Number(u.port), ca, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => {
      const fp = s.getPeerCertificate().fingerprint256;
      s.end();
      resolve(fp);
    });
    s.on('error', reject);
  });
}

const fingerprintOf = (pem: Buffer) => new X509Certificate(pem).fingerprint256;

/** Whether every process serves `pem` now: six connections in a row (a tier hands them out in turn). */
async function allServe(url: string, pem: Buffer): Promise<boolean> {
  for (let i = 0; i < 6; i++) if ((await servedFingerprint(url, pem).catch(() => '')) !== fingerprintOf(pem)) return false;
  return true;
}

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'flora-tls-'));
  const made = await flor(['cert', '--dir', dir]);
  assert.equal(made.code, 0, made.err);
  certFile = path.join(dir, 'flora-cert.pem');
  keyFile = path.join(dir, 'flora-key.pem');
  flora = await startFlora({ args: ['--tls-cert', certFile, '--tls-key', keyFile] });
});

after(async () => {
  await flora?.stop();
  await rm(dir, { recursive: true, force: true });
});

test('flora cert writes a key only its owner reads, and says how to use the pair', async () => {
  assert.equal((await stat(keyFile)).mode & 0o777, 0o600);
  const cert = new X509Certificate(await readFile(certFile));
  assert.equal(cert.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
  assert.ok(cert.checkPrivateKey((await import('node:crypto')).createPrivateKey(await readFile(keyFile))));
  const again = await flor(['cert', '--dir', dir]);
  assert.deepEqual([again.code, again.err], [1, `flora cert: ${certFile} exists (--force replaces it)\n`]);
  const bad = await flor(['cert', '--dir', dir, '--name', 'not a name']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /'not a name' is not a host name or an IP address\./);
});

test('the port serves HTTPS: HTTP/2 by ALPN and HTTP/1.1, and the address says https', async () => {
  assert.match(flora.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const ca = await readFile(certFile);
  const h1 = await new Promise<{ status: number; body: string; alpn: string | false | null }>((resolve, reject) => {
    const req = https.request(`${flora.url}/ping`, { ca, servername: 'localhost', ALPNProtocols: ['http/1.1'] } as https.RequestOptions & tls.ConnectionOptions, (res) => {
      let body = '';
      const alpn = (res.socket as tls.TLSSocket).alpnProtocol;
      res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve({ status: res.statusCode!, body, alpn }));
    });
    req.on('error', reject).end();
  });
  assert.deepEqual(h1, { status: 200, body: '{"resource":"Scope write is OK"}', alpn: 'http/1.1' });
  const session = http2.connect(flora.url, { ca, servername: 'localhost' });
  try {
    const h2 = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const s = session.request({ ':path': '/ping' });
      let status = 0;
      let body = '';
      s.on('response', (h) => (status = Number(h[':status'])));
      s.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve({ status, body })).on('error', reject);
      s.end();
    });
    assert.deepEqual(h2, { status: 200, body: '{"resource":"Scope write is OK"}' });
    assert.equal(session.alpnProtocol, 'h2');
  } finally {
    session.close();
  }
});

test('cleartext HTTP to the TLS port gets no answer', async () => {
  const plain = flora.url.replace('https:', 'http:');
  const outcome = await new Promise<string>((resolve) => {
    const req = http.request(`${plain}/ping`, (res) => resolve(`answered ${res.statusCode}`));
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end();
  });
  assert.ok(!outcome.startsWith('answered'), outcome);
});

test('a TLS handshake that never completes is dropped after the body timeout', async () => {
  const quick = await startFlora({ args: ['--tls-cert', certFile, '--tls-key', keyFile, '--body-timeout-ms', '1000'] });
  try {
    const u = new URL(quick.url);
    // A connection that sends nothing, and one that stops half-way through its ClientHello.
    for (const sent of [Buffer.alloc(0), Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03])]) {
      const started = Date.now();
      const closed = await new Promise<string>((resolve) => {
        const socket = net.connect({ host: u.hostname, port: Number(u.port) }, () => socket.write(sent));
        socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
        socket.on('close', () => resolve('closed'));
        socket.resume();
      });
      const waited = Date.now() - started;
      assert.ok(['closed', 'ECONNRESET'].includes(closed), closed);
      assert.ok(waited >= 900 && waited < 10_000, `dropped after ${waited} ms`);
    }
  } finally {
    await quick.stop();
  }
});

test('both drivers connect over https, trusting the certificate as an application would', async () => {
  const script = `
    const { Client, query: q } = require('faunadb');
    const fauna = require('fauna');
    (async () => {
      const v4h2 = new Client({ secret: 'secret', endpoint: process.env.URL });
      const v4h1 = new Client({ secret: 'secret', endpoint: process.env.URL, fetch: globalThis.fetch });
      const v10 = new fauna.Client({ secret: 'secret', endpoint: new URL(process.env.URL) });
      const out = [await v4h2.query(q.Add(1, 2)), await v4h1.query(q.Concat(['a', 'b'])), (await v10.query(fauna.fql\`[1, 2].map(x => x * 10)\`)).data];
      v4h2.close(); v4h1.close(); v10.close();
      console.log(JSON.stringify(out));
    })().catch((e) => { console.error(String(e && e.stack || e)); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, env: { ...process.env, URL: flora.url, NODE_EXTRA_CA_CERTS: certFile }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, err);
  assert.deepEqual(JSON.parse(out), [3, 'ab', [10, 20]]);
});

test('a renewed certificate is served without a restart: on SIGHUP, and when the files change', async () => {
  const ca1 = await readFile(certFile);
  const key1 = await readFile(keyFile);
  assert.ok(await allServe(flora.url, ca1));
  const other = await mkdtemp(path.join(tmpdir(), 'flora-tls2-'));
  try {
    assert.equal((await flor(['cert', '--dir', other, '--name', 'renewed.example'])).code, 0);
    const ca2 = await readFile(path.join(other, 'flora-cert.pem'));
    const key2 = await readFile(path.join(other, 'flora-key.pem'));
    // Both files replaced, then SIGHUP (to the supervisor in a tier: it tells its workers).
    await writeFile(keyFile, key2);
    await writeFile(certFile, ca2);
    flora.proc.kill('SIGHUP');
    await waitFor('the renewed certificate on SIGHUP', () => allServe(flora.url, ca2), 15_000);
    // Back to the first pair with no signal: the files are watched.
    await writeFile(keyFile, key1);
    await writeFile(certFile, ca1);
    await waitFor('the first certificate again once its files changed', () => allServe(flora.url, ca1), 15_000);
    // A pair that does not load (the key of another certificate) is reported; the old one stays.
    await writeFile(keyFile, key2);
    flora.proc.kill('SIGHUP');
    await waitFor('the refusal of a mismatched pair', () => /do not load: .*; still serving the previous certificate/.test(flora.stderr()), 15_000);
    assert.ok(await allServe(flora.url, ca1), 'the previous certificate is still served');
    await writeFile(keyFile, key1);
  } finally {
    await rm(other, { recursive: true, force: true });
  }
});

test('missing or unreadable files are refused at start with the path named; one flag alone is a usage error', async () => {
  const missing = await flor(['start', '--port', '0', '--data-dir', path.join(dir, 'data'), '--tls-cert', path.join(dir, 'nope.pem'), '--tls-key', keyFile]);
  assert.deepEqual([missing.code, missing.err], [1, `flora: cannot read the TLS certificate ${path.join(dir, 'nope.pem')}: ENOENT\n`]);
  const alone = await flor(['start', '--port', '0', '--data-dir', path.join(dir, 'data'), '--tls-cert', certFile]);
  assert.equal(alone.code, 2);
  assert.match(alone.err, /^flora: --tls-cert and --tls-key go together: --tls-key is missing\./);
  const swapped = await flor(['start', '--port', '0', '--data-dir', path.join(dir, 'data'), '--tls-cert', keyFile, '--tls-key', certFile]);
  assert.equal(swapped.code, 1);
  assert.match(swapped.err, /^flora: the TLS certificate .* and key .* do not load: /);
});
