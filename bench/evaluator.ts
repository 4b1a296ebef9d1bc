// `npm run build && node dist/bench/evaluator.js [--requests 400]`
// Evaluator cost per call: one request mixing 200 string, number and time calls, sent many times
// through the official driver; the server's own x-query-time (whole ms) is averaged over all
// requests and divided by the 200 calls.

import { Client, query as q, type ExprArg } from 'faunadb';
import { startFlora } from '../test/helpers/server';

const CALLS = 200;

/** 200 calls: a cycle of string, number and time functions over varying inputs. */
function mixedQuery(): ExprArg {
  const calls: ExprArg[] = [];
  const makers: ((i: number) => ExprArg)[] = [
    (i) => q.UpperCase(`flora-${i}`),
    (i) => q.SubString(`abcdefghij${i}`, 2, 5),
    (i) => q.ReplaceStr(`a-b-c-${i}`, '-', '+'),
    (i) => q.Concat(['x', String(i), 'y'], '/'),
    (i) => q.Add(i, 2.5),
    (i) => q.Multiply(i, i, 3),
    (i) => q.Pow(i % 7, 2),
    (i) => q.Round(i / 7, 3),
    (i) => q.TimeAdd(q.Epoch(i, 'second'), 1, 'hour'),
    (i) => q.ToString(q.Epoch(i * 1000, 'millisecond')),
  ];
  for (let i = 0; calls.length < CALLS; i++) calls.push(makers[i % makers.length](i));
  return calls;
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--requests');
  const requests = i >= 0 ? Number(process.argv[i + 1]) : 400;
  const flora = await startFlora();
  const client = new Client({ secret: flora.secret, endpoint: flora.url });
  try {
    const expr = mixedQuery();
    for (let w = 0; w < 50; w++) await client.query(expr); // warm-up
    let totalMs = 0;
    for (let r = 0; r < requests; r++) {
      const { metrics } = await client.queryWithMetrics(expr);
      totalMs += metrics['x-query-time'];
    }
    const perCallUs = (totalMs * 1000) / (requests * CALLS);
    console.log(`evaluator: ${CALLS} calls per request, ${requests} requests: mean x-query-time ${(totalMs / requests).toFixed(2)} ms, ${perCallUs.toFixed(2)} µs per call`);
  } finally {
    await client.close({ force: true });
    await flora.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
