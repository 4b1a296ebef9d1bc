// `npm run build && node dist/bench/wire10.js`: the v10 encoder (wire/v10/encode.ts, a string built
// directly) against JSON.stringify of the same answer built as a plain tree first, on a page of
// documents in the tagged and simple formats; and the request body reader on a driver-shaped body.

import { encodeValue } from '../src/wire/v10/encode';
import { Doc, DocRef, Module, SetPage, type MValue } from '../src/wire/v10/model';
import { parseQueryRequest } from '../src/wire/v10/request';
import { Time } from '../src/values/types';

const User = new Module('User');

function page(docs: number): SetPage {
  const data: MValue[] = [];
  for (let i = 0; i < docs; i++) {
    const id = String(400000000000000000n + BigInt(i));
    data.push(
      new Doc(
        new DocRef(User, id),
        new Map<string, MValue>([
          ['id', id],
          ['coll', User],
          ['ts', new Time(1_700_000_000_000_000_000n + BigInt(i) * 1000n)],
          ['name', `user number ${i}`],
          ['email', `user${i}@example.com`],
          ['age', BigInt(20 + (i % 50))],
          ['score', i * 1.5],
          ['tags', ['a', 'b', 'c']],
          ['address', new Map<string, MValue>([['street', '1 Main St'], ['zip', '12345']])],
          ['friend', new DocRef(User, '12345')],
        ]),
      ),
    );
  }
  return new SetPage(data, 'aGVsbG8gd29ybGQ=');
}

/** The same page as the tree JSON.stringify would need (tagged format). */
function asTree(p: SetPage): unknown {
  const tag = (t: string, v: unknown) => ({ [t]: v });
  const conv = (v: MValue): unknown => {
    if (typeof v === 'bigint') return tag('@int', v.toString());
    if (typeof v === 'number') return tag('@double', String(v));
    if (v instanceof Time) return tag('@time', new Date(Number(v.nanos / 1_000_000n)).toISOString());
    if (v instanceof Module) return tag('@mod', v.name);
    if (v instanceof DocRef) return tag('@ref', { id: v.id, coll: tag('@mod', v.coll.name) });
    if (v instanceof Doc) return tag('@doc', conv(v.fields));
    if (Array.isArray(v)) return v.map(conv);
    if (v instanceof Map) {
      const o: Record<string, unknown> = {};
      for (const [k, x] of v) o[k] = conv(x);
      return o;
    }
    return v;
  };
  return tag('@set', { data: p.data.map(conv), after: p.after });
}

function time(label: string, runs: number, f: () => unknown): void {
  for (let i = 0; i < Math.min(runs, 50); i++) f(); // warm up
  const t = performance.now();
  for (let i = 0; i < runs; i++) f();
  const per = (performance.now() - t) / runs;
  console.log(`${label.padEnd(60)} ${(per * 1000).toFixed(1).padStart(9)} µs`);
}

const p = page(64);
const txn = 1_700_000_000_000_000n;
console.log(`a page of 64 documents, ${encodeValue(p, 'tagged', txn).length} bytes tagged`);
time('encodeValue tagged', 2000, () => encodeValue(p, 'tagged', txn));
time('encodeValue simple', 2000, () => encodeValue(p, 'simple', txn));
time('tree + JSON.stringify (tagged, simplified)', 2000, () => JSON.stringify(asTree(p)));

const body = JSON.stringify({
  query: { fql: ['User.where(.age > ', { value: { '@int': '30' } }, ' && .name == ', { value: 'bob' }, ').pageSize(64)'] },
  arguments: { filter: { '@object': { '@x': { '@int': '1' }, y: ['a', { '@double': '1.5' }] } } },
});
time('parseQueryRequest (driver-shaped body)', 20000, () => parseQueryRequest(body));
time('JSON.parse of the same body', 20000, () => JSON.parse(body));
