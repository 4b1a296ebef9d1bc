// Revocation takes effect at once, in every process: a secret that worked a moment ago (and so sits
// in each process's cache of resolved secrets) is refused by the very next request once it is revoked
// — a deleted key, a key whose ttl is moved into the past, a token logged out, deleted, or whose
// identity is deleted, a key of a deleted database — and a token whose membership predicate turns
// false loses its role's privileges at once. Run on a tier of processes sharing one store; each
// request after the revocation carries its transaction time (X-Last-Seen-Txn), as a driver that saw it
// sends it.

import faunadb, { query as q } from 'faunadb';
import { ClientPool, httpRequest, startFlora, type FloraProcess } from '../test/helpers/server';

export interface RevocationCase {
  name: string;
  /** Requests answered as before after the revocation (must be 0). */
  accepted: number;
  requests: number;
}

/** Requests a secret makes before and after its revocation; each on a new connection, to reach every process. */
const WARM = 12;
const AFTER = 24;

type Doc = { ref: faunadb.values.Ref; secret: string };

async function status(url: string, secret: string, fql: unknown, lastSeen?: number): Promise<number> {
  const headers: Record<string, string> = { authorization: `Bearer ${secret}` };
  if (lastSeen !== undefined) headers['x-last-seen-txn'] = String(lastSeen);
  const res = await httpRequest(url, { method: 'POST', headers, body: JSON.stringify(fql) });
  return res.status;
}

export async function runRevocations(workers: number, password: string): Promise<{ cases: RevocationCase[]; problems: string[] }> {
  const srv: FloraProcess = await startFlora({ args: ['--workers', String(workers)] });
  const pool = new ClientPool(srv.url);
  const root = pool.client(srv.secret);
  const cases: RevocationCase[] = [];
  const problems: string[] = [];
  try {
    await root.query(q.Do(q.CreateCollection({ name: 'people' }), q.CreateCollection({ name: 'notes' }), q.CreateDatabase({ name: 'doomed' })));
    await root.query(
      q.CreateRole({
        name: 'active_people',
        membership: [{ resource: q.Collection('people'), predicate: q.Query(q.Lambda('r', q.Select(['data', 'active'], q.Get(q.Var('r')), false))) }],
        privileges: [{ resource: q.Collection('notes'), actions: { read: true } }],
      }),
    );
    const note = (await root.query(q.Create(q.Collection('notes'), { data: { n: 1 } }))) as Doc;
    const person = async () => (await root.query(q.Create(q.Collection('people'), { data: { active: true }, credentials: { password } }))) as Doc;
    const login = async (who: Doc) => (await root.query(q.Login(who.ref, { password }))) as Doc;
    const key = async (params: Record<string, unknown>) => (await root.query(q.CreateKey(params))) as Doc;
    const readNote = JSON.parse(JSON.stringify(q.Get(note.ref))) as unknown;

    /** Warms `secret` up (every answer `okStatus`), revokes it, then counts answers still `okStatus`. */
    const check = async (name: string, secret: string, revoke: () => Promise<unknown>, fql: unknown = { paginate: { collections: null } }, okStatus = 200, by: faunadb.Client = root) => {
      for (let i = 0; i < WARM; i++) {
        const s = await status(srv.url, secret, fql);
        if (s !== okStatus) throw new Error(`${name}: answered ${s} before the revocation`);
      }
      await revoke();
      // As a client that saw the revocation: read-only requests are serializable snapshots
      // (DECISIONS #10), so only a request that names the revocation's time must see it everywhere.
      // The time of the revocation is what the client that made it saw (a token logs itself out).
      const lastOf = (c: faunadb.Client) => (c as unknown as { getLastTxnTime(): number }).getLastTxnTime() ?? 0;
      const seen = Math.max(lastOf(root), lastOf(by));
      let accepted = 0;
      for (let i = 0; i < AFTER; i++) if ((await status(srv.url, secret, fql, seen)) === okStatus) accepted++;
      cases.push({ name, accepted, requests: AFTER });
      if (accepted) problems.push(`${name}: ${accepted} of ${AFTER} requests after the revocation were answered as before`);
    };

    const k1 = await key({ role: 'server' });
    await check('deleted key', k1.secret, () => root.query(q.Delete(k1.ref)));
    const k2 = await key({ role: 'server' });
    await check('key whose ttl is moved into the past', k2.secret, () => root.query(q.Update(k2.ref, { ttl: q.TimeSubtract(q.Now(), 1, 'second') })));
    const k3 = await key({ role: 'admin', database: q.Database('doomed') });
    await check('key of a deleted database', k3.secret, () => root.query(q.Delete(q.Database('doomed'))));
    const p1 = await person();
    const t1 = await login(p1);
    const self = pool.client(t1.secret);
    await check('token after Logout(false)', t1.secret, () => self.query(q.Logout(false)), readNote, 200, self);
    const t2 = await login(p1);
    const t3 = await login(p1);
    const sibling = pool.client(t3.secret);
    await check('token after Logout(true) by another token', t2.secret, () => sibling.query(q.Logout(true)), readNote, 200, sibling);
    const t4 = await login(p1);
    await check('token deleted by an admin', t4.secret, () => root.query(q.Delete(t4.ref)), readNote);
    const p2 = await person();
    const t5 = await login(p2);
    await check('token whose identity is deleted', t5.secret, () => root.query(q.Delete(p2.ref)), readNote);
    const p3 = await person();
    const t6 = await login(p3);
    await check('token whose membership predicate turns false', t6.secret, () => root.query(q.Update(p3.ref, { data: { active: false } })), readNote);
    const p4 = await person();
    await check('@doc scoped secret whose document is deleted', `${srv.secret}:@doc/people/${p4.ref.id}`, () => root.query(q.Delete(p4.ref)), readNote);
  } finally {
    await pool.close();
    await srv.stop('SIGKILL');
  }
  return { cases, problems };
}
