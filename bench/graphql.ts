// `node dist/bench/graphql.js [--seconds 20] [--rounds 5] [--concurrency 8] [--authors 50] [--books 5]`
// A GraphQL query returning 50 documents, each with a one-to-many relation (a page of its books),
// against the equivalent single FQL query (Map over Paginate, with a nested Map over Paginate of the
// relation index) on the same Flora process, both over HTTP/1.1 keep-alive with the same client
// code. The two scenarios are interleaved in rounds so that machine noise hits both alike.
// Prints each one's throughput and the ratio GraphQL / FQL (target >= 0.5).

import * as http from 'node:http';
import { query as q } from 'faunadb';
import { startFlora } from '../test/helpers/server';

interface Options {
  seconds: number;
  rounds: number;
  concurrency: number;
  authors: number;
  books: number;
}

const TARGET_RATIO = 0.5;

function parseArgs(argv: string[]): Options {
  const opts: Options = { seconds: 20, rounds: 5, concurrency: 8, authors: 50, books: 5 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '') as keyof Options;
    const value = Number(argv[i + 1]);
    if (!(key in opts) || !Number.isFinite(value) || value <= 0) throw new Error(`bad option ${argv[i]}`);
    opts[key] = value;
  }
  return opts;
}

const SCHEMA = `
type Author { name: String!  books: [Book] @relation }
type Book { title: String!  pages: Int  author: Author! }
type Query { allAuthors: [Author!] }
`;

const GRAPHQL = JSON.stringify({
  query: '{ allAuthors(_size: 50) { data { _id name books { data { _id title pages } } } } }',
});

/** The same result through FQL: one query, nested Paginate over the relation index. */
const FQL = JSON.stringify(
  q.Map(
    q.Paginate(q.Match(q.Index('allAuthors')), { size: 50 }),
    q.Lambda(
      'a',
      q.Let(
        { doc: q.Get(q.Var('a')) },
        {
          _id: q.Select(['ref', 'id'], q.Var('doc')),
          name: q.Select(['data', 'name'], q.Var('doc')),
          books: {
            data: q.Select(
              'data',
              q.Map(
                q.Paginate(q.Match(q.Index('author_books_by_author'), q.Var('a')), { size: 50 }),
                q.Lambda(
                  'b',
                  q.Let(
                    { book: q.Get(q.Var('b')) },
                    {
                      _id: q.Select(['ref', 'id'], q.Var('book')),
                      title: q.Select(['data', 'title'], q.Var('book')),
                      pages: q.Select(['data', 'pages'], q.Var('book'), null),
                    },
                  ),
                ),
              ),
            ),
          },
        },
      ),
    ),
  ),
);

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function post(url: string, path: string, body: string, secret: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(path, url),
      { method: 'POST', agent, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'x-faunadb-api-version': '4' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function runFor(seconds: number, concurrency: number, once: () => Promise<void>): Promise<{ ops: number; seconds: number }> {
  const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const started = process.hrtime.bigint();
  let ops = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (process.hrtime.bigint() < deadline) {
        await once();
        ops++;
      }
    }),
  );
  return { ops, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const srv = await startFlora();
  try {
    const imported = await post(srv.url, '/import', SCHEMA, srv.secret);
    if (imported.status !== 200) throw new Error(`import failed: ${imported.body}`);
    // Authors and their books, created through FQL.
    for (let a = 0; a < opts.authors; a++) {
      const books = Array.from({ length: opts.books }, (_, b) =>
        q.Create(q.Collection('Book'), { data: { title: `Book ${a}.${b}`, pages: 100 + b, author: q.Var('author') } }),
      );
      const body = JSON.stringify(
        q.Let({ author: q.Select('ref', q.Create(q.Collection('Author'), { data: { name: `Author ${a}` } })) }, q.Do(...books)),
      );
      const r = await post(srv.url, '/', body, srv.secret);
      if (r.status >= 300) throw new Error(`populate failed: ${r.body}`);
    }

    // Both must return the same documents.
    const g = JSON.parse((await post(srv.url, '/graphql', GRAPHQL, srv.secret)).body) as {
      data: { allAuthors: { data: { books: { data: unknown[] } }[] } };
    };
    const f = JSON.parse((await post(srv.url, '/', FQL, srv.secret)).body) as { resource: { data: { books: { data: unknown[] } }[] } };
    const gAuthors = g.data.allAuthors.data;
    const fAuthors = f.resource.data;
    if (gAuthors.length !== Math.min(50, opts.authors) || JSON.stringify(gAuthors) !== JSON.stringify(fAuthors))
      throw new Error('GraphQL and FQL answers differ');

    const checkOk = (r: { status: number; body: string }) => {
      if (r.status !== 200 || r.body.includes('"errors"')) throw new Error(`request failed: ${r.body.slice(0, 300)}`);
    };
    const graphqlOnce = async () => checkOk(await post(srv.url, '/graphql', GRAPHQL, srv.secret));
    const fqlOnce = async () => checkOk(await post(srv.url, '/', FQL, srv.secret));

    // Warm-up, then interleaved rounds.
    await runFor(2, opts.concurrency, graphqlOnce);
    await runFor(2, opts.concurrency, fqlOnce);
    const slice = opts.seconds / opts.rounds;
    const totals = { graphql: { ops: 0, seconds: 0 }, fql: { ops: 0, seconds: 0 } };
    for (let r = 0; r < opts.rounds; r++) {
      for (const [name, once] of [['graphql', graphqlOnce], ['fql', fqlOnce]] as const) {
        const m = await runFor(slice, opts.concurrency, once);
        totals[name].ops += m.ops;
        totals[name].seconds += m.seconds;
      }
    }
    const gOps = totals.graphql.ops / totals.graphql.seconds;
    const fOps = totals.fql.ops / totals.fql.seconds;
    const ratio = gOps / fOps;
    console.log(`${opts.authors} authors x ${opts.books} books; ${opts.concurrency} in flight; ${opts.rounds} interleaved rounds, ${opts.seconds}s per scenario`);
    console.log(`GraphQL (50 authors with their books page):  ${gOps.toFixed(1)} req/s`);
    console.log(`FQL (Map/Paginate with nested Paginate):     ${fOps.toFixed(1)} req/s`);
    console.log(`ratio GraphQL / FQL: ${ratio.toFixed(3)} (target >= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'})`);
  } finally {
    agent.destroy();
    await srv.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
