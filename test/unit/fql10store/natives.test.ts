// The native collections over a real store: functions (and calling them), roles, keys,
// databases, access providers, credentials, tokens; what v4 sees of them.

import { test } from 'node:test';
import { TestStore } from './harness';

test('natives: smoke', async () => {
  const s = await TestStore.open();
  try {
    console.log(await s.ok('Function.create({ name: "AddTwo", body: "x => x + 2" })'));
    console.log(await s.ok('AddTwo(3)'));
    console.log(await s.ok('AddTwo.definition'));
    console.log(await s.ok('Function.byName("AddTwo")!.update({ body: "x => x + 3" }); 1'));
    console.log(await s.ok('AddTwo(3)'));
    console.log(await s.ok('Function("AddTwo")(1)'));
    console.log(JSON.stringify(await s.query('Function("Nope")')));
    console.log(await s.ok('Role.create({ name: "r", privileges: [{ resource: "Collection", actions: { read: true } }] })'));
    console.log(await s.ok('Key.create({ role: "r" })'));
    console.log(await s.ok('Key.all().toArray()'));
    console.log(await s.ok('Database.create({ name: "child" })'));
    console.log(await s.ok('Database.all().toArray()'));
    console.log(await s.ok('Collection.create({ name: "User" }); User.create({ id: "1", name: "a" }); 1'));
    console.log(await s.ok('Credential.create({ document: User.byId("1"), password: "pw" })'));
    console.log(await s.ok('Credential.byDocument(User.byId("1"))!.verify("pw")'));
    console.log(await s.ok('Credential.byDocument(User.byId("1"))!.login("pw")'));
    console.log(JSON.stringify(await s.query('Credential.byDocument(User.byId("1"))!.login("bad")')));
    console.log(await s.ok('Token.byDocument(User.byId("1")).toArray()'));
    console.log(await s.ok('Query.identity()'));
  } finally {
    await s.close();
  }
});
