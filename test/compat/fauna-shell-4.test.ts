// fauna-shell 4.0.0 (the CLI Fauna users have for FQL v10), unchanged, against a real Flora process:
// `fauna query` (a result in FQL syntax, a runtime error and a parse error as it prints them for
// Fauna, --json/--format json, a query on stdin, --api-version 4, --database with the secret, --include),
// `fauna shell` fed through a pipe, `fauna database create/list/delete` through Flora's v10 Database
// module, `fauna schema push --active` and `pull` through the schema API, staged pushes (`schema
// push` without --active, `status`, `commit`, `abandon`, `pull` of the staged files), and --local
// (http://0.0.0.0:8443, secret `secret`) when Flora can listen on port 8443 here; and the commands
// that show a diff and ask (push, commit, abandon without --no-input, with the answer piped on stdin),
// and `schema diff` (semantic, --text, --staged, --active, --color). Each case asserts the exit code
// and the exact output.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { serverForFile, startFlora } from '../helpers/server';
import { runTool, tempProject, type Project, type RunResult } from './tools';

const server = serverForFile();
let project: Project;
before(async () => {
  project = await tempProject();
});
after(async () => {
  await project?.remove();
});

const endpoint = (): string[] => ['--url', server.flora.url, '--secret', server.flora.secret];
const fauna = (args: string[], input?: string): Promise<RunResult> => runTool('shell4', args, project, { input });

/** fauna-shell prints a failure's summary line by line with the leading blanks trimmed (its FQL colouriser trims). */
/** `database list` with a secret (--secret, --local) says first that it shows names, not paths. */
const LIST_WARNING = 'Warning: Full database paths are not available when using --secret. Use --database if a full path, including the Region Group identified and hierarchy, is needed.\n';
const ABORTED = 'The query failed with the following error:\n\nerror: Query aborted.\nat *query*:1:6\n|\n1 | abort({ x: 1 })\n|      ^^^^^^^^^^\n|\n\nAbort value:\n{\n  x: 1\n}\n';

describe('fauna-shell 4: fauna query', () => {
  before(async () => {
    // Two queries: a collection is not there for the query that creates it (as in the core).
    for (const setupQuery of ['Collection.create({ name: "books" })\n"ok"', 'books.create({ id: "1", title: "Dune" })\n"ok"']) {
      const setup = await fauna(['query', setupQuery, ...endpoint()]);
      assert.equal(setup.code, 0, setup.output);
    }
  });

  test('a result in FQL syntax (the decorated format) on stdout, exit code 0', async () => {
    assert.deepEqual(await fauna(['query', '1 + 1', ...endpoint()]).then(plain), { code: 0, stdout: '2\n', stderr: '' });
    const r = await fauna(['query', '[2.0, Time.epoch(0, "second"), books.byId("1")!.title, { a: [1] }]', ...endpoint()]);
    assert.deepEqual(plain(r), { code: 0, stdout: '[\n  2.0,\n  Time("1970-01-01T00:00:00Z"),\n  "Dune",\n  {\n    a: [\n      1\n    ]\n  }\n]\n', stderr: '' });
  });

  test('a runtime error: the summary with carets and the abort value on stderr, exit code 1', async () => {
    assert.deepEqual(plain(await fauna(['query', 'abort({ x: 1 })', ...endpoint()])), { code: 1, stdout: '', stderr: ABORTED });
    const unbound = await fauna(['query', 'nope.all()', ...endpoint()]);
    assert.deepEqual(plain(unbound), { code: 1, stdout: '', stderr: 'The query failed with the following error:\n\nerror: Unbound variable `nope`\nat *query*:1:1\n|\n1 | nope.all()\n| ^^^^\n|\n' });
  });

  test('a parse error: the summary on stderr, exit code 1', async () => {
    const r = await fauna(['query', '1 +', ...endpoint()]);
    assert.deepEqual(plain(r), { code: 1, stdout: '', stderr: 'The query failed with the following error:\n\nerror: Expected expression\nat *query*:1:4\n|\n1 | 1 +\n|    ^\n|\n' });
  });

  test('--json and --format json: the simple format, as JSON', async () => {
    const expected = { code: 0, stdout: '{\n  "a": 1,\n  "t": "1970-01-01T00:00:00Z"\n}\n', stderr: '' };
    assert.deepEqual(plain(await fauna(['query', '{ a: 1, t: Time.epoch(0, "second") }', '--json', ...endpoint()])), expected);
    assert.deepEqual(plain(await fauna(['query', '{ a: 1, t: Time.epoch(0, "second") }', '--format', 'json', ...endpoint()])), expected);
  });

  test('the query on stdin (-), in a child database (--database with the secret), --include; FQL v4 with --api-version 4', async () => {
    assert.deepEqual(plain(await fauna(['query', '-', ...endpoint()], '1 + 41')), { code: 0, stdout: '42\n', stderr: '' });
    // v4 results are printed with util.inspect (strings in single quotes).
    const v4 = plain(await fauna(['query', 'Select("name", CreateDatabase({name: "shell4db"}))', '--api-version', '4', ...endpoint()]));
    assert.deepEqual(v4, { code: 0, stdout: "'shell4db'\n", stderr: '' });
    const inChild = await fauna(['query', 'Collection.all().count()', '--database', 'shell4db', ...endpoint()]);
    assert.deepEqual(plain(inChild), { code: 0, stdout: '0\n', stderr: '' });
    const included = plain(await fauna(['query', '1', '--include', 'stats', 'txnTs', ...endpoint()]));
    assert.equal(included.code, 0);
    assert.equal(included.stdout, '1\n');
    assert.match(included.stderr, /^stats:\n {2}compute_ops: 1\n {2}read_ops: 0\n {2}write_ops: 0\n {2}query_time_ms: \d+\n[\s\S]*\ntxnTs: \d{16}\n\n$/);
  });
});

describe('fauna-shell 4: fauna shell', () => {
  test('piped input: each line one query, results on stdout, errors on stderr, .exit', async () => {
    const r = plain(await fauna(['shell', ...endpoint()], '1 + 1\nabort({ x: 1 })\n{ a: [1, "b"] }\n.exit\n'));
    assert.equal(r.code, 0, r.stderr);
    // Node's REPL (in terminal mode) echoes the input, then prints the answers in order, each after a prompt.
    const [echo, answers] = r.stdout.split('.exit\r\n');
    assert.equal(echo, 'Type Ctrl+D or .exit to exit the shell\n> 1 + 1\r\nabort({ x: 1 })\r\n{ a: [1, "b"] }\r\n');
    assert.equal(answers.replace(/^(> )+/gm, ''), '2\n{\n  a: [\n    1,\n    "b"\n  ]\n}\n');
    assert.equal(r.stderr, ABORTED);
  });
});

describe('fauna-shell 4: fauna database', () => {
  /** A secret scoped to the child database `shell4dbs` (the v4 form `secret:db:admin`), where these tests list alone. */
  const inChild = (): string[] => ['--url', server.flora.url, '--secret', `${server.flora.secret}:shell4dbs:admin`];

  before(async () => {
    assert.deepEqual(plain(await fauna(['database', 'create', '--name', 'shell4dbs', ...endpoint()])), { code: 0, stdout: 'shell4dbs\n', stderr: 'Database successfully created.\n' });
  });

  test('create, list and delete through Database with --url/--secret: what each prints, exit code 0', async () => {
    assert.deepEqual(plain(await fauna(['database', 'list', ...inChild()])), { code: 0, stdout: '', stderr: LIST_WARNING });
    assert.deepEqual(plain(await fauna(['database', 'create', '--name', 'kid', ...inChild()])), { code: 0, stdout: 'kid\n', stderr: 'Database successfully created.\n' });
    // --typechecked, --protected and --priority are stored as the core stores them.
    const opts = plain(await fauna(['database', 'create', '--name', 'opts', '--typechecked', '--protected', '--priority', '3', ...inChild()]));
    assert.deepEqual(opts, { code: 0, stdout: 'opts\n', stderr: 'Database successfully created.\n' });
    const shown = plain(await fauna(['query', 'Database.byName("opts") { priority, typechecked, protected }', ...inChild()]));
    assert.deepEqual(shown, { code: 0, stdout: '{\n  priority: 3,\n  typechecked: true,\n  protected: true\n}\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['database', 'list', ...inChild()])), { code: 0, stdout: 'kid\nopts\n', stderr: LIST_WARNING });
    assert.deepEqual(plain(await fauna(['database', 'list', '--json', ...inChild()])), { code: 0, stdout: '[\n  {\n    "name": "kid"\n  },\n  {\n    "name": "opts"\n  }\n]\n', stderr: LIST_WARNING });
    assert.deepEqual(plain(await fauna(['database', 'list', '--page-size', '1', ...inChild()])), { code: 0, stdout: 'kid\n', stderr: LIST_WARNING });
    assert.deepEqual(plain(await fauna(['database', 'delete', '--name', 'kid', ...inChild()])), { code: 0, stdout: '', stderr: "Database 'kid' was successfully deleted.\n" });
    assert.deepEqual(plain(await fauna(['database', 'delete', '--name', 'opts', ...inChild()])), { code: 0, stdout: '', stderr: "Database 'opts' was successfully deleted.\n" });
    assert.deepEqual(plain(await fauna(['database', 'list', ...inChild()])), { code: 0, stdout: '', stderr: LIST_WARNING });
  });

  test('the refusals it explains (constraint_failure, document_not_found), exit code 1', async () => {
    assert.equal(plain(await fauna(['database', 'create', '--name', 'twice', ...inChild()])).code, 0);
    assert.deepEqual(plain(await fauna(['database', 'create', '--name', 'twice', ...inChild()])), {
      code: 1,
      stdout: '',
      stderr: "The database 'twice' already exists or one of the provided options is invalid.\n",
    });
    // The core's ValidIdentifierValidator: `name` "Invalid identifier.", which fauna-shell explains.
    assert.deepEqual(plain(await fauna(['database', 'create', '--name', '1bad', ...inChild()])), {
      code: 1,
      stdout: '',
      stderr: "The database name '1bad' is invalid. Database names must begin with letters and include only letters, numbers, and underscores.\n",
    });
    assert.deepEqual(plain(await fauna(['database', 'delete', '--name', 'nope', ...inChild()])), {
      code: 1,
      stdout: '',
      stderr: "Database 'nope' not found. Please check the database name and try again.\n",
    });
    assert.equal(plain(await fauna(['database', 'delete', '--name', 'twice', ...inChild()])).code, 0);
  });
});

describe('fauna-shell 4: fauna schema push and pull (active)', () => {
  /** The schema cases act in their own child database. */
  const inChild = (): string[] => ['--url', server.flora.url, '--secret', `${server.flora.secret}:shell4schema:admin`];
  const BOOKS = 'collection Book {\n  title: String\n  index byTitle {\n    terms [.title]\n  }\n}\n';

  before(async () => {
    assert.equal(plain(await fauna(['database', 'create', '--name', 'shell4schema', ...endpoint()])).code, 0);
    await project.write('schema/books.fsl', BOOKS);
  });

  test('push --active --no-input applies the files at once (POST /schema/1/update?force=true&staged=false): exit code 0, nothing printed', async () => {
    assert.deepEqual(plain(await fauna(['schema', 'push', '--active', '--no-input', '--dir', 'schema', ...inChild()])), { code: 0, stdout: '', stderr: '' });
    assert.deepEqual(plain(await fauna(['query', 'Book.create({ title: "Dune" }).title', ...inChild()])), { code: 0, stdout: '"Dune"\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['query', 'Book.byTitle("Dune").count()', ...inChild()])), { code: 0, stdout: '1\n', stderr: '' });
    const typed = plain(await fauna(['query', 'Book.create({ title: 1 })', ...inChild()]));
    assert.equal(typed.code, 1);
    assert.match(typed.stderr, /^The query failed with the following error:\n\nerror: Failed to create document in collection `Book`\.\nconstraint failures:\n  title: Expected String, provided Int\n/);
  });

  test('a file that does not parse: the core\'s error with the file name and carets on stderr, exit code 1', async () => {
    await project.write('badschema/bad.fsl', 'collection {\n');
    assert.deepEqual(plain(await fauna(['schema', 'push', '--active', '--no-input', '--dir', 'badschema', ...inChild()])), {
      code: 1,
      stdout: '',
      stderr: 'error: Expected `}`\nat bad.fsl:1:13\n  |\n1 | collection {\n  |             ^\n  |\n',
    });
  });

  test('pull writes the files as pushed, and a collection made through FQL in main.fsl; --delete removes the others', async () => {
    assert.equal(plain(await fauna(['query', 'Collection.create({ name: "Made" }).name', ...inChild()])).code, 0);
    await project.write('pulled/old.fsl', '');
    const r = plain(await fauna(['schema', 'pull', '--dir', 'pulled', '--delete', ...inChild()], 'y\n'));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.ok(r.stdout.startsWith('Pulling active schema will make the following changes:\ndelete:    old.fsl\nadd:       books.fsl\nadd:       main.fsl\n? Accept the changes?'), r.stdout);
    assert.deepEqual((await readdir(path.join(project.dir, 'pulled'))).sort(), ['books.fsl', 'main.fsl']);
    assert.equal(await readFile(path.join(project.dir, 'pulled', 'books.fsl'), 'utf8'), BOOKS);
    assert.equal(
      await readFile(path.join(project.dir, 'pulled', 'main.fsl'), 'utf8'),
      '// The following schema is auto-generated.\n// This file contains FSL for FQL10-compatible schema items.\n\ncollection Made {\n  history_days 30\n}\n',
    );
  });
});

describe('fauna-shell 4: fauna schema push (staged), status, commit, abandon', () => {
  /** Staging happens in a child database (the core stages nothing in the root). */
  const inChild = (): string[] => ['--url', server.flora.url, '--secret', `${server.flora.secret}:shell4staged:admin`];
  const ACTIVE = 'collection Pet {\n  name: String\n}\n';
  const STAGED = 'collection Pet {\n  name: String\n  index byName {\n    terms [.name]\n  }\n}\n\nfunction hello() { "staged" }\n';

  before(async () => {
    assert.equal(plain(await fauna(['database', 'create', '--name', 'shell4staged', ...endpoint()])).code, 0);
    await project.write('active/pets.fsl', ACTIVE);
    await project.write('staged/pets.fsl', STAGED);
    await project.write('restaged/pets.fsl', STAGED.replace('"staged"', '"restaged"'));
    await project.write('pulledstaged/.keep', '');
    assert.deepEqual(plain(await fauna(['schema', 'push', '--active', '--no-input', '--dir', 'active', ...inChild()])), { code: 0, stdout: '', stderr: '' });
  });

  test('push without --active stages (POST /schema/1/update?force=true&staged=true): queries see the active schema; status shows the staged and the local changes', async () => {
    assert.deepEqual(plain(await fauna(['schema', 'status', '--dir', 'active', ...inChild()])), { code: 0, stdout: 'Staged changes: none\nLocal changes: none\n\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['schema', 'push', '--no-input', '--dir', 'staged', ...inChild()])), { code: 0, stdout: '', stderr: '' });
    assert.deepEqual(plain(await fauna(['query', 'Collection.byName("Pet")!.indexes', ...inChild()])), { code: 0, stdout: '{}\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['query', 'hello()', ...inChild()])), {
      code: 1,
      stdout: '',
      stderr: 'The query failed with the following error:\n\nerror: Unbound variable `hello`\nat *query*:1:1\n|\n1 | hello()\n| ^^^^^\n|\n',
    });
    // fauna-shell indents every line of the diff after the first.
    const staged = 'Staged changes: ready\nStaged changes:\n\n* Adding function `hello` to pets.fsl:8:1\n  * Modifying collection `Pet` at pets.fsl:1:1\n  \n';
    assert.deepEqual(plain(await fauna(['schema', 'status', '--dir', 'staged', ...inChild()])), { code: 0, stdout: staged + 'Local changes: none\n\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['schema', 'status', '--dir', 'active', ...inChild()])), {
      code: 0,
      stdout:
        staged +
        'Local changes:\n\n  * Removing function `hello` from pets.fsl:8:1\n  * Modifying collection `Pet` at pets.fsl:1:1\n  \n(use `fauna schema diff` to display local changes)\n(use `fauna schema push` to stage local changes)\n',
      stderr: '',
    });
    // pull takes the staged files while a schema is staged.
    const pulled = plain(await fauna(['schema', 'pull', '--dir', 'pulledstaged', ...inChild()], 'y\n'));
    assert.equal(pulled.code, 0, pulled.stderr);
    assert.ok(pulled.stdout.startsWith('Pulling staged schema will make the following changes:\nadd:       pets.fsl\n'), pulled.stdout);
    assert.equal(await readFile(path.join(project.dir, 'pulledstaged', 'pets.fsl'), 'utf8'), STAGED);
  });

  test('commit --no-input applies the staged schema (POST /schema/1/staged/commit?force=true); with nothing staged, the core\'s refusal and exit code 1', async () => {
    assert.deepEqual(plain(await fauna(['schema', 'commit', '--no-input', ...inChild()])), { code: 0, stdout: 'Schema has been committed\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['query', 'hello()', ...inChild()])), { code: 0, stdout: '"staged"\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['query', 'Pet.create({ name: "Rex" }) { name }\nPet.byName("Rex").count()', ...inChild()])), { code: 0, stdout: '1\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['schema', 'status', '--dir', 'staged', ...inChild()])), { code: 0, stdout: 'Staged changes: none\nLocal changes: none\n\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['schema', 'commit', '--no-input', ...inChild()])), { code: 1, stdout: '', stderr: 'There is no staged schema to commit\n' });
  });

  test('abandon --no-input drops the staged schema (POST /schema/1/staged/abandon?force=true); with nothing staged, exit code 1', async () => {
    assert.deepEqual(plain(await fauna(['schema', 'abandon', '--no-input', ...inChild()])), { code: 1, stdout: '', stderr: 'There is no staged schema to abandon\n' });
    assert.deepEqual(plain(await fauna(['schema', 'push', '--no-input', '--dir', 'restaged', ...inChild()])), { code: 0, stdout: '', stderr: '' });
    assert.deepEqual(plain(await fauna(['schema', 'abandon', '--no-input', ...inChild()])), { code: 0, stdout: 'Schema has been abandoned.\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['query', 'hello()', ...inChild()])), { code: 0, stdout: '"staged"\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['schema', 'status', '--dir', 'staged', ...inChild()])), { code: 0, stdout: 'Staged changes: none\nLocal changes: none\n\n', stderr: '' });
  });
});

describe('fauna-shell 4: interactive schema push, diff, commit and abandon (the prompt answered on stdin)', () => {
  /** In a child database of their own (the core stages nothing in the root). */
  const inChild = (): string[] => ['--url', server.flora.url, '--secret', `${server.flora.secret}:shell4diff:admin`];
  const ACTIVE = 'collection Pet {\n  name: String\n}\n';
  const STAGED = 'collection Pet {\n  name: String\n  index byName {\n    terms [.name]\n  }\n}\n\nfunction hello() { "hi" }\n';
  /** The semantic diff from ACTIVE to STAGED (POST /schema/1/diff, staged/status?diff=true). */
  const SEMANTIC = '* Adding function `hello` to pets.fsl:8:1\n\n* Modifying collection `Pet` at pets.fsl:1:1:\n  * Indexes:\n  + add index `byName`\n\n';
  const TEXTUAL = 'pets.fsl\n@ line 1 to 8\n  collection Pet {\n    name: String\n+   index byName {\n+     terms [.name]\n+   }\n  }\n+\n+ function hello() { "hi" }\n';
  /** The confirmation as @inquirer/confirm draws it, answered: its cursor moves stripped, the last escape (show the cursor) left. */
  const prompt = (question: string, answer: 'yes' | 'no') => `? ${question} (y/N)? ${question} (y/N) ${answer === 'yes' ? 'y' : 'n'}✔ ${question} ${answer}\n\u001b[?25h`;

  before(async () => {
    assert.equal(plain(await fauna(['database', 'create', '--name', 'shell4diff', ...endpoint()])).code, 0);
    await project.write('dactive/pets.fsl', ACTIVE);
    await project.write('dstaged/pets.fsl', STAGED);
    assert.deepEqual(plain(await fauna(['schema', 'push', '--active', '--no-input', '--dir', 'dactive', ...inChild()])), { code: 0, stdout: '', stderr: '' });
  });

  test('diff with nothing staged: the remote schema to the local one, semantic or --text (POST /schema/1/diff?diff=semantic|textual)', async () => {
    const head = 'Differences from the remote schema to the local schema:\n';
    assert.deepEqual(plain(await fauna(['schema', 'diff', '--dir', 'dstaged', ...inChild()])), { code: 0, stdout: head + SEMANTIC + '\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['schema', 'diff', '--dir', 'dstaged', '--text', ...inChild()])), { code: 0, stdout: head + TEXTUAL + '\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['schema', 'diff', '--dir', 'dactive', ...inChild()])), { code: 0, stdout: head + 'No schema differences.\n', stderr: '' });
    // --color asks for color=ansi: the server's escapes come through as they are.
    const coloured = await fauna(['schema', 'diff', '--dir', 'dstaged', '--color', ...inChild()]);
    assert.equal(coloured.code, 0, coloured.output);
    assert.ok(coloured.stdout.includes('\u001b[1;34m* Adding function `hello`\u001b[0m to pets.fsl:8:1\n\n\u001b[1;34m* Modifying collection `Pet`\u001b[0m at pets.fsl:1:1:\n  * Indexes:\n\u001b[32m  + add index `byName`\u001b[0m\n'), coloured.stdout);
  });

  test('push --active shows the diff and asks: "n" cancels, "y" pushes', async () => {
    await project.write('dmore/pets.fsl', ACTIVE + '\nfunction more() { 1 }\n');
    const diffShown = 'Proposed diff:\n\n* Adding function `more` to pets.fsl:5:1\n\n\n';
    assert.deepEqual(plain(await fauna(['schema', 'push', '--active', '--dir', 'dmore', ...inChild()], 'n\n')), {
      code: 0,
      stdout: diffShown + prompt('Push the above changes?', 'no') + 'Push cancelled.\n',
      stderr: '',
    });
    assert.equal(plain(await fauna(['query', 'Function.byName("more") == null', ...inChild()])).stdout, 'true\n');
    assert.deepEqual(plain(await fauna(['schema', 'push', '--active', '--dir', 'dmore', ...inChild()], 'y\n')), { code: 0, stdout: diffShown + prompt('Push the above changes?', 'yes'), stderr: '' });
    assert.deepEqual(plain(await fauna(['query', 'more()', ...inChild()])), { code: 0, stdout: '1\n', stderr: '' });
    // Nothing to change: it says so and asks whether to push the files anyway.
    assert.deepEqual(plain(await fauna(['schema', 'push', '--active', '--dir', 'dmore', ...inChild()], 'n\n')), {
      code: 0,
      stdout: 'No logical changes.\n' + prompt('Push the file contents anyway?', 'no') + 'Push cancelled.\n',
      stderr: '',
    });
    assert.deepEqual(plain(await fauna(['schema', 'push', '--active', '--no-input', '--dir', 'dactive', ...inChild()])), { code: 0, stdout: '', stderr: '' });
  });

  test('push (staged) asks, then diff --staged, diff against the staged schema, commit that asks ("n", then "y")', async () => {
    assert.deepEqual(plain(await fauna(['schema', 'push', '--dir', 'dstaged', ...inChild()], 'y\n')), {
      code: 0,
      stdout: 'Proposed diff:\n\n' + SEMANTIC + '\n' + prompt('Stage the above changes?', 'yes'),
      stderr: '',
    });
    assert.deepEqual(plain(await fauna(['schema', 'diff', '--staged', '--dir', 'dstaged', ...inChild()])), {
      code: 0,
      stdout: 'Differences from the remote, active schema to the remote, staged schema:\n' + SEMANTIC + '\n',
      stderr: '',
    });
    assert.deepEqual(plain(await fauna(['schema', 'diff', '--staged', '--text', '--dir', 'dstaged', ...inChild()])), {
      code: 0,
      stdout: 'Differences from the remote, active schema to the remote, staged schema:\n' + TEXTUAL + '\n',
      stderr: '',
    });
    assert.deepEqual(plain(await fauna(['schema', 'diff', '--dir', 'dactive', ...inChild()])), {
      code: 0,
      stdout: 'Differences from the remote, staged schema to the local schema:\n* Removing function `hello` from pets.fsl:8:1\n\n* Modifying collection `Pet` at pets.fsl:1:1:\n  * Indexes:\n  - remove index `byName`\n\n\n',
      stderr: '',
    });
    assert.deepEqual(plain(await fauna(['schema', 'diff', '--active', '--dir', 'dstaged', ...inChild()])), {
      code: 0,
      stdout: 'Differences from the remote, active schema to the local schema:\n' + SEMANTIC + '\n',
      stderr: '',
    });
    await waitUntilReady();
    assert.deepEqual(plain(await fauna(['schema', 'commit', ...inChild()], 'n\n')), { code: 0, stdout: SEMANTIC + '\n' + prompt('Accept and commit these changes?', 'no') + 'Commit cancelled\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['query', 'hello()', ...inChild()])).code, 1);
    assert.deepEqual(plain(await fauna(['schema', 'commit', ...inChild()], 'y\n')), { code: 0, stdout: SEMANTIC + '\n' + prompt('Accept and commit these changes?', 'yes') + 'Schema has been committed\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['query', 'hello()', ...inChild()])), { code: 0, stdout: '"hi"\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['schema', 'commit', ...inChild()], 'y\n')), { code: 1, stdout: '', stderr: 'There is no staged schema to commit\n' });
  });

  test('abandon asks ("n" keeps the staged schema, "y" drops it); with nothing staged, exit code 1', async () => {
    assert.deepEqual(plain(await fauna(['schema', 'abandon', ...inChild()], 'y\n')), { code: 1, stdout: '', stderr: 'There is no staged schema to abandon.\n' });
    assert.equal(plain(await fauna(['schema', 'push', '--no-input', '--dir', 'dactive', ...inChild()])).code, 0);
    const back = '* Removing function `hello` from pets.fsl:8:1\n\n* Modifying collection `Pet` at pets.fsl:1:1:\n  * Indexes:\n  - remove index `byName`\n\n\n';
    assert.deepEqual(plain(await fauna(['schema', 'abandon', ...inChild()], 'n\n')), { code: 0, stdout: back + prompt('Abandon these changes?', 'no') + 'Abandon cancelled.\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['schema', 'abandon', ...inChild()], 'y\n')), { code: 0, stdout: back + prompt('Abandon these changes?', 'yes') + 'Schema has been abandoned.\n', stderr: '' });
    assert.deepEqual(plain(await fauna(['query', 'hello()', ...inChild()])), { code: 0, stdout: '"hi"\n', stderr: '' });
  });

  /** Until the staged schema's indexes are built (commit refuses before). */
  async function waitUntilReady(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const r = plain(await fauna(['schema', 'status', '--dir', 'dstaged', ...inChild()]));
      if (r.stdout.startsWith('Staged changes: ready')) return;
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.fail('the staged schema did not become ready');
  }
});

describe('fauna-shell 4: --local', () => {
  test('--local is http://0.0.0.0:8443 with the secret `secret`: Flora on port 8443', async (t) => {
    if (!(await canListen(8443))) {
      t.skip('port 8443 is taken on this machine: --local always connects to it');
      return;
    }
    const local = await startFlora({ args: ['--port', '8443'] });
    try {
      assert.deepEqual(plain(await fauna(['query', 'Math.abs(-1)', '--local'])), { code: 0, stdout: '1\n', stderr: '' });
      assert.deepEqual(plain(await fauna(['database', 'create', '--name', 'loc', '--local'])), { code: 0, stdout: 'loc\n', stderr: 'Database successfully created.\n' });
      assert.deepEqual(plain(await fauna(['database', 'list', '--local'])), { code: 0, stdout: 'loc\n', stderr: LIST_WARNING });
      assert.deepEqual(plain(await fauna(['database', 'delete', '--name', 'loc', '--local'])), { code: 0, stdout: '', stderr: "Database 'loc' was successfully deleted.\n" });
      await project.write('localschema/local.fsl', 'collection Local {\n  n: Int\n}\n');
      assert.deepEqual(plain(await fauna(['schema', 'push', '--active', '--no-input', '--dir', 'localschema', '--local'])), { code: 0, stdout: '', stderr: '' });
      await project.write('localpulled/.keep', '');
      assert.equal(plain(await fauna(['schema', 'pull', '--dir', 'localpulled', '--local'], 'y\n')).code, 0);
      assert.equal(await readFile(path.join(project.dir, 'localpulled', 'local.fsl'), 'utf8'), 'collection Local {\n  n: Int\n}\n');
    } finally {
      await local.stop();
    }
  });
});

/** The run without ANSI escapes (its REPL's cursor moves). */
function plain(r: RunResult): { code: number; stdout: string; stderr: string } {
  // eslint-disable-next-line no-control-regex
  const strip = (s: string) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
  return { code: r.code, stdout: strip(r.stdout), stderr: strip(r.stderr) };
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}
