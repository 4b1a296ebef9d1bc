// Random expressions over every form, with odd arguments: the server must answer each with a
// resource or a Fauna error (never a 500, never a non-JSON body, never a hang). Seeded, so a
// failure reproduces.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomExpr, toJson as json } from '../../torture/fqlFuzz';
import { startFlora, type FloraProcess } from '../helpers/server';
import { prng } from '../helpers/prng';

let srv: FloraProcess;
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

before(async () => {
  srv = await startFlora();
});
after(async () => {
  agent.destroy();
  await srv.stop();
});


function send(body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${srv.url}/`,
      { method: 'POST', agent, headers: { authorization: `Bearer ${srv.secret}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}


// FUZZ_SEED / FUZZ_COUNT explore further by hand; the suite always runs the same 2000.
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const COUNT = Number(process.env.FUZZ_COUNT ?? 2000);

test(`${COUNT} random expressions never crash the server`, async () => {
  await send(json({ create_collection: { object: { name: 'fuzz' } } }));
  const rand = prng(SEED);
  const bodies = Array.from({ length: COUNT }, () => json(randomExpr(rand, 4)));
  const outcomes = new Map<string, number>();
  for (let i = 0; i < bodies.length; i += 8) {
    const batch = bodies.slice(i, i + 8);
    const answers = await Promise.all(batch.map(send));
    answers.forEach((res, j) => {
      const body = batch[j];
      assert.ok(res.status < 500, `status ${res.status} for ${body}: ${res.body}`);
      const parsed = JSON.parse(res.body) as { resource?: unknown; errors?: { code: string }[] };
      const outcome = parsed.errors?.[0]?.code ?? 'ok';
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      assert.ok('resource' in parsed || (parsed.errors && parsed.errors.length > 0 && parsed.errors[0].code), `bad body for ${body}: ${res.body}`);
    });
  }
  console.log(`outcomes: ${[...outcomes].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}`);
  // Still healthy afterwards.
  assert.equal((await send('{"add":[1,2]}')).body, '{"resource":3}');
});
