// Secrets must not leak: no key or token secret, root secret, password or password/secret hash in the
// query log, a log-export download, the server's own output, or an answer that had no business
// carrying it; and Get of a key, token or credentials shows exactly the fields Fauna showed
// (fql-v4.md §4.3: `hashed_secret`, never `secret`; `hashed_password`, never `password`).

import faunadb, { query as q } from 'faunadb';
import { httpRequest } from '../test/helpers/server';
import type { Exchange } from './accessOps';
import type { AccessSetup } from './accessWorld';

export interface Needles {
  secrets: string[];
  password: string;
  hashedPasswords: string[];
  hashedSecrets: string[];
}

/** Answers that may show a `hashed_secret` (Fauna's reads and creations of keys and tokens). */
const SHOWS_HASHED_SECRET = new Set(['get-key', 'key-from-secret', 'get-own-token', 'tokens-self', 'create-key', 'create-token', 'login', 'login-ref']);
/** Answers that may show a `hashed_password`: a token reading its identity's credentials. */
const SHOWS_HASHED_PASSWORD = new Set(['get-own-credentials']);

/** What in `text` must not be there: each needle found, named. */
export function found(text: string, needles: Needles): string[] {
  const out: string[] = [];
  for (const s of needles.secrets) if (text.includes(s)) out.push(`secret ${mask(s)}`);
  if (text.includes(needles.password)) out.push('the password');
  for (const h of needles.hashedPasswords) if (text.includes(h)) out.push(`hashed_password ${mask(h)}`);
  for (const h of needles.hashedSecrets) if (text.includes(h)) out.push(`hashed_secret ${mask(h)}`);
  return out;
}

/** A secret shown in a report: enough to recognise it, not enough to use it. */
export function mask(s: string): string {
  return s.length <= 12 ? `${s.slice(0, 3)}…` : `${s.slice(0, 8)}…${s.slice(-3)}`;
}

/**
 * Leaks in the answers: a secret, but one the request's body carried (KeyFromSecret's error echoes its
 * argument, as Fauna's did) — never the secret of the Authorization header —, the password, a hash
 * where Fauna showed none (every error, and every operation that does not read or create a key, token
 * or credentials).
 */
export function answerLeaks(exchanges: readonly Exchange[], needles: Needles): string[] {
  const out: string[] = [];
  for (const x of exchanges) {
    const ok = x.status >= 200 && x.status < 300;
    const bad = found(x.body, {
      secrets: needles.secrets.filter((s) => !x.request.includes(s)),
      password: needles.password,
      hashedPasswords: ok && SHOWS_HASHED_PASSWORD.has(x.op) ? [] : needles.hashedPasswords,
      hashedSecrets: ok && SHOWS_HASHED_SECRET.has(x.op) ? [] : needles.hashedSecrets,
    });
    for (const b of bad) out.push(`${x.subject} × ${x.op} (${x.transport}, ${x.status}) answered with ${b}`);
  }
  return out;
}

type Fields = Record<string, unknown>;

/** The hashes stored in a database (read as its admin), for the needles. */
export async function storedHashes(admin: faunadb.Client): Promise<{ hashedPasswords: string[]; hashedSecrets: string[] }> {
  const all = (coll: faunadb.ExprArg) => q.Select('data', q.Map(q.Paginate(coll, { size: 100000 }), q.Lambda('r', q.Get(q.Var('r')))));
  const [creds, keys, tokens] = (await admin.query([all(q.Credentials()), all(q.Keys()), all(q.Tokens())])) as Fields[][];
  return {
    hashedPasswords: creds.map((c) => String(c.hashed_password)),
    hashedSecrets: [...keys, ...tokens].map((k) => String(k.hashed_secret)),
  };
}

/** Fields beyond what Fauna showed, or missing hashes, in reads of keys, tokens and credentials. */
export async function shapeLeaks(url: string, setup: AccessSetup, root: faunadb.Client, token: faunadb.Client, tokenSecret: string): Promise<string[]> {
  const out: string[] = [];
  const check = (what: string, doc: Fields, allowed: string[], must: string[]) => {
    const extra = Object.keys(doc).filter((k) => !allowed.includes(k));
    const missing = must.filter((k) => !(k in doc));
    if (extra.length) out.push(`${what} shows ${extra.join(', ')}`);
    if (missing.length) out.push(`${what} lacks ${missing.join(', ')}`);
  };
  const KEY = ['ref', 'ts', 'role', 'database', 'priority', 'data', 'ttl', 'hashed_secret'];
  const TOKEN = ['ref', 'ts', 'instance', 'data', 'ttl', 'hashed_secret'];
  const CREDENTIALS = ['ref', 'ts', 'instance', 'hashed_password'];
  const attempt = async (what: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (e) {
      out.push(`${what} failed: ${String(e).slice(0, 200)}`);
    }
  };
  const getAll = (set: faunadb.ExprArg) => q.Select('data', q.Map(q.Paginate(set, { size: 100000 }), q.Lambda('r', q.Get(q.Var('r')))));
  await attempt('Get of a key', async () => check('Get of a key', (await root.query(q.Get(setup.top.key.ref))) as Fields, KEY, ['hashed_secret']));
  await attempt('KeyFromSecret', async () => check('KeyFromSecret', (await root.query(q.KeyFromSecret(setup.top.key.secret))) as Fields, KEY, ['hashed_secret']));
  await attempt('Paginate(Keys()) then Get', async () => {
    for (const k of (await root.query(getAll(q.Keys()))) as Fields[]) check('Paginate(Keys()) then Get', k, KEY, ['hashed_secret']);
  });
  await attempt('Paginate(Tokens()) then Get', async () => {
    const tokens = (await root.query(getAll(q.Tokens()))) as Fields[];
    if (!tokens.length) out.push('no token to check');
    for (const t of tokens) check('Get of a token', t, TOKEN, ['hashed_secret']);
  });
  await attempt('Paginate(Credentials()) then Get', async () => {
    const creds = (await root.query(getAll(q.Credentials()))) as Fields[];
    if (!creds.length) out.push('no credentials to check');
    for (const c of creds) check('Get of credentials', c, CREDENTIALS, ['hashed_password']);
  });
  await attempt('Get of credentials/self', async () => check('Get of credentials/self', (await token.query(q.Get(q.Ref('credentials/self')))) as Fields, CREDENTIALS, ['hashed_password']));
  await attempt('Get of tokens/self', async () => check('Get of tokens/self', (await token.query(q.Get(q.Ref('tokens/self')))) as Fields, TOKEN, ['hashed_secret']));
  await attempt('Get of an identity document', async () => check('Get of an identity document', (await root.query(q.Get(setup.top.M))) as Fields, ['ref', 'ts', 'data', 'ttl'], []));
  // Login and CreateKey show the new secret once; Login omits the hash (fql-v4.md §4.3).
  await attempt('Login', async () => check('Login', (await root.query(q.Login(setup.top.M, { password: setup.password }))) as Fields, ['ref', 'ts', 'instance', 'data', 'ttl', 'secret'], ['secret']));
  await attempt('CreateKey', async () => check('CreateKey', (await root.query(q.CreateKey({ role: 'client' }))) as Fields, [...KEY, 'secret'], ['secret', 'hashed_secret']));
  await attempt('/tokens/self', async () => {
    const self = await httpRequest(url, { path: '/tokens/self', headers: { authorization: `Bearer ${tokenSecret}` } });
    if (self.status !== 200) out.push(`/tokens/self answered ${self.status}`);
    else check('/tokens/self', (JSON.parse(self.body) as { resource: Fields }).resource, ['ref', 'ts', 'instance', 'hashed_secret'], ['ref', 'ts', 'instance', 'hashed_secret']);
  });
  return out;
}
