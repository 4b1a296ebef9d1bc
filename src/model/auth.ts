// Authentication: Authorization header → secret → Scope (the database a request acts in, and
// with which built-in role). Resolutions are cached by secret; the cache is dropped whenever keys or
// any schema change. A key or token secret is checked against the fast check in its location record
// (secrets.ts); only a record written before checks existed needs BCrypt, whose failures are
// throttled per key or token, and whose first success writes the check.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { DocKey, Txn } from '../storage/types';
import type { Catalog } from './catalog';
import { namedIn } from './refNames';
import { pathOfDatabase } from './databases';
import { NATIVE_IDS } from './catalog';
import { decodeSecret, NOT_CHARGED, verifySecret, type DecodedSecret } from './secrets';
import { decodeSecretLocation, secretLocationKey, secretMatches, type LearnedCheck } from './secretLocation';
import { TokenBuckets } from './tokenBuckets';
import { roleIdsOf } from './permissions';
import { Ref, Time, type Obj, type Value } from '../values/types';
import { JwtVerifier, looksLikeJwt } from './jwt'; // JWT hook (access providers)
import type { JwksCache } from './jwks/cache';

import { BUILTIN_ROLES, type BuiltinRole } from './roleActions';

export { BUILTIN_ROLES, type BuiltinRole };

export function isBuiltinRole(s: unknown): s is BuiltinRole {
  return typeof s === 'string' && (BUILTIN_ROLES as readonly string[]).includes(s);
}

export interface Scope {
  /** Scope id of the database the request acts in (0 = the top database). */
  db: bigint;
  /** Names of that database from the top. */
  path: string[];
  role: BuiltinRole;
  root: boolean;
  /** The key used (its address), when authenticated with a key. */
  key?: { db: bigint; id: bigint };
  /** The key's or token's `ttl` in µs: from then on the secret is refused. */
  expiresAt?: bigint;
  /** The token used (its address), when authenticated with a token. */
  token?: { db: bigint; id: bigint };
  /** The identity document (relative to `db`) of a token. */
  identity?: Ref;
  /** Id of the identity's credentials document when the scope was resolved (a token may read it). */
  credentials?: bigint;
  /** Set for a key scoped to `@doc/…`: it acts as `identity`, with that identity's membership roles. */
  docScoped?: boolean;
  /** User-defined roles (internal ids in `db`) that replace `role`: a key whose `role` names roles,
   * an `@role/<name>` scoped secret, or a UDF with such a role. Tokens get theirs by membership. */
  roles?: bigint[];
  // --- JWT hook (access providers, model/jwt.ts) ---
  /** Set when authenticated with a JWT: its subject and payload (CurrentIdentity/CurrentToken). */
  jwt?: { sub?: string; payload: Obj };
  /** The access provider's `roles` (role refs or {role, predicate}) for the roles code to map. */
  jwtRoles?: Value[];
  // --- end JWT hook ---
}

export const TOP_DB = 0n;

/** Meta key: identity document → id of its credentials document (in the same database). */
export function credentialsLocationKey(identity: DocKey): Uint8Array {
  const b = Buffer.alloc(27);
  b.write('credof:', 0, 'latin1');
  b.writeBigUInt64BE(BigInt.asUintN(64, identity.db), 7);
  b.writeUInt32BE(identity.coll, 15);
  b.writeBigUInt64BE(identity.id, 19);
  return b;
}

/** The storage address of a user document ref (relative to database `db`), or undefined. */
export async function identityKey(catalog: Catalog, txn: Txn, db: bigint, ref: Ref, ownWrites = false): Promise<DocKey | undefined> {
  if (ref.addr) {
    const { db: at, coll, id } = ref.addr;
    if (at !== db || ref.dangling || !(await catalog.schema(txn, db, ownWrites)).getById('collections', BigInt(coll))) return undefined;
    return { db, coll, id };
  }
  if (!ref.isUserDocument || ref.collection!.database || !/^\d+$/.test(ref.id)) return undefined;
  const coll = (await catalog.schema(txn, db, ownWrites)).get('collections', ref.collection!.id);
  if (!coll) return undefined;
  return { db, coll: Number(coll.id), id: BigInt(ref.id) };
}

/** True when the identity document exists (not deleted, ttl not passed) at the snapshot. */
export async function identityExists(catalog: Catalog, txn: Txn, db: bigint, ref: Ref, ownWrites = false): Promise<boolean> {
  const key = await identityKey(catalog, txn, db, ref, ownWrites);
  if (!key) return false;
  const v = await txn.getVersion(key);
  if (!v || v.action === 'delete') return false;
  const ttl = v.data?.get('ttl');
  return !(ttl instanceof Time && ttl.micros <= txn.snapshotTs);
}

export function encodeDbId(db: bigint): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(db);
  return b;
}

/** Extracts the secret from `Bearer s` or `Basic base64(s:)`. */
export function secretFromHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^(\w+)\s+(.*)$/s.exec(header.trim());
  if (!m) return undefined;
  const scheme = m[1].toLowerCase();
  if (scheme === 'bearer') return m[2].trim() || undefined;
  if (scheme === 'basic') {
    const decoded = Buffer.from(m[2].trim(), 'base64').toString('utf8');
    const s = decoded.endsWith(':') ? decoded.slice(0, -1) : decoded;
    return s || undefined;
  }
  return undefined;
}

/** Secrets longer than this are resolved every time rather than cached. */
const MAX_CACHED_SECRET = 512;

/**
 * BCrypt verifications of one key or token without a fast check (written before them): a burst,
 * then one every 2 s. A forged secret against such a key costs two BCrypt runs at most that often;
 * the key's first successful use writes its check, and from then on BCrypt is not needed.
 */
const LEGACY_VERIFY_RATE = { burst: 8, perMinute: 30 };

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export class Authenticator {
  private readonly cache = new Map<string, Scope>();
  private generation = 0;
  /** The newest commit that invalidated: a resolution read at an older snapshot is not kept. */
  private invalidatedAt = 0n;
  /** JWT hook: verifies `ey…` bearer secrets against access providers. */
  readonly jwt: JwtVerifier;
  /** SHA-256 of the root secret: secrets are compared with it in constant time. */
  private readonly rootDigest: Buffer;
  /** BCrypt verifications left per key or token without a fast check. */
  private readonly legacyVerifies = new TokenBuckets(LEGACY_VERIFY_RATE);
  /** BCrypt verifications under way, by secret: concurrent first uses share one (one run, one token). */
  private readonly verifying = new Map<string, Promise<boolean>>();

  constructor(
    private readonly rootSecret: string,
    private readonly catalog: Catalog,
    /** Stores a check learned from a BCrypt verification (in its own transaction). */
    private readonly learn: (learned: LearnedCheck) => void,
    jwks: JwksCache,
  ) {
    this.jwt = new JwtVerifier(catalog, jwks); // JWT hook
    this.rootDigest = sha256(rootSecret);
  }

  /** Drops every cached resolution (keys or databases changed by a commit at `ts`). */
  invalidate(ts = 0n): void {
    if (ts > this.invalidatedAt) this.invalidatedAt = ts;
    this.generation++;
    this.cache.clear();
    this.jwt.invalidate(); // JWT hook
  }

  /**
   * True when the secret's resolution is cached and needs no read to stand (a key, or a scope of
   * one, whose ttl has not passed by `now`): a check before work can skip a transaction.
   */
  knownGood(secret: string, now: bigint): boolean {
    const hit = this.cache.get(secret);
    return hit !== undefined && !hit.token && !hit.identity && (hit.expiresAt === undefined || hit.expiresAt > now);
  }

  /** Resolves a secret to a Scope, or undefined (→ 401). */
  async authenticate(secret: string, txn: Txn): Promise<Scope | undefined> {
    const hit = this.cache.get(secret);
    if (hit && (hit.expiresAt === undefined || hit.expiresAt > txn.snapshotTs)) {
      if (hit.token) return (await this.tokenStillValid(hit, txn)) ? hit : undefined;
      // An `@doc/…` scope needs its identity document to still exist.
      if (hit.identity) return (await identityExists(this.catalog, txn, hit.db, hit.identity)) ? hit : undefined;
      return hit;
    }
    if (hit) return undefined;
    const gen = this.generation;
    // JWT hook: `ey…` secrets containing '.' are JWTs (access providers, model/jwt.ts).
    const scope = looksLikeJwt(secret) ? await this.jwt.verify(secret, txn) : await this.resolve(secret, txn);
    // A long secret (a valid one with a made-up suffix) is not kept: the cache stays small.
    if (scope && gen === this.generation && txn.snapshotTs >= this.invalidatedAt && secret.length <= MAX_CACHED_SECRET) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(secret, scope);
    }
    return scope;
  }

  private async resolve(secret: string, txn: Txn): Promise<Scope | undefined> {
    let base: Scope | undefined;
    let rest: string[];
    if (this.isRoot(secret)) {
      base = { db: 0n, path: [], role: 'admin', root: true };
      rest = secret.length === this.rootSecret.length ? [] : secret.slice(this.rootSecret.length + 1).split(':');
    } else {
      const [head, ...tail] = secret.split(':');
      // Tokens ignore any scope suffix.
      if (decodeSecret(head)?.kind === 'token') return this.resolveToken(head, txn);
      base = await this.resolveKey(head, txn);
      rest = tail;
    }
    if (!base) return undefined;
    return this.applyScope(base, rest, txn);
  }

  /** The root secret, alone or with a `:…` scope: compared in constant time (over digests). */
  private isRoot(secret: string): boolean {
    const n = this.rootSecret.length;
    const same = timingSafeEqual(sha256(secret.slice(0, n)), this.rootDigest);
    return same && (secret.length === n || secret[n] === ':');
  }

  private async resolveKey(secret: string, txn: Txn): Promise<Scope | undefined> {
    const doc = await this.secretDocument(txn, secret, 'key');
    if (!doc) return undefined;
    const { db: keyDb, fields, expiresAt } = doc;
    const roleField = fields.get('role');
    let role: BuiltinRole = 'client';
    let roles: bigint[] | undefined;
    if (isBuiltinRole(roleField)) role = roleField;
    else {
      // A role name, role ref or array of them: exactly those roles' privileges, in the key's database.
      if (fields.get('database') instanceof Ref) return undefined;
      const schema = await this.catalog.schema(txn, keyDb, false);
      roles = roleIdsOf(roleField, (name) => schema.get('roles', name)?.id);
      if (!roles) return undefined;
    }
    let db = keyDb;
    let path = await pathOfDatabase(this.catalog, txn, keyDb);
    if (!path) return undefined;
    const dbRef = fields.get('database');
    if (dbRef instanceof Ref) {
      // By address: the key follows its database through renames and moves.
      if (!dbRef.addr) return undefined;
      db = dbRef.addr.id;
      path = await pathOfDatabase(this.catalog, txn, db);
      if (!path) return undefined;
    }
    return { db, path, role, root: false, key: { db: keyDb, id: doc.id }, expiresAt, ...(roles ? { roles } : {}) };
  }

  private async resolveToken(secret: string, txn: Txn): Promise<Scope | undefined> {
    const doc = await this.secretDocument(txn, secret, 'token');
    if (!doc) return undefined;
    const { db, fields, expiresAt } = doc;
    const identity = fields.get('instance');
    if (!(identity instanceof Ref) || !(await identityExists(this.catalog, txn, db, identity))) return undefined;
    const path = await pathOfDatabase(this.catalog, txn, db);
    if (!path) return undefined;
    const idKey = await identityKey(this.catalog, txn, db, identity);
    const cred = idKey && (await txn.getMeta(credentialsLocationKey(idKey)));
    const credentials = cred ? Buffer.from(cred).readBigUInt64BE(0) : undefined;
    return { db, path, role: 'client', root: false, token: { db, id: doc.id }, identity, credentials, expiresAt };
  }

  /** A cached token scope still needs its token and its identity document to exist. */
  private async tokenStillValid(scope: Scope, txn: Txn): Promise<boolean> {
    const { db, id } = scope.token!;
    const version = await txn.getVersion({ db, coll: NATIVE_IDS.tokens, id });
    if (!version || version.action === 'delete') return false;
    return identityExists(this.catalog, txn, db, scope.identity!);
  }

  /** Applies a `:db/path:role` suffix; only admin keys may change database or role. */
  private async applyScope(base: Scope, rest: string[], txn: Txn): Promise<Scope | undefined> {
    if (rest.length === 0) return base;
    const role = rest[rest.length - 1];
    const dbPath = rest.length >= 2 ? rest.slice(0, -1).join(':') : '';
    const userRole = role.startsWith('@role/') ? role.slice(6) : undefined;
    const doc = docScope(role);
    if (!isBuiltinRole(role) && userRole === undefined && !doc) {
      // Anything else after the first `:` is ignored (fql-v4.md §6.2), but an unknown `@…` form
      // is refused rather than silently widened.
      return role.startsWith('@') ? undefined : base;
    }
    if (base.roles) return undefined;
    // Admin or server keys may act as a document (`@doc/…`); only admin keys may choose a database or role.
    if (doc && base.role === 'server' && !dbPath) return this.identityScope(base, base.db, base.path, doc, txn);
    if (base.role !== 'admin') return undefined;
    let db = base.db;
    const path = [...base.path];
    for (const name of dbPath ? dbPath.split('/') : []) {
      if (!name) return undefined;
      const child = (await this.catalog.schema(txn, db, false)).get('databases', name);
      if (!child) return undefined;
      db = child.id;
      path.push(name);
    }
    if (doc) return this.identityScope(base, db, path, doc, txn);
    if (userRole !== undefined) {
      const entry = userRole ? (await this.catalog.schema(txn, db, false)).get('roles', userRole) : undefined;
      if (!entry) return undefined;
      return { ...base, db, path, role: 'client', roles: [entry.id] };
    }
    return { ...base, db, path, role: role as BuiltinRole };
  }

  /** A key acting as an identity document: identity-based roles apply, CurrentIdentity() works. */
  private async identityScope(base: Scope, db: bigint, path: string[], doc: Ref, txn: Txn): Promise<Scope | undefined> {
    if (!(await identityExists(this.catalog, txn, db, doc))) return undefined;
    return { ...base, db, path, role: 'client', identity: doc, docScoped: true, roles: undefined };
  }

  /**
   * The live key or token document a secret names (found through its location record), the secret
   * checked and its `ttl` not passed at the snapshot; undefined otherwise. A secret that fails the
   * fast check is refused before its document is read: it costs what a missing one does.
   */
  private async secretDocument(txn: Txn, secret: string, kind: 'key' | 'token'): Promise<{ db: bigint; id: bigint; fields: Obj; expiresAt?: bigint } | undefined> {
    const decoded = decodeSecret(secret);
    if (!decoded || decoded.kind !== kind) return undefined;
    const raw = await txn.getMeta(secretLocationKey(kind, decoded.id));
    if (!raw) return undefined;
    const loc = decodeSecretLocation(raw);
    const { db } = loc;
    // A token secret also names its database.
    if (decoded.db !== undefined && decoded.db !== BigInt.asUintN(64, db)) return undefined;
    // The document is read once: after the record's check, or for BCrypt when it has none.
    let read: Promise<Obj | undefined> | undefined;
    const fieldsOf = () => (read ??= this.liveFields(txn, kind, db, decoded.id));
    const hashOf = async () => (await fieldsOf())?.get('hashed_secret') as string | undefined;
    if (!(await secretMatches(loc, decoded, hashOf, (hash) => this.verifyLegacy(decoded, secret, hash), this.learn))) return undefined;
    const fields = await fieldsOf();
    if (!fields) return undefined;
    const ttl = fields.get('ttl');
    const expiresAt = ttl instanceof Time ? ttl.micros : undefined;
    if (expiresAt !== undefined && expiresAt <= txn.snapshotTs) return undefined;
    return { db, id: decoded.id, fields, expiresAt };
  }

  /**
   * The fields of a live key or token document, refs in them (role, database, instance) with the
   * names they have now, relative to its database; undefined when deleted or without a hash.
   */
  private async liveFields(txn: Txn, kind: 'key' | 'token', db: bigint, id: bigint): Promise<Obj | undefined> {
    const version = await txn.getVersion({ db, coll: kind === 'key' ? NATIVE_IDS.keys : NATIVE_IDS.tokens, id });
    if (!version || version.action === 'delete' || !version.data) return undefined;
    const fields = await namedIn(this.catalog, txn, db, version.data);
    return typeof fields.get('hashed_secret') === 'string' ? fields : undefined;
  }

  /**
   * BCrypt verification of a secret whose location record has no check yet, within its key's
   * allowance (LEGACY_VERIFY_RATE); a success gives its allowance back.
   * Concurrent callers with the same secret (a driver's pool starting) share one verification:
   * each taking its own token would refuse the rightful secret beyond the burst.
   */
  private verifyLegacy(decoded: DecodedSecret, secret: string, hash: string): Promise<boolean> {
    let shared = this.verifying.get(secret);
    if (!shared) {
      shared = this.verifyLegacyOnce(decoded, secret, hash).finally(() => this.verifying.delete(secret));
      this.verifying.set(secret, shared);
    }
    return shared;
  }

  private async verifyLegacyOnce(decoded: DecodedSecret, secret: string, hash: string): Promise<boolean> {
    const name = `${decoded.kind}:${decoded.id}`;
    if (this.legacyVerifies.take(name) > 0) return false;
    // Throttled per key (LEGACY_VERIFY_RATE), not charged.
    if (!(await verifySecret(decoded, secret, hash, NOT_CHARGED))) return false;
    this.legacyVerifies.give(name);
    return true;
  }
}

/** `@doc/<collection>/<id>` (or the legacy `classes/…`, `collections/…` forms) → the identity ref. */
function docScope(role: string): Ref | undefined {
  const m = /^(?:@doc|classes|collections)\/([^/]+)\/(\d+)$/.exec(role);
  return m ? new Ref(m[2], Ref.collection(m[1])) : undefined;
}

/** Meta key holding a database's parent scope id (databases can move). */
export function dbParentKey(db: bigint): Uint8Array {
  const b = Buffer.alloc(14);
  b.write('dbpar:', 0, 'latin1');
  b.writeBigUInt64BE(db, 6);
  return b;
}

/** The parent scope id of a database, or undefined for the top database / unknown ids. */
export async function parentOf(txn: Txn, db: bigint): Promise<bigint | undefined> {
  if (db === 0n) return undefined;
  const v = await txn.getMeta(dbParentKey(db));
  return v ? Buffer.from(v).readBigUInt64BE(0) : undefined;
}
