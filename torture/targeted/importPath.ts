// POST /api/v1/imports?path=… makes the server read its own files. Once, an admin key of the top
// database (not the root secret) could do it, anywhere, and the job's error said whether the file
// existed. Must hold: a server path is for the root secret only, inside the configured import
// directory (symlinks and `..` resolved first); every refused path gets the same answer, whether
// the file exists or not, and nothing runs.
//
// Two servers: one with the default (no import directory) and one with FLORA_IMPORT_DIR. Each
// refused request is asked twice, for a file that exists and for one that does not.

import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { makeKey, startFlora, type FloraProcess } from '../../test/helpers/server';
import { Verdict, type TargetedAttack, type TargetedResult } from './attack';
import { api, untilDone, type ApiAnswer } from './jobApi';
import { whilePinging } from './pingWatch';

/** One record of a driver dump: what an import takes. */
export const RECORD = '{"ref":{"@ref":{"id":"1","collection":{"@ref":{"id":"things","collection":{"@ref":{"id":"collections"}}}}}},"ts":1,"data":{"a":1}}\n';

/** A request that must be refused: a path that exists, and one alike that does not. */
interface Pair {
  who: string;
  secret: string;
  srv: FloraProcess;
  existing: string;
  missing: string;
}

export const importPath: TargetedAttack = {
  name: 'import-path',
  part: 'access',
  about: 'a top-level admin key and root ask POST /api/v1/imports?path= for /etc/shadow, a missing file, `..` and symlinks out: nothing runs, existing and missing answer alike',
  async run({ size, log }): Promise<TargetedResult> {
    const tmp = await mkdtemp(path.join(tmpdir(), 'flora-import-path-'));
    const imports = path.join(tmp, 'imports');
    const outside = path.join(tmp, 'outside');
    await mkdir(imports);
    await mkdir(outside);
    await writeFile(path.join(imports, 'good.ndjson'), RECORD);
    await writeFile(path.join(outside, 'secret.ndjson'), RECORD);
    await symlink(path.join(outside, 'secret.ndjson'), path.join(imports, 'link'));
    await symlink(path.join(outside, 'missing.ndjson'), path.join(imports, 'dangling'));
    const servers: FloraProcess[] = [];
    const verdict = new Verdict();
    try {
      const off = await startFlora();
      servers.push(off);
      const on = await startFlora({ env: { FLORA_IMPORT_DIR: imports } });
      servers.push(on);
      const keys = { off: await makeKey(off, 'admin'), on: await makeKey(on, 'admin') };
      const pairs: Pair[] = [];
      for (const [name, srv, key] of [['no import dir', off, keys.off], ['import dir', on, keys.on]] as const) {
        for (const [who, secret] of [[`top-level admin key, ${name}`, key], [`root, ${name}`, srv.secret]] as const) {
          pairs.push({ who, secret, srv, existing: '/etc/shadow', missing: '/etc/flora-no-such-file' });
          pairs.push({ who, secret, srv, existing: path.join(outside, 'secret.ndjson'), missing: path.join(outside, 'missing.ndjson') });
        }
      }
      // With an import directory: out of it through `..` (absolute and relative) and through symlinks.
      pairs.push({ who: 'root, `..`', secret: on.secret, srv: on, existing: `${imports}/../outside/secret.ndjson`, missing: `${imports}/../outside/missing.ndjson` });
      pairs.push({ who: 'root, relative `..`', secret: on.secret, srv: on, existing: '../outside/secret.ndjson', missing: '../outside/missing.ndjson' });
      pairs.push({ who: 'root, symlink out', secret: on.secret, srv: on, existing: path.join(imports, 'link'), missing: path.join(imports, 'dangling') });
      // An admin key may not import even what the directory holds.
      pairs.push({ who: 'top-level admin key, inside the import dir', secret: keys.on, srv: on, existing: path.join(imports, 'good.ndjson'), missing: path.join(imports, 'none.ndjson') });

      const asked = await whilePinging(on.url, async () => {
        for (const p of pairs) {
          const ask = (file: string) => api(p.srv.url, 'POST', `/api/v1/imports?path=${encodeURIComponent(file)}`, p.secret);
          const [existing, missing] = [await ask(p.existing), await ask(p.missing)];
          for (const [file, r] of [[p.existing, existing], [p.missing, missing]] as const) {
            if (r.status < 300) verdict.fail(true, `${p.who}: ${file} ran (${r.status}${await jobOutcome(p, r)})`);
          }
          verdict.fail(
            existing.status !== missing.status || existing.json?.message !== missing.json?.message,
            () => `${p.who}: ${p.existing} → ${existing.status} ${existing.text.slice(0, 160)}; ${p.missing} → ${missing.status} ${missing.text.slice(0, 160)}`,
          );
        }
        // The control: root imports a file inside the directory.
        const good = await api(on.url, 'POST', `/api/v1/imports?path=${encodeURIComponent('good.ndjson')}`, on.secret);
        const done = good.status === 202 ? await untilDone(on.url, `/api/v1/imports/${good.json!.id}`, on.secret) : good;
        verdict.fail(done.json?.state !== 'Complete', () => `root could not import good.ndjson from the import directory: ${done.status} ${done.text.slice(0, 200)}`);
      }, size);
      log(`    import-path: ${pairs.length * 2} refused paths asked`);
      verdict.ping(asked.ping);
      return verdict.result({ 'paths asked': String(pairs.length * 2) });
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await rm(tmp, { recursive: true, force: true });
    }
  },
};

/** How a job that should never have run ended, for the detail line. */
async function jobOutcome(p: Pair, r: ApiAnswer): Promise<string> {
  if (typeof r.json?.id !== 'string') return '';
  const done = await untilDone(p.srv.url, `/api/v1/imports/${r.json.id}`, p.secret, 10_000);
  return `: job ${done.json?.state}${done.json?.error ? `, "${String(done.json.error).slice(0, 120)}"` : ''}`;
}
