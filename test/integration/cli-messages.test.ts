// Issue 35, the first hour, through bin/flora.js as a user runs it: --version, "did you mean" for a
// mistyped command or flag in every command, a port in use said once (one process or a tier) with
// nothing created, what `flora start` says once it listens, and a browser opening the server's
// address sent to the dashboard while drivers and curl get what they always got.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FLORA_BIN, ROOT, httpRequest } from '../helpers/server';

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** The environment without the settings a developer's shell may carry. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, FLORA_NO_BUILD_CHECK: '1', ...extra };
  for (const name of ['FLORA_ROOT_SECRET', 'FLORA_PORT', 'FLORA_ADMIN', 'FLORA_SECRET', 'FLORA_URL', 'FLORA_WORKERS']) if (!(name in extra)) delete env[name];
  return env;
}

function flora(args: string[], env = cleanEnv()): Promise<Run> {
  const proc = spawn(process.execPath, [FLORA_BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (c: Buffer) => (out += c));
  proc.stderr.on('data', (c: Buffer) => (err += c));
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, out, err })));
}

const scratch = mkdtemp(path.join(tmpdir(), 'flora-cli-'));
after(async () => rm(await scratch, { recursive: true, force: true }));

test('--version and -v print the version of package.json', async () => {
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-v']) assert.deepEqual(await flora([flag]), { code: 0, out: `flora ${version}\n`, err: '' });
});

test('a mistyped command or flag gets the closest one, in one message, exit code 2', async () => {
  const cases: [string[], string][] = [
    [['strat'], "flora: Unknown command 'strat'. Did you mean 'start'?\n\nRun 'flora --help' for the commands.\n"],
    [['exprot'], "flora: Unknown command 'exprot'. Did you mean 'export'?\n\nRun 'flora --help' for the commands.\n"],
    [['frobnicate'], "flora: Unknown command 'frobnicate'.\n\nRun 'flora --help' for the commands.\n"],
    [['--verison'], "flora: Unknown option '--verison'. Did you mean '--version'?\n\nRun 'flora --help' for the commands.\n"],
    [['start', '--prot', '1'], "flora: Unknown option '--prot'. Did you mean '--port'?\n\nRun 'flora --help' for the options.\n"],
    [['start', '--no-admn'], "flora: Unknown option '--no-admn'. Did you mean '--no-admin'?\n\nRun 'flora --help' for the options.\n"],
    [['shell', '--sekret', 'x'], "flora shell: Unknown option '--sekret'. Did you mean '--secret'?\n\nRun 'flora shell --help' for the options.\n"],
    [['shell', '--zzz'], "flora shell: Unknown option '--zzz'.\n\nRun 'flora shell --help' for the options.\n"],
    [['eval', '--url'], "flora eval: Option '--url' needs a value.\n\nRun 'flora eval --help' for the options.\n"],
    [['eval', '--fiel', 'x.fql'], "flora eval: Unknown option '--fiel'. Did you mean '--file'?\n\nRun 'flora eval --help' for the options.\n"],
    [['import', '--qiet'], "flora import: Unknown option '--qiet'. Did you mean '--quiet'?\n\nRun 'flora import --help' for the options.\n"],
    [['export', '--histroy'], "flora export: Unknown option '--histroy'. Did you mean '--history'?\n\nRun 'flora export --help' for the options.\n"],
    [['export-logs', '--strat=1'], "flora export-logs: Unknown option '--strat=1'. Did you mean '--start'?\n\nRun 'flora export-logs --help' for the options.\n"],
    [['backup', '--ot', 'x'], "flora backup: Unknown option '--ot'. Did you mean '--out'?\n\nRun 'flora backup --help' for the options.\n"],
    [['restore', '--verfy'], "flora restore: Unknown option '--verfy'. Did you mean '--verify'?\n\nRun 'flora restore --help' for the options.\n"],
    [['cert', '--nmae', 'x'], "flora cert: Unknown option '--nmae'. Did you mean '--name'?\n\nRun 'flora cert --help' for the options.\n"],
  ];
  for (const [args, err] of cases) assert.deepEqual(await flora(args), { code: 2, out: '', err }, args.join(' '));
});

test('flora import of a path that is not there: one line, no blank line first', async () => {
  const missing = path.join(await scratch, 'nope');
  assert.deepEqual(await flora(['import', missing, '--secret', 'x', '--quiet']), { code: 1, out: '', err: `flora import: ${missing}: no such file or directory\n` });
});

/** A port this process listens on. */
async function occupied(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { server, port: (server.address() as AddressInfo).port };
}

test('a port in use is said once, naming --port, and nothing is created (one process and a tier)', async () => {
  const { server, port } = await occupied();
  try {
    for (const workers of ['1', '2']) {
      const dataDir = path.join(await scratch, `in-use-${workers}`);
      const run = await flora(['start', '--port', String(port), '--data-dir', dataDir, '--workers', workers]);
      const err = `flora: cannot listen on 127.0.0.1:${port}: the port is in use (another Flora, or another program); choose another with --port (or FLORA_PORT).\n`;
      assert.deepEqual(run, { code: 1, out: '', err }, `--workers ${workers}`);
      assert.equal(existsSync(dataDir), false, 'no data directory');
    }
    const dataDir = path.join(await scratch, 'in-use-graphql');
    const run = await flora(['start', '--port', '0', '--graphql-port', String(port), '--data-dir', dataDir, '--workers', '1']);
    assert.equal(run.err, `flora: cannot listen on 127.0.0.1:${port}: the port is in use (another Flora, or another program); choose another with --graphql-port (or FLORA_GRAPHQL_PORT).\n`);
    assert.equal(existsSync(dataDir), false);
  } finally {
    server.close();
  }
});

interface Started {
  url: string;
  /** The lines after `Flora listening on …`, once the root secret's is out. */
  notes: string[];
  stop(): Promise<void>;
}

/** `flora start` on a free port, read until it has said everything it says when ready. */
async function start(args: string[], env = cleanEnv()): Promise<Started> {
  const dataDir = await mkdtemp(path.join(await scratch, 'data-'));
  const proc = spawn(process.execPath, [FLORA_BIN, 'start', '--port', '0', '--data-dir', dataDir, '--workers', '1', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr.on('data', (c: Buffer) => (err += c));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    proc.stdout.on('data', (c: Buffer) => {
      out += c;
      if (/^Root secret: .*\n/m.test(out)) resolve();
    });
    void exited.then(() => reject(new Error(`flora exited before it was ready:\n${out}${err}`)));
  });
  const lines = out.split('\n');
  const at = lines.findIndex((l) => l.startsWith('Flora listening on '));
  return {
    url: lines[at].slice('Flora listening on '.length),
    notes: lines.slice(at + 1, -1),
    async stop() {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

test('flora start says where the dashboard is and which root secret it has; a browser opening / goes to /admin, the rest as before', { timeout: 60_000 }, async () => {
  const flora = await start([]);
  try {
    assert.deepEqual(flora.notes, [`Dashboard: ${flora.url}/admin`, "Root secret: the default 'secret' (set your own with --root-secret or FLORA_ROOT_SECRET)"]);
    for (const http2 of [false, true]) {
      const browser = await httpRequest(flora.url, { headers: { accept: BROWSER_ACCEPT, 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'none' }, http2 });
      assert.equal(browser.status, 302, browser.body);
      assert.equal(browser.headers.location, '/admin');
      const page = await httpRequest(flora.url, { path: browser.headers.location, headers: { accept: BROWSER_ACCEPT }, http2 });
      assert.equal(page.status, 200);
      // A driver, curl, a JSON client: 401 with the Basic challenge, as before.
      for (const headers of [{}, { accept: '*/*' }, { accept: 'application/json' }, { accept: 'application/json, text/html;q=0.5' }] as Record<string, string>[]) {
        const res = await httpRequest(flora.url, { headers, http2 });
        assert.equal(res.status, 401, JSON.stringify(headers));
        assert.equal(res.headers['www-authenticate'], 'Basic realm="Unauthorized"');
        assert.deepEqual(JSON.parse(res.body), { errors: [{ code: 'unauthorized', description: 'Unauthorized' }] });
      }
      const post = await httpRequest(flora.url, { method: 'POST', headers: { accept: BROWSER_ACCEPT }, body: '{"add":[1,2]}', http2 });
      assert.equal(post.status, 401);
      // With a secret, a GET / is the query API's, whatever the Accept.
      const auth = { authorization: 'Bearer secret' };
      const plain = await httpRequest(flora.url, { headers: auth, http2 });
      const asBrowser = await httpRequest(flora.url, { headers: { ...auth, accept: BROWSER_ACCEPT }, http2 });
      assert.notEqual(asBrowser.status, 302);
      assert.equal(asBrowser.status, plain.status);
      assert.equal(asBrowser.body, plain.body);
    }
  } finally {
    await flora.stop();
  }
});

test('the root secret is named by where it came from, never shown; without the dashboard a browser gets the 401 as before', { timeout: 60_000 }, async () => {
  const fromFlag = await start(['--root-secret', 'flag-s3cret']);
  try {
    assert.deepEqual(fromFlag.notes, [`Dashboard: ${fromFlag.url}/admin`, 'Root secret: from --root-secret']);
  } finally {
    await fromFlag.stop();
  }
  const fromEnv = await start(['--no-admin'], cleanEnv({ FLORA_ROOT_SECRET: 'env-s3cret' }));
  try {
    assert.deepEqual(fromEnv.notes, ['Root secret: from FLORA_ROOT_SECRET']);
    const browser = await httpRequest(fromEnv.url, { headers: { accept: BROWSER_ACCEPT, 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'none' } });
    assert.equal(browser.status, 401);
    assert.equal(browser.headers['www-authenticate'], undefined);
  } finally {
    await fromEnv.stop();
  }
});
