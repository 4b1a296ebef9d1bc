// The server's own log with --log-format json (issue 34): every line a process writes to stderr is
// one JSON event with level, time, msg, worker and pid; a fault of the server's carries the request
// id the client was given, the method, the path and the stack; a tier's supervisor and workers say
// who they are; and neither the root secret nor a key's secret is ever written, whatever requests
// carried them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { FLORA_BIN, httpRequest, killWorkers, makeKey, startFlora, waitFor, workerPids, type FloraProcess } from '../helpers/server';

interface LogEvent {
  level: string;
  time: string;
  msg: string;
  worker: string;
  pid: number;
  [field: string]: any;
}

/** Every line of the process's stderr as an event; a line that is not one fails the test. */
function events(flora: FloraProcess): LogEvent[] {
  return flora
    .stderr()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      let e: LogEvent;
      try {
        e = JSON.parse(line) as LogEvent;
      } catch {
        assert.fail(`not a JSON line: ${line}`);
      }
      assert.ok(['info', 'warn', 'error'].includes(e.level), line);
      assert.match(e.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, line);
      assert.ok(Math.abs(Date.parse(e.time) - Date.now()) < 600_000, line);
      assert.ok(typeof e.msg === 'string' && e.msg !== '', line);
      assert.ok(Number.isInteger(e.pid) && e.pid > 0, line);
      assert.equal(typeof e.worker, 'string', line);
      return e;
    });
}

const rootSecret = () => `root-${randomBytes(12).toString('hex')}`;

function assertNoSecret(flora: FloraProcess, secrets: string[]): void {
  for (const s of secrets) assert.ok(!flora.stderr().includes(s), `a secret in the log:\n${flora.stderr()}`);
}

test('one process: start, a fault under its request id, the stop; JSON lines only, no secret', async () => {
  const root = rootSecret();
  const flora = await startFlora({ args: ['--workers', '1', '--log-format', 'json'], env: { FLORA_ROOT_SECRET: root, FLORA_FAILPOINTS: 'graphql.import' } });
  try {
    const key = await makeKey(flora, 'admin');
    const res = await httpRequest(flora.url, { method: 'POST', path: '/import?mode=merge', headers: { authorization: `Bearer ${key}` }, body: 'type Thing { name: String }' });
    assert.equal(res.status, 500, res.body);
    const id = res.headers['x-request-id'];
    // The root secret the way the JavaScript driver sends it (Basic), and a forged key secret.
    const basic = Buffer.from(`${root}:`).toString('base64');
    assert.equal((await httpRequest(flora.url, { method: 'POST', headers: { authorization: `Basic ${basic}` }, body: '{"add":[1,2]}' })).status, 200);
    const forged = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    assert.equal((await httpRequest(flora.url, { method: 'POST', headers: { authorization: `Bearer ${forged}` }, body: '{"add":[1,2]}' })).status, 401);
    await waitFor('the fault in the log', () => events(flora).some((e) => e.requestId === id));
    assert.equal(await flora.stop(), 0, flora.stderr());

    const all = events(flora);
    for (const e of all) assert.deepEqual([e.worker, e.pid], ['main', flora.proc.pid], JSON.stringify(e));
    const listening = all.find((e) => e.msg === 'listening');
    assert.equal(listening?.address, flora.url);
    const fault = all.find((e) => e.requestId === id)!;
    assert.deepEqual([fault.level, fault.method, fault.path, fault.msg], ['error', 'POST', '/import', `internal error [request ${id}] in POST /import`]);
    assert.deepEqual([fault.err.name, fault.err.message], ['Error', 'failpoint graphql.import']);
    assert.match(fault.err.stack, /^Error: failpoint graphql\.import\n\s+at /);
    const order = ['listening', 'stopping: finishing in-flight requests', 'stopped'];
    assert.deepEqual(all.filter((e) => order.includes(e.msg)).map((e) => e.msg), order);
    assertNoSecret(flora, [root, key, basic, forged]);
  } finally {
    await flora.stop('SIGKILL');
  }
});

test('a tier: the supervisor and each worker by number, a worker killed and replaced, the stop; no secret', async () => {
  const root = rootSecret();
  const flora = await startFlora({ args: ['--workers', '2', '--log-format', 'json'], env: { FLORA_ROOT_SECRET: root } });
  try {
    const key = await makeKey(flora, 'server');
    const [victim] = workerPids(flora);
    await killWorkers(flora, [victim]);
    assert.equal((await httpRequest(flora.url, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: '{"add":[1,2]}' })).status, 200);
    assert.equal(await flora.stop(), 0, flora.stderr());

    const all = events(flora);
    const supervisor = all.filter((e) => e.pid === flora.proc.pid);
    const workers = all.filter((e) => e.pid !== flora.proc.pid);
    assert.deepEqual([...new Set(supervisor.map((e) => e.worker))], ['supervisor']);
    for (const e of workers) assert.match(e.worker, /^\d+$/, JSON.stringify(e));
    // Workers 1 and 2 start, 3 replaces the one killed; each says where it listens.
    const listening = workers.filter((e) => e.msg === 'listening');
    assert.deepEqual(listening.map((e) => e.worker).sort(), ['1', '2', '3']);
    for (const e of listening) assert.equal(e.address, flora.url);
    assert.equal(new Set(listening.map((e) => e.pid)).size, 3);
    const serving = supervisor.find((e) => /^2 worker processes serve this port/.test(e.msg));
    assert.equal(serving?.address, flora.url);
    assert.equal(serving?.pids.length, 2);
    const replaced = supervisor.find((e) => e.workerPid === victim && e.msg.includes('started worker'));
    assert.deepEqual([replaced?.level, replaced?.signal, replaced?.msg], ['warn', 'SIGKILL', `worker ${victim} was killed by SIGKILL; started worker ${replaced?.newWorkerPid}`]);
    assert.deepEqual(supervisor.slice(-2).map((e) => [e.msg, e.code]), [['stopping: finishing in-flight requests', undefined], ['stopped', 0]]);
    assert.equal(workers.filter((e) => e.msg === 'stopped').length, 2);
    assertNoSecret(flora, [root, key]);
  } finally {
    await flora.stop('SIGKILL');
  }
});

test('a bad --log-format is refused before anything starts: exit 2, the flag and the formats named', () => {
  const run = spawnSync(process.execPath, [FLORA_BIN, 'start', '--log-format', 'xml', '--data-dir', '/nonexistent/flora'], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, FLORA_NO_BUILD_CHECK: '1' },
  });
  assert.equal(run.status, 2, run.stderr);
  assert.equal(run.stderr, "flora: Invalid log format 'xml' (from --log-format): expected text or json.\n\nRun 'flora --help' for the options.\n");
});

test('with JSON logs asked for, a configuration error is one JSON event too (exit 2)', () => {
  const run = spawnSync(process.execPath, [FLORA_BIN, 'start', '--port', 'eighty', '--data-dir', '/nonexistent/flora'], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, FLORA_NO_BUILD_CHECK: '1', FLORA_LOG_FORMAT: 'json' },
  });
  assert.equal(run.status, 2, run.stderr);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  const event = JSON.parse(lines[0]!) as Record<string, unknown>;
  assert.equal(event.level, 'error');
  assert.equal(event.worker, 'main');
  assert.match(String(event.msg), /port/i);
  assert.equal(event.help, "Run 'flora --help' for the options.");
});
