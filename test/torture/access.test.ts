// The torture suite's access part in its short, seeded form (npm run torture runs it for longer, pass
// after pass): every cell of the access matrix against one real server, then the leak checks and the
// revocations on a tier of two processes. And
// docs/access-control.md must be what torture/accessMatrix.ts generates.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { ROOT } from '../helpers/server';
import { accessProblems, runAccess, summarize } from '../../torture/access';
import { renderAccessDoc } from '../../torture/accessDoc';
import { COLUMNS, SUBJECTS } from '../../torture/accessMatrix';

const SEED = Number(process.env.TORTURE_SEED ?? 20261126);

test('docs/access-control.md is generated from torture/accessMatrix.ts', async () => {
  const inRepo = await readFile(path.join(ROOT, 'docs', 'access-control.md'), 'utf8');
  assert.ok(inRepo === renderAccessDoc(), 'docs/access-control.md is stale: run node dist/torture/accessDoc.js > docs/access-control.md');
});

test(`every cell of the access matrix, 4 clients (seed ${SEED}): nothing beyond or short of the table, no leak`, async () => {
  const report = await runAccess({ seconds: 1, clients: 4, seed: SEED, log: () => undefined });
  const { row, details } = summarize(report);
  console.log(JSON.stringify(row));
  assert.deepEqual(accessProblems(report), [], details.join('\n'));
  // FQL cells twice (driver and raw HTTP), the others once: every cell of every row was checked.
  const fql = COLUMNS.filter((c) => c.via === 'fql' && !c.last).length;
  assert.ok(report.cells >= SUBJECTS.length * (COLUMNS.length + fql), `only ${report.cells} cells`);
  assert.ok(report.revocations.length >= 9, `only ${report.revocations.length} kinds of revocation`);
});
