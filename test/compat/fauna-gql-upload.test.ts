// fauna-gql-upload 2.5.0 (fgu), the real CLI, against a real Flora process: schema, indexes, functions
// and roles from a project's fauna/ folder, configured the way its docs say (a .env file); an index
// whose terms change (the tool waits for Fauna's exact refusal, then deletes and recreates it); a
// refused resource; and an override import.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Client, query as q } from 'faunadb';
import { serverForFile } from '../helpers/server';
import { ok } from '../helpers/graphql';
import { esbuildEnv, runTool, tempProject, type Project, type RunResult } from './tools';

const server = serverForFile();
const root = (): Client => server.drivers.h2;
const DB = 'fgu';

/** fgu without its fixed 60 s / 65 s pauses for Fauna's schema cache (see fguNoWait.ts). */
const NO_WAIT = path.join(__dirname, 'fguNoWait.js');

const esbuild = esbuildEnv();

async function fgu(project: Project, args: string[] = []): Promise<RunResult> {
  return runTool('fgu', args, project, { preload: [NO_WAIT], env: 'env' in esbuild ? esbuild.env : {} });
}

function mustSucceed(res: RunResult): void {
  assert.equal(res.code, 0, res.output);
  assert.doesNotMatch(res.output, /\[error\]/, res.output);
}

const BOOK_SCHEMA = `type Book { title: String!  author: String }
type Query { allBooks: [Book!] }
`;

describe('fauna-gql-upload 2.5.0', { skip: 'skip' in esbuild ? esbuild.skip : false }, () => {
  let project: Project;
  let db: Client;
  /** Its documented configuration: a .env file with the secret and both endpoints. */
  const dotEnv = (): string =>
    [
      `FGU_SECRET=secret:${DB}:admin`,
      `FGU_API_ENDPOINT=http://127.0.0.1:${server.flora.port}`,
      `FGU_GRAPHQL_ENDPOINT=http://127.0.0.1:${server.flora.port}`,
      '',
    ].join('\n');
  before(async () => {
    await root().query(q.CreateDatabase({ name: DB }));
    db = new Client({ secret: `secret:${DB}:admin`, endpoint: server.flora.url });
    project = await tempProject();
    await project.write('.env', dotEnv());
  });
  after(async () => {
    await db?.close({ force: true });
    await project?.remove();
  });

  // Resource files as fgu's docs write them: CommonJS modules that build FQL with the driver. (fgu also
  // takes TypeScript, which it type-checks with the project's tsconfig: a local step, slow, left out.)
  const fn = (body: string): string => `const { query: q } = require('faunadb');
module.exports = { name: 'book_count', body: q.Query(q.Lambda([], ${body})), role: q.Role('reader') };
`;
  const index = (terms: string): string => `const { query: q } = require('faunadb');
module.exports = { name: 'books_by_title', source: q.Collection('Book'), terms: [{ field: ['data', '${terms}'] }] };
`;

  test('schema, indexes, functions and roles in one run', async () => {
    await project.write('fauna/schema.gql', BOOK_SCHEMA);
    await project.write('fauna/indexes/books_by_title.js', index('title'));
    await project.write('fauna/functions/book_count.js', fn('q.Count(q.Documents(q.Collection(\'Book\')))'));
    await project.write(
      'fauna/roles/reader.js',
      `const { query: q } = require('faunadb');
module.exports = {
  name: 'reader',
  privileges: [
    { resource: q.Collection('Book'), actions: { read: true } },
    { resource: q.Index('books_by_title'), actions: { read: true } },
  ],
};
`,
    );
    const res = await fgu(project);
    mustSucceed(res);
    for (const done of ['updated schema', 'successfully uploaded indexes', 'successfully uploaded roles', 'successfully uploaded functions']) {
      assert.match(res.stdout, new RegExp(done), res.output);
    }

    // The schema's API works, and the uploaded resources with it.
    await ok(server.flora.url, `secret:${DB}:admin`, 'mutation { createBook(data: {title: "Dune", author: "Herbert"}) { _id } }');
    assert.equal(await db.query(q.Call(q.Function('book_count'))), 1);
    assert.equal(await db.query(q.Select(['role', 'id'], q.Get(q.Function('book_count')))), 'reader');
    assert.equal(await db.query(q.Count(q.Match(q.Index('books_by_title'), 'Dune'))), 1);
    assert.equal(await db.query(q.Count(q.Select('privileges', q.Get(q.Role('reader'))))), 2);
  });

  test('an index whose terms change is deleted and created again', async () => {
    await project.write('fauna/indexes/books_by_title.js', index('author'));
    const res = await fgu(project, ['--indexes']);
    mustSucceed(res);
    // fgu takes this path only on Fauna's exact message for the refused update.
    assert.match(res.stdout, /We must first delete the index and create it again/, res.output);
    assert.match(res.stdout, /Successfully updated mutated indexes/, res.output);
    assert.deepEqual(await db.query(q.Select('terms', q.Get(q.Index('books_by_title')))), [{ field: ['data', 'author'] }]);
    assert.equal(await db.query(q.Count(q.Match(q.Index('books_by_title'), 'Herbert'))), 1);
  });

  test('changed functions and roles are updated in place', async () => {
    await project.write('fauna/functions/book_count.js', fn('q.Add(1000, q.Count(q.Documents(q.Collection(\'Book\'))))'));
    const res = await fgu(project, ['--functions', '--roles']);
    mustSucceed(res);
    assert.equal(await db.query(q.Call(q.Function('book_count'))), 1001);
  });

  test('a resource Flora refuses fails the run with Flora\'s error code and description', async () => {
    const bad = await tempProject();
    try {
      await bad.write('.env', dotEnv());
      await bad.write('fauna/indexes/broken.js', `const { query: q } = require('faunadb');
module.exports = { name: 'broken', source: q.Collection('NoSuchCollection') };
`);
      const res = await fgu(bad, ['--indexes']);
      assert.notEqual(res.code, 0, res.output);
      assert.match(res.output, /Error uploading indexes/, res.output);
      assert.match(res.output, /invalid ref|validation failed/, res.output);
      assert.equal(await db.query(q.Exists(q.Index('broken'))), false);
    } finally {
      await bad.remove();
    }
  });

  test('--mode override replaces the GraphQL schema', async () => {
    await project.write('fauna/schema.gql', 'type Magazine { name: String! }\ntype Query { allMagazines: [Magazine!] }\n');
    const res = await fgu(project, ['--schema', '--mode', 'override', '--yes']);
    mustSucceed(res);
    assert.match(res.stdout, /updated schema/, res.output);
    assert.equal(await db.query(q.Exists(q.Collection('Magazine'))), true);
    assert.equal(await db.query(q.Exists(q.Collection('Book'))), false, 'override deletes the GraphQL collections it replaces');
  });
});
