// FQL v10 requests in the query log (src/logs): API_VERSION "10", the query's shape without its
// literals or template values, the x-query-tags, the database, the response code and the stats;
// refused requests are recorded too. Read back through GET /api/v1/logs/_recent.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpRequest, type FloraProcess } from '../helpers/server';
import { logsApi, ROOT_SECRET, startLogged, type LogRecord } from '../helpers/logs';

let srv: FloraProcess;

before(async () => {
  srv = await startLogged();
});
after(async () => {
  assert.equal(await srv?.stop(), 0);
});

function v10(body: unknown, tag: string, secret = ROOT_SECRET): Promise<unknown> {
  return httpRequest(srv.url, {
    method: 'POST',
    path: '/query/1',
    headers: { authorization: `Bearer ${secret}`, 'x-query-tags': `step=${tag}` },
    body: JSON.stringify(body),
  });
}

test('v10 queries are logged with their shape, tags, database and stats', async () => {
  await v10({ query: "let secret = 'hunter2'; [secret, 42, 1.5e3].length // a comment" }, 'plain');
  await v10({ query: { fql: ['let x = ', { value: 'private' }, '\nx.length + ', { value: { '@int': '7' } }] } }, 'template');
  await v10({ query: 'abort(1)' }, 'failed');
  await v10({ query: '1' }, 'refused', 'wrong-secret');
  let rs: LogRecord[] = [];
  // The log is flushed every 20 ms in this server; wait for the four records.
  for (let i = 0; i < 100 && rs.filter((r) => r.TAGS.step).length < 3; i++) {
    rs = (await logsApi(srv, 'GET', '/api/v1/logs/_recent?type=query', undefined, ROOT_SECRET)).json.records as LogRecord[];
    if (rs.filter((r) => r.TAGS.step).length < 3) await new Promise((r) => setTimeout(r, 50));
  }
  const by = (step: string) => rs.find((r) => r.TAGS.step === step);
  const plain = by('plain')!;
  assert.ok(plain, JSON.stringify(rs));
  assert.equal(plain.API_VERSION, '10');
  assert.equal(plain.FQL_SHAPE, 'let secret = "?"; [secret, 0, 0].length');
  assert.equal(plain.RESPONSE_CODE, '200');
  assert.deepEqual(plain.DATABASE, ['us-std']);
  assert.equal(plain.COMPUTE_OPS, 1);
  assert.equal(plain.REQUEST_METHOD, 'POST');
  const template = by('template')!;
  assert.equal(template.FQL_SHAPE, 'let x = <value> x.length + <value>');
  assert.ok(!JSON.stringify(template).includes('private'));
  assert.equal(by('failed')!.RESPONSE_CODE, '400');
  // A request refused before its body was read is recorded without one (its tags are not read then).
  const refused = rs.find((r) => r.RESPONSE_CODE === '401' && r.API_VERSION === '10');
  assert.ok(refused, 'the 401 is logged as a v10 request');
  assert.equal(refused.FQL_SHAPE, '');
});
