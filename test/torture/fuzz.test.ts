// The torture suite's fuzz part in its short, seeded form (npm run torture runs it long): FQL,
// GraphQL and HTTP inputs from several clients while idle connections are held and slow clients
// trickle. No answer may be a 5xx or malformed, nothing may hang or crash, the idle connections must
// be closed by the server and no descriptor may leak. Memory after the load is printed, not asserted.
// Then the defects the fuzzer found, each reproduced directly.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fuzzVerdict, runFuzz, summarizeFuzz } from '../../torture/fuzz';
import { CORPUS } from '../../torture/fqlCorpus';
import { FQL_SETUP } from '../../torture/fuzzFql';
import { wireText } from '../../torture/wireText';
import { httpRequest, startFlora, type FloraProcess } from '../helpers/server';

const SEED = Number(process.env.TORTURE_SEED ?? 20261126);

test(`fuzzing from 4 clients for 12 s with 300 idle connections (seed ${SEED}): no 5xx, malformed answer, hang, crash or leak`, async () => {
  const report = await runFuzz({
    seconds: 12,
    clients: 4,
    seed: SEED,
    idle: 300,
    settleMs: 1000,
    shrinkSeconds: 10,
    log: () => undefined,
    env: { FLORA_BODY_TIMEOUT_MS: '2000', FLORA_IDLE_TIMEOUT_MS: '3000' },
  });
  const { row, details } = summarizeFuzz(report);
  console.log(JSON.stringify(row));
  const problems = fuzzVerdict(report).filter((p) => !p.includes('after the load'));
  assert.deepEqual(problems, [], details.join('\n'));
  assert.ok(report.inputs.fql > 300 && report.inputs.graphql > 30 && report.inputs.http > 30, `too few inputs: ${JSON.stringify(report.inputs)}`);
  assert.equal(report.idleHeld, 300);
});

describe('the fuzz part', () => {
  let srv: FloraProcess;
  before(async () => {
    srv = await startFlora();
  });
  after(async () => {
    await srv.stop();
  });
  const query = (fql: unknown) =>
    httpRequest(srv.url, { method: 'POST', headers: { authorization: `Bearer ${srv.secret}`, 'content-type': 'application/json' }, body: wireText(fql) });

  test('its corpus of valid queries, which it mutates, is valid as it stands', async () => {
    for (const fql of FQL_SETUP) assert.ok((await query(fql)).status < 300, wireText(fql).slice(0, 200));
    for (const fql of CORPUS) {
      const res = await query(fql);
      assert.ok(res.status === 200 || res.status === 201, `${wireText(fql)}: ${res.status} ${res.body}`);
    }
  });

  // Defects the fuzzer found.

  test('a method Node does not know, over HTTP/2, gets the log-export API its own 405 (it got every method listed as allowed)', async () => {
    const res = await httpRequest(srv.url, { method: 'CONNECTX', path: '/api/v1/logs', http2: true, headers: { authorization: `Bearer ${srv.secret}` } });
    assert.equal(res.status, 405);
    assert.deepEqual(JSON.parse(res.body), { message: 'Method CONNECTX is not allowed here; use POST.' });
    assert.equal(res.headers.allow, 'POST');
  });

  test('Insert at a time before the epoch is `invalid write time` (it was a 500)', async () => {
    await query({ create_collection: { object: { name: 'before_epoch' } } });
    for (const ts of [{ '@ts': '-271821-04-20T00:00:00Z' }, { '@ts': '0001-01-01T00:00:00Z' }, -1, -9223372036854775808n]) {
      const res = await query({ insert: { ref: { collection: 'before_epoch' }, id: '1' }, ts, action: 'create', params: { object: { data: { object: { a: 1 } } } } });
      assert.equal(res.status, 400, res.body);
      assert.deepEqual(JSON.parse(res.body).errors, [{ position: ['insert'], code: 'invalid write time', description: 'Cannot write outside of snapshot time.' }]);
    }
    // The epoch itself is history's first instant.
    const res = await query({ insert: { ref: { collection: 'before_epoch' }, id: '1' }, ts: 0, action: 'create', params: { object: { data: { object: { a: 1 } } } } });
    assert.equal(res.status, 200, res.body);
  });

  test('an Expect other than 100-continue is ignored: the request is served (it got 417 with an empty body)', async () => {
    const res = await httpRequest(srv.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${srv.secret}`, 'content-type': 'application/json', expect: 'x-nope' },
      body: '{"add":[1,2]}',
    });
    assert.equal(res.status, 200);
    assert.equal(res.body, '{"resource":3}');
  });
});
