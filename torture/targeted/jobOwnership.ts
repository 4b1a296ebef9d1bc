// Export and import jobs belong to the database that started them: its identity (the internal id
// that never repeats), not its name. Once they were owned by the name, so when root deleted `acme`
// and created a new `acme`, the new tenant listed the old tenant's export and downloaded its files,
// keys and credentials included. Must hold: a deleted database's jobs are served to no one and their
// files are removed; a renamed or moved database keeps its jobs, shown under its current path.

import { query as q } from 'faunadb';
import { ClientPool, startFlora, waitFor } from '../../test/helpers/server';
import type { TargetedAttack, TargetedResult } from './attack';
import { api, filesBelow, untilDone } from './jobApi';
import * as path from 'node:path';

/** How long the files of a deleted database's jobs may stay on disk. */
const REMOVED_WITHIN_MS = 15_000;

export const jobOwnership: TargetedAttack = {
  name: 'job-ownership',
  part: 'access',
  about: "acme's admin exports (with keys) and imports; root deletes and re-creates acme: the new tenant sees none of it, the files go; a renamed, then moved, database keeps its jobs",
  async run({ log }): Promise<TargetedResult> {
    const srv = await startFlora();
    const pool = new ClientPool(srv.url);
    const root = pool.client(srv.secret);
    const details: string[] = [];
    let violations = 0;
    const adminKey = async (db: string) => ((await root.query(q.CreateKey({ database: q.Database(db), role: 'admin' }))) as { secret: string }).secret;
    const exportOf = async (secret: string) => {
      const started = await api(srv.url, 'POST', '/api/v1/exports', secret, JSON.stringify({ keys: true }));
      if (started.status !== 202) throw new Error(`export refused: ${started.status} ${started.text}`);
      const done = await untilDone(srv.url, `/api/v1/exports/${started.json!.id}`, secret);
      if (done.json?.state !== 'Complete') throw new Error(`export ended ${done.text}`);
      return done.json;
    };
    try {
      // --- a deleted database's jobs ---
      await root.query(q.CreateDatabase({ name: 'acme' }));
      const old = await adminKey('acme');
      await pool.client(old).query(q.Do(q.CreateCollection({ name: 'users' }), q.CreateKey({ role: 'server' })));
      await pool.client(old).query(q.Create(q.Ref(q.Collection('users'), '1'), { credentials: { password: 'hunter2' }, data: { name: 'alice' } }));
      const exported = await exportOf(old);
      const upload = await api(srv.url, 'POST', '/api/v1/imports', old, '{"ref":{"@ref":{"id":"2","collection":{"@ref":{"id":"users","collection":{"@ref":{"id":"collections"}}}}}},"ts":1,"data":{"name":"bob"}}\n');
      const imported = upload.status === 202 ? await untilDone(srv.url, `/api/v1/imports/${upload.json!.id}`, old) : upload;
      const oldIds = [exported.id as string, imported.json?.id as string].filter(Boolean);
      const files = (exported.files as { path: string; download: string }[]).map((f) => f.download);
      log(`    job-ownership: acme's export ${exported.id} (${files.length} files) and import ${imported.json?.id}; acme deleted and re-created`);

      await root.query(q.Delete(q.Database('acme')));
      await root.query(q.CreateDatabase({ name: 'acme' }));
      const tenants = { 'new admin key': await adminKey('acme'), 'root:acme:admin': `${srv.secret}:acme:admin` };
      for (const [who, secret] of Object.entries(tenants)) {
        for (const kind of ['exports', 'imports']) {
          const list = await api(srv.url, 'GET', `/api/v1/${kind}`, secret);
          const seen = ((list.json?.jobs ?? []) as { id: string }[]).filter((j) => oldIds.includes(j.id));
          violations += seen.length;
          for (const j of seen) details.push(`${who}: GET /api/v1/${kind} lists the old acme's job ${j.id}`);
        }
        const reads = [`/api/v1/exports/${exported.id}`, ...files];
        if (imported.json?.id) reads.push(`/api/v1/imports/${imported.json.id}`);
        for (const route of reads) {
          const r = await api(srv.url, 'GET', route, secret);
          if (r.status !== 404) {
            violations++;
            details.push(`${who}: GET ${route} → ${r.status} (${r.text.length} bytes)`);
          }
        }
      }
      const left = async () => (await filesBelow(path.join(srv.dataDir, 'transfers'))).filter((f) => oldIds.some((id) => f.path.includes(id)));
      await waitFor('the deleted database’s job files to go', async () => (await left()).length === 0, REMOVED_WITHIN_MS).catch(() => undefined);
      const kept = await left();
      if (kept.length > 0) {
        violations++;
        details.push(`${kept.length} file(s) of the deleted acme's jobs still on disk ${REMOVED_WITHIN_MS / 1000} s after, e.g. ${kept[0].path}`);
      }

      // --- a renamed, then moved, database keeps its jobs ---
      await root.query(q.CreateDatabase({ name: 'orig' }));
      const key = await adminKey('orig');
      const job = await exportOf(key);
      const follows = async (where: string, current: string) => {
        const list = await api(srv.url, 'GET', '/api/v1/exports', key);
        const one = await api(srv.url, 'GET', `/api/v1/exports/${job.id}`, key);
        const file = await api(srv.url, 'GET', (job.files as { download: string }[])[0].download, key);
        if (!((list.json?.jobs ?? []) as { id: string }[]).some((j) => j.id === job.id) || one.status !== 200 || file.status !== 200) {
          violations++;
          details.push(`${where}: the job is lost (list ${list.status}, job ${one.status}, file ${file.status})`);
        } else if (one.json?.owner !== current) {
          violations++;
          details.push(`${where}: the job shows the database as ${JSON.stringify(one.json?.owner)}, not its current path '${current}'`);
        }
      };
      await root.query(q.Update(q.Database('orig'), { name: 'renamed' }));
      await follows('after a rename', 'renamed');
      await root.query(q.CreateDatabase({ name: 'parent' }));
      await root.query(q.MoveDatabase(q.Database('renamed'), q.Database('parent')));
      await follows('after a move', 'parent/renamed');
      return { violations, figures: { 'old jobs': String(oldIds.length), 'old files': String(files.length) }, details };
    } finally {
      await pool.close();
      await srv.stop();
    }
  },
};
