// @fauna-labs/fauna-schema-migrate 2.2.1, the real CLI, against a real Flora process: init, generate,
// apply (a collection, its index, a function and a role using both, in one transaction), a second
// migration, child databases (the resources' dbs/ folder and --child-db), and rollback to nothing.
// The tool prints a failed apply or rollback and still exits 0, so every step is checked in Flora.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import { query as q, type Client } from 'faunadb';
import { serverForFile } from '../helpers/server';
import { esbuildEnv, mustRun, tempProject, type Project, type RunResult } from './tools';

const server = serverForFile();
const root = (): Client => server.drivers.h2;

/** Exactly the variables the tool reads to reach a server other than Fauna's cloud. */
function toolEnv(extra: Record<string, string> = {}): Record<string, string> {
  const esbuild = esbuildEnv();
  return {
    FAUNA_ADMIN_KEY: 'secret',
    FAUNADB_DOMAIN: '127.0.0.1',
    FAUNADB_SCHEME: 'http',
    FAUNADB_PORT: String(server.flora.port),
    FAUNA_LEGACY: '1', // plain output
    ...('env' in esbuild ? esbuild.env : {}),
    ...extra,
  };
}

/** Runs a task; it must exit 0 and print no error (the tool reports failures only in its output). */
async function migrate(project: Project, args: string[], extraEnv: Record<string, string> = {}): Promise<RunResult> {
  const res = await mustRun('schemaMigrate', args, project, { env: toolEnv(extraEnv) });
  assert.doesNotMatch(res.output, /Error|BadRequest|NotFound|PermissionDenied|invalid|Stacktrace/i, res.output);
  return res;
}

const has = (expr: object): Promise<boolean> => root().query<boolean>(q.Exists(expr));

describe('fauna-schema-migrate 2.2.1', () => {
  let project: Project;
  before(async () => {
    project = await tempProject();
  });
  after(async () => {
    await project?.remove();
  });

  // The function is a JavaScript resource when esbuild can bundle it here (the tool's other resource
  // format), otherwise FQL.
  const jsResources = 'env' in esbuildEnv();

  test('init writes the config file and the folders', async () => {
    await migrate(project, ['init']);
    assert.ok(existsSync(path.join(project.dir, '.fauna-migrate.js')));
    assert.ok(existsSync(path.join(project.dir, 'fauna', 'resources')));
    assert.ok(existsSync(path.join(project.dir, 'fauna', 'migrations')));
  });

  test('generate, then apply: collection, index, function and role in one transaction; a child database', async () => {
    await project.write('fauna/resources/users.fql', 'CreateCollection({ name: "users" })\n');
    await project.write(
      'fauna/resources/users_by_email.fql',
      'CreateIndex({ name: "users_by_email", source: Collection("users"), terms: [{ field: ["data", "email"] }], unique: true })\n',
    );
    if (jsResources) {
      await project.write(
        'fauna/resources/functions/user_by_email.js',
        `import { query as q } from 'faunadb';
export default q.CreateFunction({
  name: 'user_by_email',
  body: q.Query(q.Lambda(['email'], q.Get(q.Match(q.Index('users_by_email'), q.Var('email'))))),
});
`,
      );
    } else {
      await project.write(
        'fauna/resources/functions/user_by_email.fql',
        'CreateFunction({ name: "user_by_email", body: Query(Lambda(["email"], Get(Match(Index("users_by_email"), Var("email"))))) })\n',
      );
    }
    await project.write(
      'fauna/resources/roles/reader.fql',
      `CreateRole({ name: "reader", privileges: [
  { resource: Collection("users"), actions: { read: true } },
  { resource: Index("users_by_email"), actions: { read: true } },
  { resource: Function("user_by_email"), actions: { call: true } }
] })
`,
    );
    await project.write('fauna/resources/dbs/child/things.fql', 'CreateCollection({ name: "things" })\n');

    const generated = await migrate(project, ['generate']);
    assert.match(generated.stdout, /added: users_by_email/, generated.output);
    const migrations = (await readdir(path.join(project.dir, 'fauna', 'migrations'))).filter((d) => d !== 'dbs');
    assert.equal(migrations.length, 1);
    assert.ok(existsSync(path.join(project.dir, 'fauna', 'migrations', 'dbs', 'child')));

    const applied = await migrate(project, ['apply']);
    assert.match(applied.stdout, /Done applying migrations/, applied.output);
    assert.deepEqual(
      await root().query(
        q.Map(
          [q.Collection('users'), q.Index('users_by_email'), q.Function('user_by_email'), q.Role('reader'), q.Database('child')],
          q.Lambda('r', q.Exists(q.Var('r'))),
        ),
      ),
      [true, true, true, true, true],
    );
    assert.equal(await root().query(q.Select('active', q.Get(q.Index('users_by_email')))), true);
    assert.equal(await root().query(q.Count(q.Documents(q.Collection('migrations')))), 1);

    // The schema works together.
    await root().query(q.Create(q.Collection('users'), { data: { email: 'ann@example.com' } }));
    assert.equal(await root().query(q.Select(['data', 'email'], q.Call(q.Function('user_by_email'), 'ann@example.com'))), 'ann@example.com');
    await assert.rejects(root().query(q.Create(q.Collection('users'), { data: { email: 'ann@example.com' } })), /instance not unique/);

    // The child database's migration is applied separately, as the tool does.
    assert.equal(await has(q.Collection('things', q.Database('child'))), false);
    await migrate(project, ['apply', '1', 'child']);
    assert.equal(await has(q.Collection('things', q.Database('child'))), true);
  });

  test('a second migration (new collection, changed function) applies and rolls back', async () => {
    await project.write('fauna/resources/posts.fql', 'CreateCollection({ name: "posts", history_days: 5 })\n');
    await project.write(
      'fauna/resources/functions/user_by_email.fql',
      'CreateFunction({ name: "user_by_email", body: Query(Lambda(["email"], Select(["data", "email"], Get(Match(Index("users_by_email"), Var("email")))))) })\n',
    );
    if (jsResources) {
      const { rm } = await import('node:fs/promises');
      await rm(path.join(project.dir, 'fauna/resources/functions/user_by_email.js'));
    }
    const generated = await migrate(project, ['generate']);
    assert.match(generated.stdout, /added: posts/, generated.output);
    await migrate(project, ['apply']);
    assert.equal(await has(q.Collection('posts')), true);
    assert.equal(await root().query(q.Call(q.Function('user_by_email'), 'ann@example.com')), 'ann@example.com');
    assert.equal(await root().query(q.Count(q.Documents(q.Collection('migrations')))), 2);

    await migrate(project, ['rollback']);
    assert.equal(await has(q.Collection('posts')), false);
    assert.equal(await root().query(q.Select(['data', 'email'], q.Call(q.Function('user_by_email'), 'ann@example.com'))), 'ann@example.com');
    assert.equal(await root().query(q.Count(q.Documents(q.Collection('migrations')))), 1);
  });

  test('rollback of the child database, then of the first migration, leaves nothing', async () => {
    await migrate(project, ['rollback', '1', 'child']);
    assert.equal(await has(q.Collection('things', q.Database('child'))), false);

    await migrate(project, ['rollback']);
    assert.deepEqual(
      await root().query(
        q.Map(
          [q.Collection('users'), q.Index('users_by_email'), q.Function('user_by_email'), q.Role('reader'), q.Database('child')],
          q.Lambda('r', q.Exists(q.Var('r'))),
        ),
      ),
      [false, false, false, false, false],
    );
    assert.equal(await root().query(q.Count(q.Documents(q.Collection('migrations')))), 0);
  });

  test('--child-db runs every migration in a child database; rollback all deletes and recreates it empty', async () => {
    const dev = await tempProject();
    try {
      await migrate(dev, ['init']);
      await dev.write('fauna/resources/accounts.fql', 'CreateCollection({ name: "accounts" })\n');
      await dev.write(
        'fauna/resources/accounts_by_name.fql',
        'CreateIndex({ name: "accounts_by_name", source: Collection("accounts"), terms: [{ field: ["data", "name"] }] })\n',
      );
      await migrate(dev, ['generate']);
      await migrate(dev, ['apply', 'all'], { FAUNA_CHILD_DB: 'devdb' });
      assert.equal(await has(q.Index('accounts_by_name', q.Database('devdb'))), true);
      assert.equal(await has(q.Collection('accounts')), false, 'nothing in the key\'s own database');

      const rolled = await migrate(dev, ['rollback', 'all'], { FAUNA_CHILD_DB: 'devdb' });
      assert.match(rolled.stdout, /Nuked child database/, rolled.output);
      // The tool deletes the database, then creates it again with an empty migrations collection.
      assert.equal(await has(q.Index('accounts_by_name', q.Database('devdb'))), false);
      assert.equal(await has(q.Collection('accounts', q.Database('devdb'))), false);
      assert.equal(await root().query(q.Count(q.Documents(q.Collection('migrations', q.Database('devdb'))))), 0);
    } finally {
      await dev.remove();
    }
  });
});
