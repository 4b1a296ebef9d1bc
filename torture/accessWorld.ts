// The world the access matrix runs in: one server; in its top database and in database `child` the
// same collections, index, functions, role, GraphQL schema, users and documents; a `sibling` database
// with one document; and a secret of every kind in torture/accessMatrix.ts.

import faunadb, { query as q } from 'faunadb';
import { ClientPool, httpRequest, type FloraProcess } from '../test/helpers/server';

type Ref = faunadb.values.Ref;
type Doc = { ref: Ref; ts: number; secret?: string; hashed_secret?: string };

export const GQL_SCHEMA = 'type Gnote { text: String! }\ntype Query { allGnotes: [Gnote!] }\n';

/** What each database holds, as refs relative to it. */
export interface World {
  /** Identities: M (member, active), I (member, inactive), L (in no role's membership). */
  M: Ref;
  I: Ref;
  L: Ref;
  /** `things` owned by M, by L, and one whose history is rewritten. */
  mine: Doc;
  theirs: Doc;
  historic: Doc;
  /** A server key of this database (for Get and KeyFromSecret). */
  key: Doc & { secret: string };
}

export interface AccessSetup {
  top: World;
  child: World;
  /** A document of database `sibling`, and its collection. */
  siblingDoc: Ref;
  /** Secret of each subject of the matrix (none: undefined). */
  secrets: Map<string, string | undefined>;
  /** The database each live subject acts in. */
  worldOf: Map<string, World>;
  password: string;
  /** Every secret created, for the leak checks (dead ones included). */
  allSecrets: string[];
  /** An export the root asked for (logs-poll-root). */
  rootExportId: string;
}

const owner = (r: Ref) => ({ data: { owner: r } });
const ownerOf = (doc: faunadb.ExprArg) => q.Select(['data', 'owner'], doc, null);

/** Builds one world in the database `c` acts in (`secret` is the same database's admin secret). */
async function buildWorld(url: string, c: faunadb.Client, secret: string, password: string): Promise<World> {
  await c.query(q.Do(q.CreateCollection({ name: 'things' }), q.CreateCollection({ name: 'members' }), q.CreateCollection({ name: 'loners' })));
  await c.query(
    q.Do(
      q.CreateIndex({ name: 'things_all', source: q.Collection('things') }),
      q.CreateIndex({ name: 'members_by_email', source: q.Collection('members'), terms: [{ field: ['data', 'email'] }], unique: true, permissions: { read: 'public' } }),
      q.CreateFunction({ name: 'plain_fn', body: q.Query(q.Lambda('x', [q.Var('x')])) }),
      q.CreateFunction({ name: 'server_fn', role: 'server', body: q.Query(q.Lambda('r', q.Select('ts', q.Get(q.Var('r'))))) }),
      q.CreateFunction({ name: 'public_fn', body: q.Query(q.Lambda('x', q.Var('x'))), permissions: { call: 'public' } }),
    ),
  );
  const imported = await httpRequest(url, { method: 'POST', path: '/import?mode=merge', headers: { authorization: `Bearer ${secret}` }, body: GQL_SCHEMA });
  if (imported.status !== 200) throw new Error(`schema import failed: ${imported.status} ${imported.body}`);
  const own = (arity: 1 | 2) =>
    arity === 1
      ? q.Query(q.Lambda('r', q.Equals(ownerOf(q.Get(q.Var('r'))), q.CurrentIdentity())))
      : q.Query(q.Lambda(['old', 'new'], q.And(q.Equals(ownerOf(q.Var('old')), q.CurrentIdentity()), q.Equals(ownerOf(q.Var('new')), q.CurrentIdentity()))));
  await c.query(
    q.CreateRole({
      name: 'member',
      membership: [{ resource: q.Collection('members'), predicate: q.Query(q.Lambda('r', q.Select(['data', 'active'], q.Get(q.Var('r')), false))) }],
      privileges: [
        {
          resource: q.Collection('things'),
          actions: {
            read: own(1),
            history_read: own(1),
            write: own(2),
            delete: own(1),
            create: q.Query(q.Lambda('new', q.Equals(ownerOf(q.Var('new')), q.CurrentIdentity()))),
          },
        },
        { resource: q.Index('things_all'), actions: { read: true } },
        { resource: q.Function('plain_fn'), actions: { call: true } },
        { resource: q.Function('server_fn'), actions: { call: true } },
        { resource: q.Collection('Gnote'), actions: { read: true } },
        { resource: q.Index('allGnotes'), actions: { read: true } },
        { resource: q.Collection('members'), actions: { read: q.Query(q.Lambda('r', q.Equals(q.Var('r'), q.CurrentIdentity()))) } },
      ],
    }),
  );
  const user = (coll: string, email: string, active: boolean) =>
    q.Create(q.Collection(coll), { data: { email, active }, credentials: { password } });
  const [M, I, L] = (await c.query([user('members', 'm@example.com', true), user('members', 'i@example.com', false), user('loners', 'l@example.com', false)])) as Doc[];
  const [mine, theirs, historic] = (await c.query([
    q.Create(q.Collection('things'), owner(M.ref)),
    q.Create(q.Collection('things'), owner(L.ref)),
    q.Create(q.Collection('things'), owner(M.ref)),
  ])) as Doc[];
  await c.query(q.Create(q.Collection('Gnote'), { data: { text: 'hello' } }));
  const key = (await c.query(q.CreateKey({ role: 'server' }))) as Doc & { secret: string };
  return { M: M.ref, I: I.ref, L: L.ref, mine, theirs, historic, key };
}

/** Sets up the world and a secret of every kind on `srv` (whose root secret is `srv.secret`). */
export async function setUpAccess(srv: FloraProcess, pool: ClientPool, password: string): Promise<AccessSetup> {
  const root = pool.client(srv.secret);
  await root.query(q.Do(q.CreateDatabase({ name: 'child' }), q.CreateDatabase({ name: 'sibling' })));
  const childAdmin = `${srv.secret}:child:admin`;
  await pool.client(childAdmin).query(q.CreateDatabase({ name: 'grandchild' }));
  const top = await buildWorld(srv.url, root, srv.secret, password);
  const child = await buildWorld(srv.url, pool.client(childAdmin), childAdmin, password);
  const sibling = pool.client(`${srv.secret}:sibling:admin`);
  await sibling.query(q.CreateCollection({ name: 'things' }));
  const siblingDoc = ((await sibling.query(q.Create(q.Collection('things'), { data: { n: 1 } }))) as Doc).ref;

  const createKey = async (params: Record<string, unknown>) => ((await root.query(q.CreateKey(params))) as Doc & { secret: string }).secret;
  const login = async (who: Ref, params: Record<string, unknown> = {}) => ((await root.query(q.Login(who, { password, ...params }))) as Doc & { secret: string }).secret;
  const secrets = new Map<string, string | undefined>();
  secrets.set('root', srv.secret);
  for (const role of ['admin', 'server', 'server-readonly', 'client', 'member']) {
    secrets.set(role === 'server-readonly' ? 'readonly' : role === 'member' ? 'rolekey' : role, await createKey({ role }));
  }
  secrets.set('token-none', await login(top.L));
  secrets.set('token-role', await login(top.M));
  secrets.set('token-inactive', await login(top.I));
  secrets.set('child-admin', childAdmin);
  secrets.set('child-server', `${srv.secret}:child:server`);
  secrets.set('doc', `${srv.secret}:@doc/members/${top.M.id}`);
  secrets.set('role', `${srv.secret}:@role/member`);
  const childKey = await createKey({ role: 'admin', database: q.Database('child') });
  secrets.set('child-key', childKey);
  secrets.set('child-key-sibling', `${childKey}:sibling:admin`);
  const deleted = (await root.query(q.CreateKey({ role: 'admin' }))) as Doc & { secret: string };
  await root.query(q.Delete(deleted.ref));
  secrets.set('deleted-key', deleted.secret);
  secrets.set('expired-key', await createKey({ role: 'admin', ttl: q.TimeSubtract(q.Now(), 1, 'hour') }));
  const out = await login(top.M);
  await pool.client(out).query(q.Logout(false));
  secrets.set('logged-out', out);
  secrets.set('expired-token', await login(top.M, { ttl: q.TimeSubtract(q.Now(), 1, 'hour') }));
  // Base64url with characters outside the alphabet: no key or token can have it.
  secrets.set('malformed', 'fnA!!not*a*secret!!');
  secrets.set('none', undefined);

  const worldOf = new Map<string, World>();
  for (const [id] of secrets) worldOf.set(id, id.startsWith('child-') && id !== 'child-key-sibling' ? child : top);

  const now = Date.now();
  const exp = await httpRequest(srv.url, {
    method: 'POST',
    path: '/api/v1/logs?type=query',
    headers: { authorization: `Bearer ${srv.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ region_group: 'us-std', time_start: new Date(now - 3_600_000).toISOString(), time_end: new Date(now - 1_800_000).toISOString() }),
  });
  if (exp.status !== 200) throw new Error(`export request failed: ${exp.status} ${exp.body}`);
  const rootExportId = (JSON.parse(exp.body) as { request_id: string }).request_id;

  const allSecrets = [...secrets.values(), top.key.secret, child.key.secret].filter((s): s is string => s !== undefined && s !== 'fnA!!not*a*secret!!');
  return { top, child, siblingDoc, secrets, worldOf, password, allSecrets, rootExportId };
}
