// An admin key of any database uploads lines of `x` (none of them a record) to POST /api/v1/imports,
// then the root secret lists its exports. Once, every bad line was kept in the job's one JSON file
// (1.2 MB of upload: a 97.7 MB file), and every list parsed every job file of every database on the
// event loop (3 s, /ping held 1.3 s). Must hold: the job's files stay under a cap (the report keeps
// the first problems and a count), lists read only the asking database's small state files, and
// /ping stays prompt throughout.

import { query as q } from 'faunadb';
import * as path from 'node:path';
import { ClientPool, makeKey, startFlora } from '../../test/helpers/server';
import { Verdict, type TargetedAttack, type TargetedResult } from './attack';
import { api, filesBelow, untilDone } from './jobApi';
import { whilePinging } from './pingWatch';

/** Bytes of `x\n` uploaded: the 1.2 MB, or a tenth for npm test. */
const UPLOAD_BYTES = { torture: 1_200_000, test: 120_000 };
/** Largest a job file (its state or its report, not the upload itself) may be. */
export const JOB_FILE_CAP = 1024 * 1024;
/** Longest a list of jobs may take. */
export const LIST_BOUND_MS = 1000;

export const jobFlood: TargetedAttack = {
  name: 'job-flood',
  part: 'hostile',
  about: 'an admin key uploads lines of `x` as an import, then root lists its exports: job files under the cap, the lists and /ping prompt',
  async run({ size, log }): Promise<TargetedResult> {
    const srv = await startFlora();
    const pool = new ClientPool(srv.url);
    const verdict = new Verdict();
    try {
      await pool.client(srv.secret).query(q.CreateDatabase({ name: 'flood' }));
      const secret = await makeKey(srv, 'admin', 'flood');
      const upload = Buffer.from('x\n'.repeat(UPLOAD_BYTES[size] / 2));
      log(`    job-flood: uploading ${upload.length} bytes of \`x\` lines`);

      const imported = await whilePinging(srv.url, async () => {
        const started = await api(srv.url, 'POST', '/api/v1/imports', secret, upload);
        if (started.status !== 202) return { started, done: undefined };
        return { started, done: await untilDone(srv.url, `/api/v1/imports/${started.json!.id}`, secret) };
      }, size);
      const { started, done } = imported.value;
      // An attack that did not run proves nothing: it fails.
      if (started.status !== 202) verdict.fail(true, `the upload was refused (${started.status} ${started.text.slice(0, 200)}): the attack did not run`);
      else verdict.fail(done?.json?.state !== 'Complete', () => `the import ended ${done?.json?.state ?? done?.status}: ${done?.text.slice(0, 200)}`);
      const problems = done?.json?.report?.problems?.length ?? 0;
      const omitted = done?.json?.report?.problems_omitted ?? 0;

      // The job's own files: its state and report (the uploaded copy is the client's bytes, kept as sent).
      const files = (await filesBelow(path.join(srv.dataDir, 'transfers'))).filter((f) => !path.basename(f.path).startsWith('upload'));
      const largest = files.reduce((a, f) => (f.bytes > a.bytes ? f : a), { path: '', bytes: 0 });
      verdict.fail(largest.bytes > JOB_FILE_CAP, `job file over the cap: ${largest.path} is ${largest.bytes} bytes (cap ${JOB_FILE_CAP})`);

      const listed = await whilePinging(srv.url, async () => {
        const rootList = await api(srv.url, 'GET', '/api/v1/exports', srv.secret);
        const ownList = await api(srv.url, 'GET', '/api/v1/imports', secret);
        return { rootList, ownList };
      }, size);
      const { rootList, ownList } = listed.value;
      for (const [who, r] of [['root GET /api/v1/exports', rootList], ['tenant GET /api/v1/imports', ownList]] as const) {
        verdict.fail(r.status !== 200, () => `${who}: ${r.status} ${r.text.slice(0, 200)}`);
        verdict.fail(r.ms > LIST_BOUND_MS, () => `${who} took ${r.ms.toFixed(0)} ms (bound ${LIST_BOUND_MS} ms)`);
      }
      verdict.ping(imported.ping, 'during the import');
      verdict.ping(listed.ping, 'during the lists');
      return verdict.result({
        'upload bytes': String(upload.length),
        'job file bytes': String(largest.bytes),
        'problems listed': `${problems} (+${omitted} counted)`,
        'root list ms': rootList.ms.toFixed(0),
        'tenant list ms': ownList.ms.toFixed(0),
      });
    } finally {
      await pool.close();
      await srv.stop();
    }
  },
};
