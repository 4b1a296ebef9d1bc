// The dashboard's Functions, Roles and Access providers tabs in headless Chromium: each form's bad
// inputs refused with their message before anything is sent (syntax errors with their position, a
// body that is not a lambda, a predicate with the wrong number of parameters, an issuer missing, a
// JWKS URI that is not https) or by the server with its reason (a call error's cause); a function
// created, called, edited and deleted; a role written through the privileges matrix compared with
// the same role written by the driver, read back with its predicates, edited and deleted after a
// confirmation naming who loses it; an access provider with its audience; and keys whose roles
// forbid these screens. Screenshots: dist/test-artifacts/dashboard/security-*.png.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q, type Client } from 'faunadb';
import { dashboardSession, SKIP, STEP } from '../helpers/browser';
import { clients, serverForFile, waitFor, type DriverClients } from '../helpers/server';

const file = serverForFile();
const ui = dashboardSession(() => file.flora);
const { see, shot, signIn, openTab, confirmNext } = ui;
const page = () => ui.page;

/** The driver, as admin of the database `app` the screens are used in. */
let appDrivers: DriverClients | undefined;
let app: Client;
after(() => appDrivers?.close());
/** A privileges-matrix cell: the checkbox and predicate of `action` on `resource`. */
const cell = (resource: string, action: string) => `#privileges td[data-resource='${resource}'][data-action="${action}"]`;
const grant = async (resource: string, action: string, predicate?: string) => {
  await page().check(`${cell(resource, action)} input.grant`);
  if (predicate !== undefined) await page().fill(`${cell(resource, action)} textarea`, predicate);
};
/** A document without what differs between two equal schema documents. */
const fieldsOf = (doc: object, ...without: string[]) => Object.fromEntries(Object.entries(doc).filter(([k]) => !['ref', 'ts', 'name', ...without].includes(k)));
const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

const WRITE_PREDICATE = 'Query(Lambda(["old", "new"], Equals(Select(["data", "owner"], Var("old")), CurrentIdentity())))';

test('the Functions, Roles and Access providers tabs', { skip: SKIP, timeout: 180_000 }, async (t) => {
  await t.test('setup: a database with collections, an index and a key per role', async () => {
    await file.drivers.h1.query(q.CreateDatabase({ name: 'app' }));
    appDrivers = clients(file.flora.url, `${file.flora.secret}:app:admin`);
    app = appDrivers.h1;
    await app.query(q.Do(q.CreateCollection({ name: 'users' }), q.CreateCollection({ name: 'orders' })));
    await app.query(q.CreateIndex({ name: 'users_by_email', source: q.Collection('users'), terms: [{ field: ['data', 'email'] }] }));
    await signIn(file.flora.secret);
    await page().click('#db-tree button[data-path="app"]');
    await openTab('functions');
    await see('#functions caption', 'No functions yet');
  });

  await t.test('functions: a body with a syntax error, one that is not a lambda, and none are refused before sending', async () => {
    await page().fill('#new-function-name', 'increment');
    await page().fill('#new-function-body', 'Query(Lambda("x",\n  Add(Var("x"), 1))');
    await page().click('#create-function button[type=submit]');
    await see('#new-function-body-mistake', 'Syntax: syntax error: Unexpected token (line 2, column 20)');
    assert.equal(await page().locator('#new-function-body').getAttribute('aria-invalid'), 'true');
    assert.ok(await page().locator('#new-function-body').evaluate((el) => el === document.activeElement), 'the cursor is put on the mistake');
    await shot('security-01-function-syntax-error');
    await page().fill('#new-function-body', 'Add(1, 2)');
    await page().click('#create-function button[type=submit]');
    await see('#new-function-body-mistake', 'Expected a lambda written as Query(Lambda(…)), e.g. Query(Lambda("x", Add(Var("x"), 1)))');
    await page().fill('#new-function-body', '');
    await page().click('#create-function button[type=submit]');
    await see('#new-function-body-mistake', 'required');
    assert.equal(await app.query(q.Count(q.Functions())), 0, 'nothing was sent');
  });

  await t.test('functions: created with a role, listed, shown back in the driver syntax, called', async () => {
    await page().fill('#new-function-body', 'Query(Lambda("x", Add(Var("x"), 1)))');
    await page().selectOption('#new-function-role', 'builtin:server');
    await page().click('#create-function button[type=submit]');
    await see('#functions-panel .notice', 'Created function increment.');
    assert.equal(await page().locator('#functions tbody tr[data-name="increment"] td:nth-child(2)').textContent(), 'server');
    assert.equal(await page().inputValue('#edit-function-body'), 'Query(Lambda("x", Add(Var("x"), 1)))');
    assert.equal(await page().inputValue('#edit-function-role'), 'builtin:server');
    const stored = (await app.query(q.Get(q.Function('increment')))) as { role: string };
    assert.equal(stored.role, 'server');
    await page().fill('#call-arguments', '41');
    await page().click('#call-function button[type=submit]');
    await see('#call-result', '42');
    await shot('security-02-function-called');
  });

  await t.test('functions: a call with a syntax error is refused at its position; a failing call shows its cause', async () => {
    await page().fill('#call-arguments', '1, )');
    await page().click('#call-function button[type=submit]');
    await see('#call-arguments-mistake', 'Syntax: syntax error: Unexpected token (line 1, column 4)');
    await page().fill('#call-arguments', '"forty"');
    await page().click('#call-function button[type=submit]');
    await see('#functions-panel .error', 'Could not call increment: call error: Calling the function resulted in an error. (expr.add.0: Number expected, String provided.)');
    await page().fill('#new-function-name', 'increment');
    await page().fill('#new-function-body', 'Query(Lambda("x", Var("x")))');
    await page().click('#create-function button[type=submit]');
    await see('#functions-panel .error', 'Could not create function increment: instance already exists');
  });

  await t.test('functions: the body edited and saved, the role removed', async () => {
    await page().locator('#functions tbody tr[data-name="increment"]').click();
    await page().fill('#edit-function-body', 'Query(Lambda(["x", "y"], Multiply(Var("x"), Var("y"))))');
    await page().selectOption('#edit-function-role', '');
    await page().click('#save-function button[type=submit]');
    await see('#functions-panel .notice', 'Saved function increment.');
    const stored = (await app.query(q.Get(q.Function('increment')))) as object;
    assert.ok(!('role' in stored), 'the role is gone');
    await page().fill('#call-arguments', '6, 7');
    await page().click('#call-function button[type=submit]');
    await see('#call-result', '42');
    assert.equal(await app.query(q.Call(q.Function('increment'), 2, 3)), 6);
  });

  await t.test('roles: the matrix lists the resources with the actions each has', async () => {
    await openTab('roles');
    await see('#roles caption', 'No roles yet');
    await page().click('#new-role');
    await page().locator(cell('Collection("users")', 'create_with_id')).waitFor(STEP);
    for (const [resource, present, absent] of [
      ['Collection("orders")', ['read', 'write', 'create', 'delete', 'history_read', 'history_write', 'unrestricted_read'], ['call']],
      ['Index("users_by_email")', ['read', 'unrestricted_read'], ['write', 'call']],
      ['Function("increment")', ['call'], ['read']],
      ['Keys()', ['history_write', 'create'], ['call', 'unrestricted_read']],
      ['AccessProviders()', ['read', 'delete'], ['history_write']],
    ] as const) {
      for (const a of present) assert.equal(await page().locator(`${cell(resource, a)} input.grant`).count(), 1, `${a} on ${resource}`);
      for (const a of absent) assert.equal(await page().locator(`${cell(resource, a)} input.grant`).count(), 0, `no ${a} on ${resource}`);
    }
    assert.ok(await page().locator(`${cell('Collection("users")', 'read')} textarea`).isHidden(), 'a predicate only under a ticked box');
  });

  await t.test('roles: predicates with the wrong number of parameters or a syntax error are refused at their cell', async () => {
    await page().fill('#role-name', 'customer');
    await grant('Collection("users")', 'read');
    await grant('Collection("users")', 'write', 'Query(Lambda("x", true))');
    await grant('Function("increment")', 'call', 'Query(Lambda("args", true)');
    await page().click('#membership-add');
    await page().selectOption('#membership-0-choice', 'users');
    await page().fill('#membership-0-predicate', 'Query(Lambda(["a", "b"], true))');
    await page().click('#save-role');
    await see('#roles-panel .error', 'A predicate has a mistake (shown under it); nothing was saved.');
    await see(`${cell('Collection("users")', 'write')} .fql-mistake`, 'This lambda takes 1 parameter; here it must take 2 parameters or 3 parameters, e.g. Query(Lambda(["old", "new"], true))');
    await see(`${cell('Function("increment")', 'call')} .fql-mistake`, 'Syntax: syntax error: Unexpected token (line 1, column 27)');
    await see('#membership-0-predicate-mistake', 'This lambda takes 2 parameters; here it must take 1 parameter');
    await shot('security-03-role-mistakes');
    assert.equal(await app.query(q.Count(q.Roles())), 0, 'nothing was sent');
  });

  await t.test('roles: saved, the role document is the one the driver writes for the same role', async () => {
    await page().fill(`${cell('Collection("users")', 'write')} textarea`, WRITE_PREDICATE);
    await page().fill(`${cell('Function("increment")', 'call')} textarea`, 'Query(Lambda("args", true))');
    await page().fill('#membership-0-predicate', 'Query(Lambda("ref", true))');
    await grant('Index("users_by_email")', 'unrestricted_read');
    await grant('Keys()', 'read');
    await page().click('#membership-add');
    await page().selectOption('#membership-1-choice', 'orders');
    await page().click('#save-role');
    await see('#roles-panel .notice', 'Created role customer.');
    await see('#roles tbody tr[data-name="customer"]', 'Collection("users"): read, write (predicate)');
    await app.query(
      q.CreateRole({
        name: 'by_driver',
        privileges: [
          { resource: q.Collection('users'), actions: { read: true, write: q.Query(q.Lambda(['old', 'new'], q.Equals(q.Select(['data', 'owner'], q.Var('old')), q.CurrentIdentity()))) } },
          { resource: q.Index('users_by_email'), actions: { unrestricted_read: true } },
          { resource: q.Function('increment'), actions: { call: q.Query(q.Lambda('args', true)) } },
          { resource: q.Keys(), actions: { read: true } },
        ],
        membership: [{ resource: q.Collection('users'), predicate: q.Query(q.Lambda('ref', true)) }, { resource: q.Collection('orders') }],
      }),
    );
    const [ours, theirs] = (await app.query([q.Get(q.Role('customer')), q.Get(q.Role('by_driver'))])) as object[];
    assert.deepEqual(json(fieldsOf(ours)), json(fieldsOf(theirs)));
    await shot('security-04-role-created');
  });

  await t.test('roles: an existing role opens with its grants ticked and its predicates in the driver syntax; edited with Update', async () => {
    await openTab('roles'); // shown again, the tab reads the roles again: by_driver is listed
    await page().locator('#roles tbody tr[data-name="by_driver"]').click();
    await see('#role-form h3', 'Role by_driver');
    assert.equal(await page().inputValue(`${cell('Collection("users")', 'write')} textarea`), WRITE_PREDICATE);
    assert.ok(await page().isChecked(`${cell('Collection("users")', 'read')} input.grant`));
    assert.ok(!(await page().isChecked(`${cell('Collection("orders")', 'read')} input.grant`)));
    assert.equal(await page().inputValue('#membership-0-predicate'), 'Query(Lambda("ref", true))');
    assert.equal(await page().inputValue('#membership-1-choice'), 'orders');
    await page().uncheck(`${cell('Collection("users")', 'read')} input.grant`);
    await grant('Collection("orders")', 'create', 'Query(Lambda("new", true))');
    await page().locator('#membership .entry').nth(1).locator('button.remove').click();
    await page().fill('#role-name', 'caller');
    await page().click('#save-role');
    await see('#roles-panel .notice', 'Saved role caller.');
    const stored = (await app.query(q.Get(q.Role('caller')))) as { privileges: { resource: { id: string }; actions: Record<string, unknown> }[]; membership: unknown[] };
    const on = (id: string) => stored.privileges.find((p) => p.resource.id === id)?.actions;
    assert.deepEqual(Object.keys(on('users') ?? {}), ['write'], 'read on users no longer granted');
    assert.deepEqual(Object.keys(on('orders') ?? {}), ['create']);
    assert.equal(stored.privileges.length, 5);
    assert.equal(stored.membership.length, 1);
    await see('#role-form h3', 'Role caller');
    await shot('security-05-role-edited');
  });

  await t.test('access providers: the audience, bad issuer and JWKS URI, a predicate with two parameters', async () => {
    await openTab('access-providers');
    await see('#access-providers caption', 'No access providers yet');
    const globalId = (await file.drivers.h1.query(q.Select('global_id', q.Get(q.Database('app'))))) as string;
    const audience = `https://db.fauna.com/db/${globalId}`;
    await see('#provider-audience', `Its tokens must carry the audience (aud) ${audience}`);
    await page().fill('#new-provider-name', 'auth0');
    await page().click('#create-provider button[type=submit]');
    await see('#access-providers-panel .error', 'The issuer is required');
    await page().fill('#new-provider-issuer', 'https://example.eu.auth0.com/');
    await page().fill('#new-provider-jwks', 'http://example.eu.auth0.com/.well-known/jwks.json');
    await page().click('#create-provider button[type=submit]');
    await see('#access-providers-panel .error', 'The JWKS URI must use https');
    await page().fill('#new-provider-jwks', 'https://example.eu.auth0.com/.well-known/jwks.json');
    await page().click('#provider-roles-add');
    await page().selectOption('#provider-roles-0-choice', 'customer');
    await page().fill('#provider-roles-0-predicate', 'Query(Lambda(["a", "b"], true))');
    await page().click('#create-provider button[type=submit]');
    await see('#provider-roles-0-predicate-mistake', 'This lambda takes 2 parameters; here it must take 1 parameter');
    assert.equal(await app.query(q.Count(q.AccessProviders())), 0, 'nothing was sent');
    await page().fill('#provider-roles-0-predicate', 'Query(Lambda("payload", true))');
    await page().click('#provider-roles-add');
    await page().selectOption('#provider-roles-1-choice', 'caller');
    await page().click('#create-provider button[type=submit]');
    await see('#access-providers-panel .notice', `Created access provider auth0. Configure the identity provider to issue tokens with the audience ${audience}.`);
    const row = page().locator('#access-providers tbody tr[data-name="auth0"]');
    await row.locator('td.audience', { hasText: audience }).waitFor(STEP);
    await row.locator('td', { hasText: 'Role("customer") (with a predicate), Role("caller")' }).waitFor(STEP);
    const stored = (await app.query(q.Get(q.AccessProvider('auth0')))) as { roles: unknown[]; audience: string };
    assert.equal(stored.audience, audience);
    assert.equal(stored.roles.length, 2);
    await shot('security-06-access-provider');
  });

  await t.test("a function's role chosen among the database's roles; deleting the role names the keys, functions, providers and members losing it; dismissed, nothing is deleted", async () => {
    const key = (await app.query(q.CreateKey({ role: q.Role('customer'), data: { name: 'mobile' } }))) as { ref: { id: string } };
    await openTab('functions');
    await page().locator('#functions tbody tr[data-name="increment"]').click();
    await page().selectOption('#edit-function-role', 'role:customer');
    await page().click('#save-function button[type=submit]');
    await see('#functions-panel .notice', 'Saved function increment.');
    assert.equal(await page().locator('#functions tbody tr[data-name="increment"] td:nth-child(2)').textContent(), 'customer');
    const fn = (await app.query(q.Get(q.Function('increment')))) as { role: { id: string } };
    assert.equal(fn.role.id, 'customer', 'saved as Role("customer")');
    await openTab('roles');
    await page().locator('#roles tbody tr[data-name="customer"]').click();
    await page().locator('#delete-role').waitFor(STEP);
    let asked = confirmNext(false);
    await page().click('#delete-role');
    await waitFor('the confirmation', () => asked() !== '', STEP.timeout);
    assert.equal(
      asked(),
      `Delete role customer? These lose the access it gives: key ${key.ref.id} ("mobile"); function increment (runs with this role); access provider auth0 (the JWTs it accepts); ` +
        'the tokens of documents in users (members); the tokens of documents in orders (members). It cannot be undone.',
    );
    assert.equal(await app.query(q.Exists(q.Role('customer'))), true);
    asked = confirmNext();
    await page().click('#delete-role');
    await see('#roles-panel .notice', 'Deleted role customer.');
    assert.equal(await app.query(q.Exists(q.Role('customer'))), false);
  });

  await t.test('access providers and functions: deleted after a confirmation saying what stops working', async () => {
    await openTab('access-providers');
    let asked = confirmNext();
    await page().locator('#access-providers tbody tr[data-name="auth0"] button.delete').click();
    await see('#access-providers-panel .notice', 'Deleted access provider auth0.');
    assert.match(asked(), /^Delete access provider auth0\? Tokens issued by https:\/\/example\.eu\.auth0\.com\/ are refused from then on and lose the roles .*Role\("caller"\)\. It cannot be undone\.$/);
    await openTab('functions');
    await page().locator('#functions tbody tr[data-name="increment"]').click();
    asked = confirmNext();
    await page().click('#delete-function');
    await see('#functions-panel .notice', 'Deleted function increment.');
    assert.equal(asked(), 'Delete function increment? Every Call(Function("increment")) fails from then on. The roles caller lose their privilege to call it. It cannot be undone.');
    assert.equal(await app.query(q.Exists(q.Function('increment'))), false);
  });

  await t.test('a server key: functions work, roles and access providers are refused with the reason', async () => {
    const { secret } = (await app.query(q.CreateKey({ role: 'server' }))) as { secret: string };
    await page().click('#sign-out');
    await signIn(secret);
    await openTab('functions');
    await see('#functions caption', 'No functions yet');
    await see('#functions-panel .hint', "The database's own roles are not offered: Not allowed: the signed-in key's role cannot list roles");
    await openTab('roles');
    await see('#roles-panel .error', "Not allowed: the signed-in key's role cannot list roles");
    await openTab('access-providers');
    await see('#access-providers-panel .error', "Not allowed: the signed-in key's role cannot list access providers");
    await shot('security-07-server-key');
  });

  await t.test('a server-readonly key: creating a function is refused with the reason', async () => {
    const { secret } = (await app.query(q.CreateKey({ role: 'server-readonly' }))) as { secret: string };
    await page().click('#sign-out');
    await signIn(secret);
    await openTab('functions');
    await see('#functions caption', 'No functions yet');
    await page().fill('#new-function-name', 'nope');
    await page().fill('#new-function-body', 'Query(Lambda("x", Var("x")))');
    await page().click('#create-function button[type=submit]');
    await see('#functions-panel .error', "Not allowed: the signed-in key's role cannot create function nope");
    await shot('security-08-readonly-key');
  });

  await t.test('the page reported no errors and asked no other origin for anything', () => {
    // The refusals this test provoked (400 call error and duplicate, 403s) are logged by the browser as failed requests.
    const unexpected = ui.unexpectedErrors([400, 403]);
    assert.deepEqual(unexpected, []);
  });
});
