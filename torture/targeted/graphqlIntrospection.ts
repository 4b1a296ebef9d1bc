// Issue 30, GraphQL row: one POST /graphql made to multiply its work by aliases. With a client key,
// 2,000 aliased `__schema` selections sharing a depth-2 fragment (71 KB of query) once took 6 s of
// synchronous introspection resolvers to answer 31.5 MB, holding /ping 5 s and RSS +276 MB. The
// same shapes are tried against ordinary data: 2,000 aliases inside one `__schema`, and 2,000 aliases
// of a plain field on every document of a page.
//
// Must hold: a second `__schema`/`__type` is refused before anything runs; everything else is
// charged per resolved field (so it ends at the compute limit), executed in slices (no /ping slower
// than PROMPT_PING_MS), answers stay within ANSWER_BOUND and the server's RSS within RSS_BOUND.

import * as http from 'node:http';
import { query as q } from 'faunadb';
import { mustImport } from '../../test/helpers/graphql';
import { ClientPool, startFlora } from '../../test/helpers/server';
import { RssSampler } from '../probes';
import { Verdict, type TargetedAttack, type TargetedOptions, type TargetedResult } from './attack';
import { slowPings, whilePinging } from './pingWatch';

const MiB = 1024 * 1024;

/**
 * Largest answer any of these requests may get. Charged one compute unit per resolved field, a
 * request resolves at most 600,000 fields (12,000 ops × 50 units) before the compute error; the
 * fields asked for here are names of at most ~30 bytes with their keys, so 16 MiB is more than any
 * request within the limit can answer (the was 31.5 MB).
 */
export const ANSWER_BOUND = 16 * MiB;

/**
 * Most the server's RSS may grow while the attack runs. The requests run one at a time, and one may
 * hold at most its memory share (--query-memory-mb, 192 MiB): every field is charged what it holds
 * (meter.ts). V8 keeps garbage (the previous request's, until the pool's idle collection) and its
 * young generation besides: 128 MiB more. Measured after the fix: +196 to +224 MiB at full size;
 * before it, +520 MiB (the issue measured +276 MB for its query alone).
 */
export const RSS_BOUND = 320 * MiB;

/** A library's schema: its served form (inputs, pages, mutations) makes each `__schema { types { ...F2 } }` ~13 KB. */
const SCHEMA = `
type Thing { name: String! }
type Author { name: String! bio: String born: Date email: String @unique books: [Book] @relation }
type Book { title: String! isbn: String pages: Int published: Date author: Author reviews: [Review] @relation tags: [String!] publisher: Publisher }
type Review { stars: Int! text: String at: Time book: Book reviewer: Reader }
type Reader { name: String! email: String! @unique reviews: [Review] @relation loans: [Loan] @relation }
type Shelf { label: String! books: [Book] }
type Publisher { name: String! city: String books: [Book] @relation }
type Loan { reader: Reader! book: Book! from: Date until: Date }
type Query { allThings: [Thing!] allBooks: [Book!] booksByTitle(title: String!): [Book!] allReaders: [Reader!] allShelves: [Shelf!] allLoans: [Loan!] }
`;

/** The secrets of a database seeded by seedLibrary. */
interface LibrarySecrets {
  admin: string;
  /** A client key. */
  client: string;
  /** A key of a role that reads Things and allThings. */
  reader: string;
}

/** Creates database `name` with the library's schema and `docs` Things, and its keys. */
export async function seedLibrary(url: string, rootSecret: string, pool: ClientPool, name: string, docs: number): Promise<LibrarySecrets> {
  await pool.client(rootSecret).query(q.CreateDatabase({ name }));
  const admin = `${rootSecret}:${name}:admin`;
  const db = pool.client(admin);
  await mustImport(url, admin, SCHEMA);
  const names = Array.from({ length: docs }, (_, i) => `thing number ${i}`);
  await db.query(q.Map(names, q.Lambda('n', q.Create(q.Collection('Thing'), { data: { name: q.Var('n') } }))));
  await db.query(
    q.CreateRole({
      name: 'reader',
      privileges: [
        { resource: q.Collection('Thing'), actions: { read: true } },
        { resource: q.Index('allThings'), actions: { read: true } },
      ],
    }),
  );
  const keys = (await db.query(q.Map(['client', q.Role('reader')], q.Lambda('r', q.CreateKey({ role: q.Var('r') }))))) as { secret: string }[];
  const [client, reader] = keys.map((k) => k.secret);
  return { admin, client, reader };
}

/** The fragment: a type's name and kind, its fields' names and their types' names. */
const F2 = 'fragment F2 on __Type { name kind fields { name type { name kind } } }';

/** The query: `n` aliased `__schema` selections sharing F2. */
export function aliasedSchemas(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`a${i}: __schema { types { ...F2 } }`);
  return `{ ${parts.join(' ')} } ${F2}`;
}

/** One `__schema`, with `n` aliased `types` inside it: allowed by the one-introspection rule. */
export function aliasedTypes(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`t${i}: types { ...F2 }`);
  return `{ __schema { ${parts.join(' ')} } } ${F2}`;
}

/** `n` aliases of a plain field on each of `size` documents. */
export function aliasedNames(n: number, size: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`n${i}: name`);
  return `{ allThings(_size: ${size}) { data { ${parts.join(' ')} } } }`;
}

interface Answer {
  status: number;
  bytes: number;
  /** The first 64 KiB of the body. */
  head: string;
  ms: number;
}

/** POST /graphql, counting the answer's bytes and keeping its head. */
function post(url: string, secret: string, query: string): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL('/graphql', url),
      { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' } },
      (res) => {
        let bytes = 0;
        const head: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          if (bytes < 65536) head.push(c);
          bytes += c.length;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, bytes, head: Buffer.concat(head).toString('utf8', 0, 65536), ms: performance.now() - started }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ query }));
  });
}

interface Shape {
  label: string;
  query: string;
  secret: string;
  /** What is wrong with the answer, if anything. */
  check: (a: Answer) => string | undefined;
}

function refused(a: Answer): string | undefined {
  if (a.status !== 200) return `status ${a.status}, not 200`;
  // The message quotes the query's line, which may be longer than the head kept: its start is enough.
  if (!/^\{"data":null,"errors":\[\{"message":"Only one '__schema' or '__type' field is allowed per operation/.test(a.head))
    return `answered ${a.bytes} bytes: ${a.head.slice(0, 160)}…`;
  return undefined;
}

const COMPUTE_ERROR = /^\{"data":null,"errors":\[\{"message":"Transaction does too much compute: got \d+, limit: \d+","extensions":\{"code":"bad request"\}\}\]\}$/;

/** Answered in full, or stopped at the compute limit (every field charged). */
function answeredOrCharged(a: Answer): string | undefined {
  if (a.status !== 200) return `status ${a.status}, not 200`;
  if (!a.head.startsWith('{"data":{') && !COMPUTE_ERROR.test(a.head)) return `answered ${a.bytes} bytes: ${a.head.slice(0, 160)}…`;
  return undefined;
}

async function attack(opts: TargetedOptions): Promise<TargetedResult> {
  const torture = opts.size === 'torture';
  const aliases = torture ? 2000 : 300;
  const inner = torture ? 2000 : 100;
  const docs = torture ? 1000 : 50;
  const srv = await startFlora();
  const pool = new ClientPool(srv.url);
  const verdict = new Verdict();
  try {
    const { client, reader } = await seedLibrary(srv.url, srv.secret, pool, 'gqlattack', docs);

    const shapes: Shape[] = [
      { label: `${aliases} aliased __schema`, query: aliasedSchemas(aliases), secret: client, check: refused },
      { label: `${inner} aliased types in one __schema`, query: aliasedTypes(inner), secret: client, check: answeredOrCharged },
      { label: `2000 aliases of a field on ${docs} documents`, query: aliasedNames(2000, docs), secret: reader, check: answeredOrCharged },
    ];

    // The first request loads the served API (and code never run before): not the attack's doing.
    await post(srv.url, client, '{ __typename }');

    const pid = srv.proc.pid!;
    const rss = new RssSampler(() => pid);
    const baseline = rss.sample();
    const figures: Record<string, string> = {};
    let slow = 0;
    rss.start(50);
    try {
      for (const s of shapes) {
        const { value: a, ping } = await whilePinging(srv.url, () => post(srv.url, s.secret, s.query), opts.size);
        figures[s.label] = `${a.status}, ${(a.bytes / MiB).toFixed(1)} MiB in ${a.ms.toFixed(0)} ms, ping max ${ping.maxMs.toFixed(0)} ms`;
        opts.log(`    ${s.label}: ${figures[s.label]}: ${a.head.slice(0, 120)}`);
        const wrong = s.check(a);
        verdict.fail(wrong !== undefined, `${s.label}: ${wrong}`);
        verdict.fail(a.bytes > ANSWER_BOUND, `${s.label}: answered ${a.bytes} bytes, over the bound of ${ANSWER_BOUND}`);
        verdict.fail(ping.slow, () => `${s.label}: ${slowPings(ping)}`);
        slow += ping.slow;
      }
    } finally {
      rss.stop(); // a request that failed must not leave the sampler sampling
    }
    rss.sample();
    figures['slow pings'] = String(slow);
    const growth = rss.peak - baseline;
    figures['RSS MiB'] = `${(baseline / MiB).toFixed(0)} → peak ${(rss.peak / MiB).toFixed(0)}`;
    verdict.fail(growth > RSS_BOUND, () => `RSS grew ${(growth / MiB).toFixed(0)} MiB, over the bound of ${RSS_BOUND / MiB} MiB`);
    return verdict.result(figures);
  } finally {
    await pool.close();
    await srv.stop();
  }
}

export const graphqlIntrospection: TargetedAttack = {
  name: 'graphql-introspection',
  part: 'hostile',
  about: 'aliased __schema selections, aliased types and aliased fields on a page: refused or charged per field, sliced, bounded',
  run: attack,
};
