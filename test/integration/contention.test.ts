// X-Max-Retries-On-Contention (fql-v4.md: 0..7, then 409 contended transaction): with 0 the server
// runs a conflicting transaction once and answers 409 rather than running it again, and a 409 is a
// transaction that did not happen. (The header was parsed and then ignored: the torture suite's
// isolation part, whose clients allowing no retry never saw a 409, found it.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpRequest, serverForFile } from '../helpers/server';

const server = serverForFile();

const INCREMENT = JSON.stringify({
  let: { n: { select: ['data', 'n'], from: { get: { ref: { collection: 'counters' }, id: '1' } } } },
  in: { update: { ref: { collection: 'counters' }, id: '1' }, params: { object: { data: { object: { n: { add: [{ var: 'n' }, 1] } } } } } },
});

async function query(body: string, headers: Record<string, string> = {}) {
  const { flora } = server;
  return httpRequest(flora.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${flora.secret}`, 'content-type': 'application/json', ...headers },
    body,
  });
}

test('with X-Max-Retries-On-Contention: 0, racing increments of one document end in 409s that applied nothing', async () => {
  await query(JSON.stringify({ create_collection: { object: { name: 'counters' } } }));
  await query(JSON.stringify({ create: { ref: { collection: 'counters' }, id: '1' }, params: { object: { data: { object: { n: 0 } } } } }));
  let applied = 0;
  const conflicts: { body: string; retries: string | undefined }[] = [];
  // Rounds of 16 at once until the race shows (it does in the first round or two on any machine).
  for (let round = 0; round < 50 && conflicts.length === 0; round++) {
    const answers = await Promise.all(Array.from({ length: 16 }, () => query(INCREMENT, { 'x-max-retries-on-contention': '0' })));
    for (const a of answers) {
      if (a.status === 200) applied++;
      else if (a.status === 409) conflicts.push({ body: a.body, retries: a.headers['x-txn-retries'] });
      else assert.fail(`unexpected answer ${a.status}: ${a.body}`);
    }
  }
  assert.ok(conflicts.length > 0, 'no 409 in 50 rounds of 16 racing increments');
  assert.equal(JSON.parse(conflicts[0].body).errors[0].code, 'contended transaction');
  const final = await query(JSON.stringify({ select: ['data', 'n'], from: { get: { ref: { collection: 'counters' }, id: '1' } } }));
  assert.equal(JSON.parse(final.body).resource, applied, 'every 200 applied once, no 409 applied');
});
