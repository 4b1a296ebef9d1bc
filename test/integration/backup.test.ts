// `flora backup` / `flora restore` and the backup API (issue 18, part 3): a backup taken while a
// writer commits continuously blocks none of its commits and holds exactly the commits at or below
// its transaction time; restored into a new LMDB directory and into PostgreSQL, a server answers
// every query as the original did at that time (documents, versions, indexes, keys, credentials,
// functions, roles, nested databases); bad files, wrong targets and wrong secrets are refused with
// a clear message and exit code; an interrupted restore is never served.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Client, query as q, type Expr } from 'faunadb';
import { FLORA_BIN, httpRequest, ROOT, startFlora, waitFor, type FloraProcess } from '../helpers/server';
import { startPostgres, type Postgres } from '../helpers/postgres';
import { openLmdbEngine } from '../../src/storage/lmdbEngine';
import { FORMAT_VERSION, storedFormat } from '../../src/storage/format';
import { backupHeader, writeBackup } from '../../src/backup/writeBackup';

/** Runs the flora command; resolves with its exit code and what it wrote to stderr. */
function cli(args: string[]): Promise<{ code: number; err: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [FLORA_BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (c: string) => (err += c));
    proc.on('exit', (code) => resolve({ code: code ?? 1, err }));
  });
}

const client = (flora: FloraProcess, secret: string) => new Client({ secret, endpoint: flora.url });
const json = (v: unknown) => JSON.parse(JSON.stringify(v));

interface Commit {
  n: number;
  ts: bigint;
  doneMs: number;
}

describe('backup and restore', () => {
  let src: FloraProcess;
  let pg: Postgres;
  let work: string;
  let root: Client;
  let app: Client;
  let tenant: Client;
  let appAdminKey: string;
  let serverKey: string;
  let firstItem: Expr;
  let pastTs: number;
  /** The backup taken under the writer, and its transaction time. */
  let file: string;
  let backupTs: bigint;
  let commits: Commit[] = [];

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'flora-backup-'));
    // Both settle before a failure is thrown: a server started beside a failed cluster is stopped by after().
    const [flora, cluster] = await Promise.allSettled([startFlora(), startPostgres()]);
    if (flora.status === 'fulfilled') src = flora.value;
    if (cluster.status === 'fulfilled') pg = cluster.value;
    for (const r of [flora, cluster]) if (r.status === 'rejected') throw r.reason;
    root = client(src, src.secret);
    await root.query(q.CreateDatabase({ name: 'app' }));
    app = client(src, `${src.secret}:app:admin`);
    await app.query(q.CreateDatabase({ name: 'tenant' }));
    tenant = client(src, `${src.secret}:app/tenant:admin`);
    appAdminKey = ((await root.query(q.CreateKey({ database: q.Database('app'), role: 'admin' }))) as { secret: string }).secret;
    serverKey = ((await app.query(q.CreateKey({ role: 'server' }))) as { secret: string }).secret;
    await app.query(q.Do(...['users', 'items', 'counters', 'ticks', 'bulk'].map((name) => q.CreateCollection({ name }))));
    await app.query(
      q.Do(
        q.CreateIndex({ name: 'users_by_email', source: q.Collection('users'), terms: [{ field: ['data', 'email'] }], unique: true }),
        q.CreateIndex({ name: 'items_by_tag', source: q.Collection('items'), terms: [{ field: ['data', 'tag'] }], values: [{ field: ['data', 'price'] }, { field: ['ref'] }] }),
        q.CreateIndex({
          name: 'items_by_title_length',
          source: { collection: q.Collection('items'), fields: { len: q.Query(q.Lambda('d', q.Length(q.Select(['data', 'title'], q.Var('d'))))) } },
          values: [{ binding: 'len' }, { field: ['ref'] }],
        }),
        q.CreateIndex({ name: 'ticks_by_n', source: q.Collection('ticks'), values: [{ field: ['data', 'n'] }] }),
        q.CreateFunction({ name: 'double', body: q.Query(q.Lambda('x', q.Multiply(q.Var('x'), 2))) }),
        q.CreateRole({ name: 'reader', privileges: [{ resource: q.Collection('items'), actions: { read: true } }] }),
        q.Create(q.Ref(q.Collection('counters'), '1'), { data: { n: 0 } }),
      ),
    );
    await app.query(
      q.Do(...['a', 'b', 'c'].map((u, i) => q.Create(q.Collection('users'), { credentials: { password: `pw-${u}` }, data: { email: `${u}@example.com`, i } }))),
    );
    const items = (await app.query(
      q.Map(
        Array.from({ length: 30 }, (_, i) => i),
        q.Lambda('i', q.Select('ref', q.Create(q.Collection('items'), { data: { tag: q.If(q.LT(q.Var('i'), 15), 'red', 'blue'), price: q.Var('i'), title: 'x' } }))),
      ),
    )) as Expr[];
    firstItem = items[0];
    pastTs = (await app.query(q.Select('ts', q.Get(firstItem)))) as number;
    // History: every item updated twice, one deleted.
    for (const round of [1, 2]) await app.query(q.Foreach(items, q.Lambda('r', q.Update(q.Var('r'), { data: { price: round * 100, title: 'x'.repeat(round + 1) } }))));
    await app.query(q.Delete(items[29]));
    await tenant.query(q.Do(q.CreateCollection({ name: 'notes' }), q.Create(q.Collection('notes'), { data: { text: 'inside' } })));
    // Bulk: enough data that the backup takes a while to stream (random text compresses little).
    const blob = (i: number) => Buffer.from(Array.from({ length: 1500 }, (_, j) => (i * 31 + j * 7) % 251)).toString('base64');
    for (let b = 0; b < 10; b++)
      await app.query(q.Foreach(Array.from({ length: 200 }, (_, i) => blob(b * 200 + i)), q.Lambda('t', q.Create(q.Collection('bulk'), { data: { t: q.Var('t') } }))));
  });

  after(async () => {
    for (const c of [root, app, tenant]) await c?.close({ force: true });
    await src?.stop();
    await pg?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('a backup taken while a writer commits blocks none of its commits and holds exactly those at or below its ts', async () => {
    let writing = true;
    const writer = (async () => {
      while (writing) {
        const [n, ts] = (await app.query(
          q.Let(
            { c: q.Get(q.Ref(q.Collection('counters'), '1')) },
            q.Let(
              { n: q.Add(q.Select(['data', 'n'], q.Var('c')), 1) },
              q.Let(
                { u: q.Update(q.Select('ref', q.Var('c')), { data: { n: q.Var('n') } }) },
                q.Do(q.Create(q.Collection('ticks'), { data: { n: q.Var('n') } }), [q.Var('n'), q.Select('ts', q.Var('u'))]),
              ),
            ),
          ),
        )) as [number, number];
        commits.push({ n, ts: BigInt(ts), doneMs: Date.now() });
      }
    })();
    await waitFor('the writer to commit', () => commits.length >= 5);
    file = path.join(work, 'live.flora-backup');
    // Read slowly, so the stream lasts while the writer goes on.
    const started = Date.now();
    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${src.url}/api/v1/backup`, { headers: { authorization: `Bearer ${src.secret}` } }, resolve).on('error', reject),
    );
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/gzip');
    backupTs = BigInt(res.headers['x-flora-backup-ts'] as string);
    const out = createWriteStream(file);
    for await (const chunk of res) {
      out.write(chunk);
      await sleep(40);
    }
    await new Promise((r) => out.end(r));
    const ended = Date.now();
    await waitFor('commits after the backup', () => commits.some((c) => c.doneMs > ended));
    writing = false;
    await writer;
    const during = commits.filter((c) => c.doneMs > started && c.doneMs < ended).length;
    assert.ok(during >= 3, `only ${during} commits completed while the backup streamed for ${ended - started} ms`);
    assert.ok(commits.some((c) => c.ts <= backupTs) && commits.some((c) => c.ts > backupTs));
    const check = await cli(['restore', '--verify', file]);
    assert.equal(check.code, 0, check.err);
    assert.match(check.err, /the file is whole: \d+ records/);
  });

  /** What a server on the restored store answers, next to what the original answers at the backup's ts. */
  async function sameAnswers(restored: FloraProcess): Promise<void> {
    const scopes: [string, string][] = [
      ['root', ''],
      ['app', ':app:admin'],
      ['tenant', ':app/tenant:admin'],
    ];
    const queries: [string, Expr][] = [
      ['databases', q.Map(q.Paginate(q.Databases()), q.Lambda('r', q.Get(q.Var('r'))))],
      ['keys', q.Map(q.Paginate(q.Keys()), q.Lambda('r', q.Get(q.Var('r'))))],
      ['collections', q.Map(q.Paginate(q.Collections()), q.Lambda('r', q.Get(q.Var('r'))))],
      ['indexes', q.Map(q.Paginate(q.Indexes()), q.Lambda('r', q.Get(q.Var('r'))))],
      ['functions', q.Map(q.Paginate(q.Functions()), q.Lambda('r', q.Get(q.Var('r'))))],
      ['roles', q.Map(q.Paginate(q.Roles()), q.Lambda('r', q.Get(q.Var('r'))))],
      [
        'every document',
        q.Map(q.Paginate(q.Collections(), { size: 100 }), q.Lambda('c', q.Map(q.Paginate(q.Documents(q.Var('c')), { size: 5000 }), q.Lambda('d', q.Get(q.Var('d')))))),
      ],
      ['every index', q.Map(q.Paginate(q.Indexes(), { size: 100 }), q.Lambda('i', q.Count(q.Match(q.Var('i')))))],
    ];
    const appOnly: [string, Expr][] = [
      ['red items', q.Paginate(q.Match(q.Index('items_by_tag'), 'red'))],
      ['by binding', q.Paginate(q.Match(q.Index('items_by_title_length')), { size: 100 })],
      ['a user', q.Get(q.Match(q.Index('users_by_email'), 'b@example.com'))],
      ['a past version', q.Get(firstItem, pastTs)],
      ['history', q.Paginate(q.Events(firstItem))],
      ['index history', q.Paginate(q.Match(q.Index('items_by_tag'), 'blue'), { events: true, size: 100 })],
      ['ticks', q.Paginate(q.Match(q.Index('ticks_by_n')), { size: 100000 })],
      ['counter', q.Get(q.Ref(q.Collection('counters'), '1'))],
      ['a function', q.Call(q.Function('double'), 21)],
    ];
    for (const [scope, suffix] of scopes) {
      const before = client(src, `${src.secret}${suffix}`);
      const now = client(restored, `${restored.secret}${suffix}`);
      try {
        for (const [what, expr] of [...queries, ...(scope === 'app' ? appOnly : [])]) {
          const want = json(await before.query(q.At(q.Epoch(Number(backupTs), 'microseconds'), expr)));
          assert.deepEqual(json(await now.query(expr)), want, `${scope}: ${what}`);
        }
      } finally {
        await Promise.all([before.close({ force: true }), now.close({ force: true })]);
      }
    }
    const a = client(restored, `${restored.secret}:app:admin`);
    try {
      // Consistency: the counter and the index of its versions agree, and hold exactly the commits at
      // or below the backup's ts.
      const n = (await a.query(q.Select(['data', 'n'], q.Get(q.Ref(q.Collection('counters'), '1'))))) as number;
      const ticks = ((await a.query(q.Paginate(q.Match(q.Index('ticks_by_n')), { size: 100000 }))) as { data: number[] }).data;
      assert.deepEqual(ticks, Array.from({ length: n }, (_, i) => i + 1));
      assert.equal(n, Math.max(...commits.filter((c) => c.ts <= backupTs).map((c) => c.n)));
      assert.ok(commits.filter((c) => c.ts > backupTs).every((c) => c.n > n));
      // Secrets: keys made before the backup authenticate; a user logs in with its password.
      for (const secret of [appAdminKey, serverKey]) {
        const k = client(restored, secret);
        assert.equal(((await k.query(q.Count(q.Documents(q.Collection('items'))))) as number), 29);
        await k.close({ force: true });
      }
      const token = (await a.query(q.Login(q.Match(q.Index('users_by_email'), 'a@example.com'), { password: 'pw-a' }))) as { secret: string };
      const user = client(restored, token.secret);
      assert.equal(((await user.query(q.Select(['data', 'email'], q.Get(q.CurrentIdentity())))) as string), 'a@example.com');
      await user.close({ force: true });
      await assert.rejects(a.query(q.Login(q.Match(q.Index('users_by_email'), 'a@example.com'), { password: 'wrong' })));
      // The restored store takes writes after the original's last ts.
      const ts = (await a.query(q.Select('ts', q.Create(q.Collection('items'), { data: { tag: 'new' } })))) as number;
      assert.ok(BigInt(ts) > backupTs);
    } finally {
      await a.close({ force: true });
    }
  }

  test('restored into a new LMDB data directory, a server answers as the original did at the backup time', async () => {
    const dir = path.join(work, 'lmdb');
    const r = await cli(['restore', file, '--data-dir', dir, '--verify']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /verified: the restored store holds the backup's \d+ records/);
    const restored = await startFlora({ dataDir: dir, args: ['--storage', 'lmdb'] });
    try {
      await sameAnswers(restored);
    } finally {
      await restored.stop();
    }
    // Not into a store that has data.
    const again = await cli(['restore', file, '--data-dir', dir]);
    assert.equal(again.code, 3, again.err);
    assert.match(again.err, /the target is not empty/);
  });

  test('restored into PostgreSQL, the same', async () => {
    const url = await pg.newDatabase('restored');
    const r = await cli(['restore', file, '--storage', url, '--verify']);
    assert.equal(r.code, 0, r.err);
    const restored = await startFlora({ args: ['--storage', url] });
    try {
      await sameAnswers(restored);
    } finally {
      await restored.stop();
    }
  });

  test('flora backup downloads and checks a backup; a bad secret exits 1', async () => {
    const out = path.join(work, 'cli.flora-backup');
    const r = await cli(['backup', '--url', src.url, '--secret', src.secret, '--out', out]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /records, .*checked \(SHA-256/);
    assert.match(r.err, new RegExp(`backup at ts \\d+ \\(storage format ${FORMAT_VERSION}\\) written to`));
    assert.equal((await cli(['restore', '--verify', out])).code, 0);
    const bad = await cli(['backup', '--url', src.url, '--secret', 'nope', '--out', path.join(work, 'bad.flora-backup')]);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /backup refused \(HTTP 401\): Unauthorized/);
    assert.equal((await cli(['backup', '--url', src.url, '--secret', 'x'])).code, 2);
  });

  test('a corrupt, truncated, foreign or newer file is refused with a clear message', async () => {
    const good = await readFile(file);
    const variants: [string, Buffer, RegExp][] = [];
    const flipped = Buffer.from(good);
    flipped[Math.floor(good.length / 2)] ^= 0x55;
    variants.push(['flipped byte', flipped, /corrupt|checksum/]);
    const raw = gunzipSync(good);
    const deep = Buffer.from(raw);
    deep[raw.length - 200] ^= 0x01; // inside the last records' bytes: only the SHA-256 sees it
    variants.push(['flipped byte inside a record', gzipSync(deep), /checksum mismatch: the SHA-256 of the \d+ records/]);
    variants.push(['truncated', good.subarray(0, Math.floor(good.length * 0.6)), /truncated/]);
    variants.push(['not gzip', Buffer.from('hello\n'), /not a Flora backup \(the file is not gzip data\)/]);
    variants.push(['wrong magic', gzipSync(Buffer.from('{"magic":"something-else","version":1}\n')), /not a Flora backup \(its header does not start with the magic/]);
    const nl = raw.indexOf(0x0a);
    const header = JSON.parse(raw.subarray(0, nl).toString('utf8'));
    const newer = Buffer.concat([Buffer.from(JSON.stringify({ ...header, storage_format: FORMAT_VERSION + 1 })), raw.subarray(nl)]);
    variants.push(['newer storage format', gzipSync(newer), new RegExp(`storage format ${FORMAT_VERSION + 1}, newer than this release knows`)]);
    for (const [what, bytes, message] of variants) {
      const f = path.join(work, 'bad.flora-backup');
      await writeFile(f, bytes);
      const r = await cli(['restore', '--verify', f]);
      assert.equal(r.code, 1, `${what}: ${r.err}`);
      assert.match(r.err, message, what);
      if (what.startsWith('flipped byte')) assert.match(r.err, /byte|record/, `${what} says where`);
    }
    // Refused before the target is touched: the same directory then takes the good file.
    const dir = path.join(work, 'untouched');
    await writeFile(path.join(work, 'newer.flora-backup'), gzipSync(newer));
    assert.equal((await cli(['restore', path.join(work, 'newer.flora-backup'), '--data-dir', dir])).code, 1);
    const ok = await cli(['restore', file, '--data-dir', dir]);
    assert.equal(ok.code, 0, ok.err);
    const missing = await cli(['restore', path.join(work, 'nothing-here'), '--data-dir', dir]);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /cannot read .*no such file/);
    assert.equal((await cli(['restore', file])).code, 2); // no target and no --verify
  });

  test('an interrupted restore is never served; --force starts it over', async () => {
    const good = await readFile(file);
    const cut = path.join(work, 'cut.flora-backup');
    await writeFile(cut, good.subarray(0, Math.floor(good.length * 0.7)));
    const dir = path.join(work, 'interrupted');
    const r = await cli(['restore', cut, '--data-dir', dir]);
    assert.equal(r.code, 1);
    assert.match(r.err, /truncated/);
    await assert.rejects(startFlora({ dataDir: dir, args: ['--storage', 'lmdb'] }), /exited with 1[\s\S]*unfinished restore/);
    const plain = await cli(['restore', file, '--data-dir', dir]);
    assert.equal(plain.code, 3);
    assert.match(plain.err, /unfinished restore: run flora restore again with --force/);
    const forced = await cli(['restore', file, '--data-dir', dir, '--force', '--verify']);
    assert.equal(forced.code, 0, forced.err);
    const restored = await startFlora({ dataDir: dir, args: ['--storage', 'lmdb'] });
    try {
      const c = client(restored, `${restored.secret}:app:admin`);
      assert.equal(await c.query(q.Count(q.Documents(q.Collection('bulk')))), 2000);
      await c.close({ force: true });
    } finally {
      await restored.stop();
    }
  });

  test('only the root secret or an admin key of the top database may back up', async () => {
    const get = (secret?: string) =>
      httpRequest(src.url, { method: 'GET', path: '/api/v1/backup', headers: secret === undefined ? {} : { authorization: `Bearer ${secret}` } });
    for (const [secret, status] of [
      [undefined, 401],
      ['nope', 401],
      [serverKey, 403],
      [appAdminKey, 403],
      [`${src.secret}:app:admin`, 403],
    ] as const) {
      const res = await get(secret);
      assert.equal(res.status, status, `${secret}: ${res.body}`);
      assert.match(res.headers['content-type'], /application\/json/);
      assert.equal(typeof JSON.parse(res.body).message, 'string');
    }
    assert.equal((await httpRequest(src.url, { method: 'POST', path: '/api/v1/backups', headers: { authorization: `Bearer ${serverKey}` } })).status, 403);
    const wrong = await httpRequest(src.url, { method: 'POST', path: '/api/v1/backup', headers: { authorization: `Bearer ${src.secret}` } });
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.allow, 'GET');
  });

  test('a backup job: requested, polled, downloaded', async () => {
    const auth = { authorization: `Bearer ${src.secret}` };
    const made = await httpRequest(src.url, { method: 'POST', path: '/api/v1/backups', headers: auth });
    assert.equal(made.status, 202, made.body);
    const { id, state } = JSON.parse(made.body);
    assert.equal(state, 'Running');
    let job: { state: string; records: number; bytes: number; download?: string; issued_ts: string } | undefined;
    await waitFor('the job to complete', async () => {
      const res = await httpRequest(src.url, { path: `/api/v1/backups/${id}`, headers: auth });
      assert.equal(res.status, 200, res.body);
      job = JSON.parse(res.body);
      assert.notEqual(job!.state, 'Failed');
      return job!.state === 'Complete';
    });
    assert.ok(job!.records > 2000 && job!.bytes > 0);
    const res = await fetch(`${src.url}${job!.download}`, { headers: auth });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-flora-backup-ts'), job!.issued_ts);
    const f = path.join(work, 'job.flora-backup');
    await writeFile(f, Buffer.from(await res.arrayBuffer()));
    const check = await cli(['restore', '--verify', f]);
    assert.equal(check.code, 0, check.err);
    assert.match(check.err, new RegExp(`the file is whole: ${job!.records} records`));
    const unknown = await httpRequest(src.url, { path: '/api/v1/backups/00000000-0000-4000-8000-000000000000', headers: auth });
    assert.equal(unknown.status, 404);
    // Listed as polled (the order is unit/jobFiles's); another key may not list them.
    const list = await httpRequest(src.url, { path: '/api/v1/backups', headers: auth });
    assert.equal(list.status, 200, list.body);
    const jobs = JSON.parse(list.body).jobs as { id: string; state: string; download?: string }[];
    assert.equal(jobs[0].id, id);
    assert.equal(jobs[0].download, job!.download);
    assert.equal((await httpRequest(src.url, { path: '/api/v1/backups', headers: { authorization: `Bearer ${appAdminKey}` } })).status, 403);
    const wrong = await httpRequest(src.url, { method: 'DELETE', path: '/api/v1/backups', headers: auth });
    assert.deepEqual([wrong.status, wrong.headers.allow], [405, 'GET, POST']);
  });
});

describe('an older storage format', () => {
  test('is restored as it was, and upgraded by flora start', async () => {
    const work = await mkdtemp(path.join(tmpdir(), 'flora-backup-old-'));
    try {
      const old = path.join(work, 'old');
      await import('node:fs/promises').then((fs) => fs.mkdir(old));
      execFileSync('tar', ['-xzf', path.join(ROOT, 'test', 'fixtures', 'format1', 'data.tgz'), '-C', old]);
      const file = path.join(work, 'old.flora-backup');
      const engine = await openLmdbEngine(old);
      try {
        const snapshot = await engine.snapshot();
        try {
          const header = await backupHeader(snapshot, 'lmdb');
          assert.equal(header.storage_format, 1);
          await writeBackup(snapshot, header, createWriteStream(file));
        } finally {
          await snapshot.close();
        }
      } finally {
        await engine.close();
      }
      const dir = path.join(work, 'restored');
      const r = await cli(['restore', file, '--data-dir', dir, '--verify']);
      assert.equal(r.code, 0, r.err);
      assert.match(r.err, new RegExp(`storage format 1: 'flora start' upgrades it to ${FORMAT_VERSION}`));
      const flora = await startFlora({ dataDir: dir, args: ['--storage', 'lmdb'] });
      try {
        const c = client(flora, flora.secret);
        assert.ok(((await c.query(q.Paginate(q.Databases()))) as { data: unknown[] }).data.length > 0);
        await c.close({ force: true });
      } finally {
        await flora.stop();
      }
      const upgraded = await openLmdbEngine(dir);
      assert.equal(await storedFormat(upgraded), FORMAT_VERSION);
      await upgraded.close();
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});
