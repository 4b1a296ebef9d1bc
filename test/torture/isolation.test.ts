// The torture suite's isolation part in its short, seeded form (npm run torture runs it long, and
// over PostgreSQL too): the bank and list-append workloads at once against one process, then
// against `--workers 2` on one LMDB directory. No anomaly, no crash, and real work done.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isolationVerdict, runIsolation, summarize } from '../../torture/isolation';

const SEED = Number(process.env.TORTURE_SEED ?? 20261126);

test(`bank and list-append on one process and on --workers 2, 8 clients, 6 s each (seed ${SEED}): no anomaly`, async () => {
  const opts = { seconds: 12, clients: 8, seed: SEED };
  const reports = await runIsolation({ ...opts, modes: ['one process', 'LMDB --workers 2'] });
  const { row, details } = summarize(reports, opts);
  console.log(JSON.stringify(row));
  assert.deepEqual(isolationVerdict(reports), [], details.join('\n'));
  for (const r of reports) {
    assert.ok((r.bank?.transfers.ok ?? 0) >= 10, `${r.mode}: only ${r.bank?.transfers.ok} transfers`);
    assert.ok((r.bank?.snapshotReads ?? 0) >= 1, `${r.mode}: no read at a past time`);
    assert.ok((r.appends?.check.counts.ok ?? 0) >= 20, `${r.mode}: only ${r.appends?.check.counts.ok} list-append transactions`);
    assert.ok((r.appends?.check.edges ?? 0) >= 20, `${r.mode}: a history too thin to check (${r.appends?.check.edges} dependencies)`);
  }
});
