// v10 collection definitions through v4 (issue 32, "one store, two languages"): CreateCollection
// stores the v10 fields, unique constraints and indexes are real hidden indexes maintained on
// every write, defined fields are enforced on v4 writes, and v4 Update/Replace keep the definition.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q } from 'faunadb';
import { startFlora, clients, type FloraProcess, type DriverClients } from '../helpers/server';

let srv: FloraProcess;
let c: DriverClients;

before(async () => {
  srv = await startFlora();
  c = clients(srv.url, srv.secret);
});
after(async () => {
  await c.close();
  await srv.stop();
});

/** The error code and description of a refused query. */
async function refused(expr: unknown): Promise<{ code: string; description: string }[]> {
  try {
    await c.h2.query(expr as never);
  } catch (e) {
    const errors = (e as { requestResult: { responseContent: { errors: { code: string; description: string }[] } } }).requestResult.responseContent.errors;
    return errors.map(({ code, description }) => ({ code, description }));
  }
  assert.fail('query succeeded');
}

describe('a collection with a v10 definition, through v4', () => {
  before(async () => {
    await c.h2.query(
      q.CreateCollection({
        name: 'People',
        fields: { name: { signature: 'String' }, age: { signature: 'Int?' } },
        indexes: { byName: { terms: [{ field: '.name' }] } },
        constraints: [{ unique: ['.name'] }],
      }),
    );
  });

  test('Get shows the definition but not its backing indexes', async () => {
    const coll = (await c.h2.query(q.Get(q.Collection('People')))) as Record<string, unknown>;
    assert.deepEqual(coll.fields, { name: { signature: 'String' }, age: { signature: 'Int?' } });
    assert.deepEqual(coll.constraints, [{ unique: ['.name'] }]);
    assert.equal(coll.backingIndexes, undefined);
    const indexes = (await c.h2.query(q.Paginate(q.Indexes()))) as { data: unknown[] };
    assert.equal(indexes.data.length, 0);
  });

  test('defined fields are enforced on v4 writes', async () => {
    assert.deepEqual(await refused(q.Create(q.Collection('People'), { data: {} })), [
      { code: 'schema validation failed', description: 'name: Missing required field of type String' },
    ]);
    assert.deepEqual(await refused(q.Create(q.Collection('People'), { data: { name: 3 } })), [
      { code: 'schema validation failed', description: 'name: Expected String, provided Int' },
    ]);
    assert.deepEqual(await refused(q.Create(q.Collection('People'), { data: { name: 'x', foo: 'bar' } })), [
      { code: 'schema validation failed', description: 'foo: Unexpected field provided' },
    ]);
  });

  test('a unique constraint refuses a second document with the same value', async () => {
    await c.h2.query(q.Create(q.Collection('People'), { data: { name: 'Ann', age: 3 } }));
    assert.deepEqual(await refused(q.Create(q.Collection('People'), { data: { name: 'Ann' } })), [
      { code: 'instance not unique', description: 'document is not unique.' },
    ]);
    await c.h2.query(q.Create(q.Collection('People'), { data: { name: 'Bob' } }));
  });

  test('v4 Update and Replace keep the v10 definition', async () => {
    await c.h2.query(q.Update(q.Collection('People'), { data: { x: 1 }, constraints: [] }));
    await c.h2.query(q.Replace(q.Collection('People'), { name: 'People', history_days: 0 }));
    const coll = (await c.h2.query(q.Get(q.Collection('People')))) as Record<string, unknown>;
    assert.deepEqual(coll.constraints, [{ unique: ['.name'] }]);
    assert.deepEqual(Object.keys(coll.indexes as object), ['byName']);
    assert.deepEqual(await refused(q.Create(q.Collection('People'), { data: { name: 'Bob' } })), [
      { code: 'instance not unique', description: 'document is not unique.' },
    ]);
  });

  test('an invalid definition is refused with each failure', async () => {
    const errs = await refused(
      q.CreateCollection({
        name: 'Bad',
        indexes: { byX: { terms: [{ field: '.ts' }] }, all: { values: [] } },
        constraints: [{ unique: ['.a'] }, { unique: ['.a'] }],
      }),
    );
    assert.deepEqual(errs, [
      { code: 'schema validation failed', description: 'indexes.byX.terms[0].field: `ts` may only be used as an index value, not as an index term.' },
      { code: 'schema validation failed', description: 'indexes: The name \'all\' is reserved.' },
      { code: 'schema validation failed', description: 'constraints: Duplicate unique constraint on path [.a]' },
    ]);
  });

  test('check constraints, computed fields and defaults run on v4 writes (the v10 language serves the schema)', async () => {
    await c.h2.query(
      q.CreateCollection({
        name: 'Orders',
        fields: { qty: { signature: 'Int' }, status: { signature: 'String', default: '"new"' } },
        computed_fields: { double: { body: '(o) => o.qty * 2' } },
        constraints: [{ check: { name: 'positive', body: '(o) => o.qty > 0' } }],
      }),
    );
    const made = (await c.h2.query(q.Create(q.Collection('Orders'), { data: { qty: 3 } }))) as { data: Record<string, unknown> };
    assert.deepEqual(made.data, { qty: 3, status: 'new' }, 'the default filled in; a computed field is not stored');
    assert.deepEqual(await refused(q.Create(q.Collection('Orders'), { data: { qty: 0 } })), [
      { code: 'check constraint failure', description: 'Document failed check constraint `positive`' },
    ]);
    assert.deepEqual(await refused(q.Create(q.Collection('Orders'), { data: { qty: 1, double: 2 } })).then((e) => e.length), 1, 'a computed field cannot be written');
  });

  test('deleting the collection deletes its backing indexes', async () => {
    await c.h2.query(q.CreateCollection({ name: 'Gone', constraints: [{ unique: ['.k'] }] }));
    await c.h2.query(q.Delete(q.Collection('Gone')));
    await c.h2.query(q.CreateCollection({ name: 'Gone' }));
    await c.h2.query(q.Create(q.Collection('Gone'), { data: { k: 1 } }));
    await c.h2.query(q.Create(q.Collection('Gone'), { data: { k: 1 } }));
  });
});
