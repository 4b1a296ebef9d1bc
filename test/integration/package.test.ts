// The package `npm pack` makes (issue 34): installed from its tarball into an empty folder, or
// globally (`npm install -g`, here under a temporary --prefix), it starts with nothing compiled at
// start and no dev dependency installed, and answers a query. Dependencies come from the npm cache
// the checkout's own `npm install` filled (the registry otherwise).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { childrenOf } from '../helpers/procs';
import { ROOT } from '../helpers/server';

/** A step that takes longer than this has hung (an install from a cold cache takes under a minute). */
const STEP_MS = 150_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The test runner's environment without its FLORA_NO_BUILD_CHECK: the package must need no such switch. */
const ENV = { ...process.env, FLORA_NO_BUILD_CHECK: undefined };

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'], timeout: STEP_MS, killSignal: 'SIGKILL' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function npm(args: string[], cwd: string): Promise<string> {
  const r = await run('npm', args, cwd);
  assert.equal(r.code, 0, `npm ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

const INSTALL = ['--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'];

let work: string;
let tarball: string;
let packed: string[];

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'flora-package-'));
  // The suite's own build: npm test compiled and type-checked dist/ before running this file, so
  // prepack (the same build) is not run again here.
  const out = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT);
  const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  tarball = path.join(work, info.filename);
  packed = info.files.map((f) => f.path);
});

after(() => rmSync(work, { recursive: true, force: true }));

test('the tarball holds the compiled server, the dashboard bundle and the launcher; no sources, tests, build scripts or maps', () => {
  for (const file of ['package.json', 'README.md', 'bin/flora.js', 'dist/src/cli/main.js', 'dist/src/server/admin.js', 'dist/admin/index.html', 'dist/admin/app.js', 'dist/admin/graphiql.js']) {
    assert.ok(packed.includes(file), `${file} is packed`);
  }
  const unwanted = packed.filter((f) => /^(src|test|scripts|bench|torture|dist\/(test|scripts|bench|torture|src\/admin))\//.test(f) || f.endsWith('.map') || f.endsWith('.ts'));
  assert.deepEqual(unwanted, []);
});

test('installed into an empty folder: no dev dependency, no compile at start, a query answered, stopped cleanly', async () => {
  const app = path.join(work, 'app');
  mkdirSync(app);
  await npm(['install', ...INSTALL, tarball], app);
  const installed = path.join(app, 'node_modules');
  const { devDependencies } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  assert.ok(Object.keys(devDependencies).includes('typescript'));
  for (const dev of Object.keys(devDependencies)) {
    assert.equal(existsSync(path.join(installed, dev)), false, `${dev} (a dev dependency) is not installed`);
  }
  assert.equal(existsSync(path.join(installed, 'flora', 'scripts')), false, 'no build script to run');

  const data = path.join(work, 'data');
  const proc = spawn(path.join(installed, '.bin', 'flora'), ['start', '--host', '127.0.0.1', '--port', '0', '--data-dir', data, '--workers', '1'], {
    cwd: app,
    env: { ...ENV, FLORA_ROOT_SECRET: 'packaged' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  let stderr = '';
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      proc.stdout.setEncoding('utf8').on('data', (c: string) => {
        out += c;
        const m = /^Flora listening on (http:\/\/\S+)$/m.exec(out);
        if (m) resolve(m[1]);
      });
      void exited.then((code) => reject(new Error(`flora exited with ${code} before listening:\n${out}${stderr}`)));
      setTimeout(() => reject(new Error(`not listening after ${STEP_MS} ms:\n${out}${stderr}`)), STEP_MS).unref();
    });
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('packaged:').toString('base64')}` },
      body: JSON.stringify({ add: [1, 2] }),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { resource: 3 });
    assert.equal((await fetch(`${url}/admin`)).status, 200, 'the dashboard bundle is served');
    assert.deepEqual(childrenOf(proc.pid!), [], 'no compiler (or anything else) running under the server');
    assert.doesNotMatch(stderr, /compil/i, 'nothing compiled at start');
    assert.equal(existsSync(path.join(installed, 'flora', 'dist', '.build-inputs')), false, 'no build recorded');
  } finally {
    proc.kill('SIGTERM');
  }
  assert.equal(await exited, 0, stderr);
});

test('installed globally (npm install -g, under a temporary --prefix): the flora command runs', async () => {
  const prefix = path.join(work, 'global');
  await npm(['install', '-g', '--prefix', prefix, ...INSTALL, tarball], work);
  const r = await run(path.join(prefix, 'bin', 'flora'), ['--help'], work);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^Usage: flora <command> \[options\]$/m);
  assert.equal(r.stderr, '', 'nothing compiled');
  assert.equal(existsSync(path.join(prefix, 'lib', 'node_modules', 'typescript')), false);
});
