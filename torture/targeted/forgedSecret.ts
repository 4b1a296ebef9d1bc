// Row 9 of issue 30: secrets carrying a real key's id and random bytes. The random part of a secret
// is checked against the salted SHA-256 kept in the key's location record (model/secrets.ts), so a
// forged secret is refused before the key's document is read, as cheaply as one naming no key.
// Figure: the server's CPU per 401 (/proc/<pid>/stat) for forged and for missing secrets, in
// interleaved batches. Violations: forged markedly dearer than missing, any forged secret accepted.

import { randomBytes } from 'node:crypto';
import { makeKey, startFlora } from '../../test/helpers/server';
import { Verdict, type TargetedAttack, type TargetedResult } from './attack';
import { whilePinging } from './pingWatch';
import { cpuMs, FqlSession } from './fqlSession';

/** Forged is "markedly dearer" above this ratio of missing's CPU per 401, plus the margin below. */
const RATIO = 1.5;
/** ms per 401 added to the bound: /proc counts in 10 ms ticks, and the machine is shared. */
const MARGIN_MS = 0.5;
const IN_FLIGHT = 4;

/** `secret` with its 20 random bytes replaced: the same key id. */
export function forge(secret: string): string {
  const buf = Buffer.from(secret, 'base64url');
  randomBytes(20).copy(buf, buf.length - 20);
  return buf.toString('base64url');
}

/** A well-formed key secret naming a key id that does not exist. */
export function missing(): string {
  const buf = Buffer.alloc(30);
  buf[0] = 0x7e;
  buf[1] = 0x70;
  randomBytes(28).copy(buf, 2);
  return buf.toString('base64url');
}

export const forgedSecret: TargetedAttack = {
  name: 'forged-secret',
  part: 'access',
  about: 'secrets with a real key id and random bytes cost the server what a secret naming no key does (CPU per 401), and none is accepted',
  async run({ size, log }): Promise<TargetedResult> {
    const batch = size === 'torture' ? 1000 : 200;
    const rounds = size === 'torture' ? 6 : 3;
    const flora = await startFlora();
    const session = new FqlSession(flora.url);
    const verdict = new Verdict();
    try {
      const pid = flora.proc.pid!;
      const keys: string[] = [];
      for (const role of ['client', 'server', 'admin']) keys.push(await makeKey(flora, role));
      const cpu = { forged: 0, missing: 0 };
      let accepted = 0;
      const fire = async (kind: 'forged' | 'missing') => {
        const secrets = Array.from({ length: batch }, (_, i) => (kind === 'forged' ? forge(keys[i % keys.length]) : missing()));
        const before = cpuMs(pid);
        let next = 0;
        const worker = async () => {
          while (next < secrets.length) {
            const a = await session.post(secrets[next++], '"x"');
            if (a.status !== 401) accepted++;
          }
        };
        await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
        cpu[kind] += cpuMs(pid) - before;
      };
      const { ping } = await whilePinging(flora.url, async () => {
        await fire('missing'); // warm-up, not counted
        cpu.missing = 0;
        for (let r = 0; r < rounds; r++) {
          await fire('forged');
          await fire('missing');
        }
      }, size);
      const n = batch * rounds;
      const forgedMs = cpu.forged / n;
      const missingMs = cpu.missing / n;
      log(`    CPU per 401: forged ${forgedMs.toFixed(3)} ms, missing ${missingMs.toFixed(3)} ms (${n} each)`);
      verdict.fail(forgedMs > missingMs * RATIO + MARGIN_MS, `a forged secret costs ${forgedMs.toFixed(2)} ms of server CPU per 401, a missing one ${missingMs.toFixed(2)} ms`);
      verdict.fail(accepted, `${accepted} forged or made-up secrets were not refused with 401`);
      verdict.ping(ping);
      return verdict.result({ 'forged CPU ms/401': forgedMs.toFixed(3), 'missing CPU ms/401': missingMs.toFixed(3) });
    } finally {
      session.close();
      await flora.stop();
    }
  },
};
