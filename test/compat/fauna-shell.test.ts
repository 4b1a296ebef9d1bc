// fauna-shell 0.15.0 and 1.2.1, the real CLIs, against a real Flora process: eval, shell (piped and
// line by line), run-queries, create-database, create-key, upload-graphql-schema, and an endpoint saved
// in ~/.fauna-shell. Each test asserts the exit code and what the command did, read back with the driver.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { Client, query as q } from 'faunadb';
import { serverForFile } from '../helpers/server';
import { mustRun, runTool, startSession, tempProject, type Project } from './tools';

const server = serverForFile();
let project: Project;
before(async () => {
  project = await tempProject();
});
after(async () => {
  await project?.remove();
});

const SCHEMA = `type Book { title: String! }
type Query { allBooks: [Book!] }
`;

/** A driver client for a secret (closed after the file). */
const opened: Client[] = [];
function client(secret: string): Client {
  const c = new Client({ secret, endpoint: server.flora.url });
  opened.push(c);
  return c;
}
after(async () => {
  await Promise.all(opened.map((c) => c.close({ force: true })));
});

const root = (): Client => server.drivers.h2;

/** The `secret: …` line that create-key prints. */
function printedSecret(stdout: string): string {
  const m = /secret: (\S+)/.exec(stdout);
  assert.ok(m, `no secret printed:\n${stdout}`);
  return m[1];
}

describe('fauna-shell 0.15', () => {
  // The endpoint flags of every command.
  const endpoint = (): string[] => ['--domain', '127.0.0.1', '--port', String(server.flora.port), '--scheme', 'http', '--secret', 'secret'];

  test('eval prints the result as JSON', async () => {
    const res = await mustRun('shell0', ['eval', 'Add(1, 2)', ...endpoint()], project);
    assert.equal(res.stdout.trim(), '3', res.output);
    const obj = await mustRun('shell0', ['eval', 'Merge({a: 1}, {b: ToString(2)})', ...endpoint()], project);
    assert.deepEqual(JSON.parse(obj.stdout), { a: 1, b: '2' });
  });

  test('eval of a failing query prints Flora\'s error and exits 1', async () => {
    const res = await runTool('shell0', ['eval', 'Get(Collection("nope"))', ...endpoint()], project);
    assert.equal(res.code, 1, res.output);
    assert.match(res.stderr, /invalid ref/, res.output);
  });

  test('create-database, create-key, then eval in the database with the scoped secret', async () => {
    const created = await mustRun('shell0', ['create-database', 'shell0db', ...endpoint()], project);
    assert.match(created.stdout, /created database shell0db/, created.output);
    assert.equal(await root().query(q.Exists(q.Database('shell0db'))), true);

    const listed0 = await mustRun('shell0', ['list-databases', ...endpoint()], project);
    assert.match(listed0.stdout, /^shell0db$/m, listed0.output);

    const key = await mustRun('shell0', ['create-key', 'shell0db', 'server', ...endpoint()], project);
    const secret = printedSecret(key.stdout);
    const serverKey = client(secret);
    // A server key of that database: it can create collections there, not databases.
    await serverKey.query(q.CreateCollection({ name: 'fromkey' }));
    assert.equal(await root().query(q.Exists(q.Collection('fromkey', q.Database('shell0db')))), true);
    await assert.rejects(serverKey.query(q.CreateDatabase({ name: 'nope' })), /permission denied|Insufficient privileges/i);

    // eval DB QUERY uses the tool's scoped secret (secret:shell0db:admin).
    const listed = await mustRun('shell0', ['eval', 'shell0db', 'Paginate(Collections())', ...endpoint()], project);
    assert.match(listed.stdout, /"id":"fromkey"/, listed.output);
  });

  test('the errors it words by matching Flora\'s codes: missing database, missing key, existing database', async () => {
    const missingDb = await runTool('shell0', ['delete-database', 'nodb', ...endpoint()], project);
    assert.equal(missingDb.code, 1, missingDb.output);
    assert.match(missingDb.stderr, /Database 'nodb' not found/, missingDb.output); // matched on `invalid ref`
    const missingKey = await runTool('shell0', ['delete-key', '123', ...endpoint()], project);
    assert.equal(missingKey.code, 1, missingKey.output);
    assert.match(missingKey.stderr, /Key 123 not found/, missingKey.output); // matched on `instance not found`
    await root().query(q.CreateDatabase({ name: 'shell0dup' }));
    const dup = await runTool('shell0', ['create-database', 'shell0dup', ...endpoint()], project);
    assert.equal(dup.code, 1, dup.output);
    // 0.15 matches an older service's `instance not unique`; Fauna's core (and 1.x) say `instance
    // already exists`, which Flora answers, so 0.15 prints the code instead of its own sentence.
    assert.match(dup.stderr, /Error: instance already exists/, dup.output);
  });

  test('shell reads piped queries', async () => {
    // Every line of a pipe is sent at once (the REPL does not wait for an answer before the next), so
    // these do not depend on each other.
    const res = await mustRun('shell0', ['shell', ...endpoint()], project, { input: 'Add(2, 3)\nConcat(["fl", "ora"])\n' });
    assert.match(res.stdout, /> 5\b/, res.output);
    assert.match(res.stdout, /'flora'/, res.output);
  });

  test('shell in a database, one statement after another', async () => {
    await root().query(q.CreateDatabase({ name: 'shell0repl' }));
    const s = startSession('shell0', ['shell', 'shell0repl', ...endpoint()], project);
    await s.waitFor(/Type Ctrl\+D or \.exit to exit the shell/);
    s.send('CreateCollection({ name: "notes" })');
    await s.waitFor(/name: 'notes'/);
    s.send('Create(Collection("notes"), { data: { text: "hi" } })');
    await s.waitFor(/text: 'hi'/);
    s.send('Count(Documents(Collection("notes")))');
    await s.waitFor(/shell0repl> 1\b/);
    const res = await s.end();
    assert.equal(res.code, 0, res.output);
    assert.equal(await root().query(q.Count(q.Documents(q.Collection('notes', q.Database('shell0repl'))))), 1);
  });

  test('run-queries runs every query of the file (0.15.0 then fails to print the results: its bug)', async () => {
    await root().query(q.CreateDatabase({ name: 'shell0run' }));
    await project.write('run0.fql', 'CreateCollection({ name: "a" })\nCreateCollection({ name: "b" })\n');
    const res = await runTool('shell0', ['run-queries', 'shell0run', '--file', 'run0.fql', ...endpoint()], project);
    assert.deepEqual(
      await root().query(q.Map(['a', 'b'], q.Lambda('n', q.Exists(q.Collection(q.Var('n'), q.Database('shell0run')))))),
      [true, true],
    );
    // run-queries declares no --format flag, so eval's output step refuses an undefined format, and its
    // error handler then reads a Fauna error that is not there. Nothing Flora sends changes this.
    assert.equal(res.code, 1, res.output);
    assert.match(res.stderr, /reading 'requestResult'/, res.output);
    // `eval --file`, which run-queries' own warning points to, runs the same file and prints the results.
    await project.write('run0b.fql', 'CreateCollection({ name: "c" })\nAdd(1, 1)\n');
    const ok = await mustRun('shell0', ['eval', 'shell0run', '--file', 'run0b.fql', ...endpoint()], project);
    const results = JSON.parse(ok.stdout) as [{ name: string }, number];
    assert.equal(results[0].name, 'c');
    assert.equal(results[1], 2);
  });

  test('upload-graphql-schema with --graphqlHost and --graphqlPort', async () => {
    await root().query(q.CreateDatabase({ name: 'shell0gql' }));
    await project.write('schema0.gql', SCHEMA);
    const scoped = ['--domain', '127.0.0.1', '--port', String(server.flora.port), '--scheme', 'http', '--secret', 'secret:shell0gql:admin'];
    const gqlAt = ['--graphqlHost', '127.0.0.1', '--graphqlPort', String(server.flora.port)];
    const res = await mustRun('shell0', ['upload-graphql-schema', 'schema0.gql', ...scoped, ...gqlAt], project);
    assert.match(res.stdout, /Schema imported successfully\./, res.output);
    const books = await root().query<{ data: { gql?: unknown } }>(q.Get(q.Collection('Book', q.Database('shell0gql'))));
    assert.ok(books.data.gql, 'the collection carries GraphQL metadata');

    // --mode replace reaches /import?mode=replace.
    const replaced = await mustRun('shell0', ['upload-graphql-schema', 'schema0.gql', '--mode', 'replace', ...scoped, ...gqlAt], project);
    assert.match(replaced.stdout, /Schema imported successfully\./, replaced.output);

    // A schema Flora refuses: the tool prints the answer and still exits 0.
    await project.write('broken0.gql', 'type Book { title: NoSuchType }\n');
    const broken = await mustRun('shell0', ['upload-graphql-schema', 'broken0.gql', ...scoped, ...gqlAt], project);
    assert.doesNotMatch(broken.stdout, /Schema imported successfully/, broken.output);
    assert.match(broken.stdout, /NoSuchType/, broken.output);
  });

  test('upload-graphql-schema needs the GraphQL host and port: without them it has no URL to call', async () => {
    await project.write('schema0.gql', SCHEMA);
    const res = await runTool('shell0', ['upload-graphql-schema', 'schema0.gql', ...endpoint()], project);
    // It builds `http://undefined:undefined/import`: the request never leaves the tool.
    assert.equal(res.code, 1, res.output);
    assert.match(res.stderr, /Invalid URL/, res.output);
  });

  test('an endpoint saved with add-endpoint (in ~/.fauna-shell) serves every command without flags', async () => {
    const home = await tempProject();
    try {
      const url = `http://127.0.0.1:${server.flora.port}/`;
      const added = await mustRun('shell0', ['add-endpoint', url, '--alias', 'flora', '--key', 'secret'], home);
      assert.match(added.stdout, /Endpoint 'flora' saved\./, added.output);
      const res = await mustRun('shell0', ['eval', 'Add(20, 22)'], home);
      assert.equal(res.stdout.trim(), '42', res.output);

      // The saved endpoint has no GraphQL host: the tool's default is graphql.fauna.com:443, so
      // graphqlHost/graphqlPort go into the file (or on the command line).
      const rc = path.join(home.dir, '.fauna-shell');
      const text = await readFile(rc, 'utf8');
      await home.write('.fauna-shell', text.replace('[flora]\n', `[flora]\ngraphqlHost=127.0.0.1\ngraphqlPort=${server.flora.port}\n`));
      await root().query(q.CreateDatabase({ name: 'shell0rc' }));
      await home.write('schema.gql', SCHEMA);
      const up = await mustRun('shell0', ['upload-graphql-schema', 'schema.gql', '--secret', 'secret:shell0rc:admin'], home);
      assert.match(up.stdout, /Schema imported successfully\./, up.output);
      assert.equal(await root().query(q.Exists(q.Collection('Book', q.Database('shell0rc')))), true);
    } finally {
      await home.remove();
    }
  });
});

describe('fauna-shell 1.2.1', () => {
  const endpoint = (): string[] => ['--url', `http://127.0.0.1:${server.flora.port}`, '--secret', 'secret'];

  test('eval --version 4 prints the result', async () => {
    const res = await mustRun('shell1', ['eval', 'Add(1, 2)', '--version', '4', ...endpoint()], project);
    assert.equal(res.stdout.trim(), '3', res.output);
  });

  test('the deprecated --domain/--port/--scheme flags still work', async () => {
    const flags = ['--domain', '127.0.0.1', '--port', String(server.flora.port), '--scheme', 'http', '--secret', 'secret'];
    const res = await mustRun('shell1', ['eval', 'Multiply(6, 7)', '--version', '4', ...flags], project);
    assert.equal(res.stdout.trim(), '42', res.output);
  });

  test('eval without --version 4 speaks FQL v10, which Flora serves on /query/1', async () => {
    const res = await mustRun('shell1', ['eval', '1 + 2', ...endpoint()], project);
    assert.equal(res.stdout.trim(), '3', res.output);
  });

  test('create-database, create-key, eval in the database', async () => {
    const created = await mustRun('shell1', ['create-database', 'shell1db', ...endpoint()], project);
    assert.match(created.stdout, /created database shell1db/, created.output);
    assert.equal(await root().query(q.Exists(q.Database('shell1db'))), true);

    const key = await mustRun('shell1', ['create-key', 'shell1db', 'server', ...endpoint()], project);
    const serverKey = client(printedSecret(key.stdout));
    await serverKey.query(q.CreateCollection({ name: 'fromkey1' }));
    const listed = await mustRun('shell1', ['eval', 'shell1db', 'Paginate(Collections())', '--version', '4', ...endpoint()], project);
    assert.match(listed.stdout, /"id":"fromkey1"/, listed.output);
  });

  test('the errors it words by matching Flora\'s codes: missing database, missing key, existing database', async () => {
    const missingDb = await runTool('shell1', ['delete-database', 'nodb', ...endpoint()], project);
    assert.equal(missingDb.code, 1, missingDb.output);
    assert.match(missingDb.stderr, /Database 'nodb' not found/, missingDb.output); // matched on `invalid ref`
    const missingKey = await runTool('shell1', ['delete-key', '123', ...endpoint()], project);
    assert.equal(missingKey.code, 1, missingKey.output);
    assert.match(missingKey.stderr, /Key 123 not found/, missingKey.output); // matched on `instance not found`
    await root().query(q.CreateDatabase({ name: 'shell1dup' }));
    const dup = await runTool('shell1', ['create-database', 'shell1dup', ...endpoint()], project);
    assert.equal(dup.code, 1, dup.output);
    assert.match(dup.stderr, /Database 'shell1dup' already exists\./, dup.output); // matched on `instance already exists`
  });

  test('shell --version 4, one statement after another (root database and a child)', async () => {
    // With no database argument, the CLI framework takes whatever arrives on stdin in its first 100 ms
    // as that argument, so lines are sent once the shell is ready, as typed.
    const s = startSession('shell1', ['shell', '--version', '4', ...endpoint()], project);
    await s.waitFor(/Type Ctrl\+D or \.exit to exit the shell/);
    s.send('CreateDatabase({ name: "shell1repl" })');
    await s.waitFor(/name: 'shell1repl'/);
    const res = await s.end();
    assert.equal(res.code, 0, res.output);

    // In a database: the shell exits at end of input without waiting for answers in flight, so each
    // statement waits for its answer before the next is sent.
    const c = startSession('shell1', ['shell', 'shell1repl', '--version', '4', ...endpoint()], project);
    await c.waitFor(/Type Ctrl\+D or \.exit to exit the shell/);
    c.send('CreateCollection({ name: "notes" })');
    await c.waitFor(/name: 'notes'/);
    c.send('Create(Collection("notes"), { data: { text: "hi" } })');
    await c.waitFor(/text: 'hi'/);
    c.send('Count(Documents(Collection("notes")))');
    await c.waitFor(/shell1repl> 1\n/);
    const res2 = await c.end();
    assert.equal(res2.code, 0, res2.output);
    assert.equal(await root().query(q.Count(q.Documents(q.Collection('notes', q.Database('shell1repl'))))), 1);
  });

  test('run-queries --version 4 runs every query of the file', async () => {
    await root().query(q.CreateDatabase({ name: 'shell1run' }));
    await project.write('run1.fql', 'CreateCollection({ name: "a" })\nAdd(1, 1)\n');
    const res = await mustRun('shell1', ['run-queries', 'shell1run', '--file', 'run1.fql', '--version', '4', ...endpoint()], project);
    const results = JSON.parse(res.stdout) as [{ name: string }, number];
    assert.equal(results[0].name, 'a');
    assert.equal(results[1], 2);
    assert.equal(await root().query(q.Exists(q.Collection('a', q.Database('shell1run')))), true);
    // eval --file, the command run-queries' deprecation warning points to, does the same.
    await project.write('run1b.fql', 'CreateCollection({ name: "b" })\nAdd(2, 2)\n');
    const viaEval = await mustRun('shell1', ['eval', 'shell1run', '--file', 'run1b.fql', '--version', '4', ...endpoint()], project);
    assert.equal((JSON.parse(viaEval.stdout) as [unknown, number])[1], 4, viaEval.output);
  });

  test('upload-graphql-schema cannot reach any server (1.2.1 builds its URL without a scheme)', async () => {
    await root().query(q.CreateDatabase({ name: 'shell1gql' }));
    await project.write('schema1.gql', SCHEMA);
    const gqlAt = ['--graphqlHost', '127.0.0.1', '--graphqlPort', String(server.flora.port)];
    const res = await runTool('shell1', ['upload-graphql-schema', 'schema1.gql', ...endpoint(), ...gqlAt], project);
    // `${scheme}://…` with a scheme its endpoint object never has: node-fetch refuses before sending.
    assert.equal(res.code, 1, res.output);
    assert.match(res.stderr, /Only HTTP\(S\) protocols are supported/, res.output);
    assert.equal(await root().query(q.Exists(q.Collection('Book', q.Database('shell1gql')))), false);
  });

  test('an endpoint saved with `endpoint add` serves commands without flags', async () => {
    const home = await tempProject();
    try {
      const url = `http://127.0.0.1:${server.flora.port}`;
      const added = await mustRun('shell1', ['endpoint', 'add', 'flora', '--url', url, '--secret', 'secret', '--non-interactive', '--set-default'], home);
      assert.match(added.stdout, /Saved endpoint flora/, added.output);
      // It checks the secret with an FQL v10 query, which Flora answers.
      assert.doesNotMatch(added.stdout, /invalid secret/, added.output);
      const res = await mustRun('shell1', ['eval', 'Add(20, 22)', '--version', '4'], home);
      assert.equal(res.stdout.trim(), '42', res.output);
      const db = await mustRun('shell1', ['create-database', 'shell1rc'], home);
      assert.match(db.stdout, /created database shell1rc/, db.output);
    } finally {
      await home.remove();
    }
  });
});
