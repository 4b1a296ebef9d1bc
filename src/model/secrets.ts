// Secret formats (fql-v4.md §6.1, DECISIONS #9): keys are `fnA…`, tokens `fnE…`, both base64url
// of [0x7E, kind, id (8 bytes BE), (token: db global id, 8 bytes), 20 random bytes]. A BCrypt hash
// of the random part is stored as `hashed_secret` (Fauna's documents show it); beside it, in the
// key's or token's location record, a salted SHA-256 of the same part is what authentication checks
// (secretLocation.ts): the part is 160 random bits, so a fast digest is as safe as BCrypt for it, and
// a forged secret then costs what a missing one does.
//
// BCrypt runs on libuv's thread pool (@node-rs/bcrypt), never on the event loop.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { hash as bcryptHash, verify as bcryptVerify } from '@node-rs/bcrypt';

const KEY_KIND = 0x70;
const TOKEN_KIND = 0x71;
const BCRYPT_COST = 5;

/**
 * Compute ops (of 50 units) one BCrypt operation is charged: Identify, Login, KeyFromSecret without
 * a digest, a new password, a new key or token secret. One cost-5 BCrypt takes about 2 ms of a core,
 * more than a thousand plain calls, so at Fauna's default of 12,000 ops a query can make about ten.
 */
const BCRYPT_COMPUTE_OPS = 1_000;

/**
 * Whoever asks for BCrypt (a query's Budget): its compute ops are taken before it runs; a throw
 * refuses it. The Authenticator throttles per key instead and passes NOT_CHARGED.
 */
export interface OpsPayer {
  chargeOps(ops: number): void;
}

export const NOT_CHARGED: OpsPayer = { chargeOps: () => undefined };

/** Bytes of a secret check: a 16-byte salt, then SHA-256(salt ‖ random part). */
export const SECRET_CHECK_BYTES = 48;
const SALT_BYTES = 16;

export interface IssuedSecret {
  secret: string;
  hashedSecret: string;
  /** The fast check of the secret (SECRET_CHECK_BYTES), kept in its location record. */
  check: Uint8Array;
}

export async function issueKeySecret(keyId: bigint, payer: OpsPayer): Promise<IssuedSecret> {
  payer.chargeOps(BCRYPT_COMPUTE_OPS);
  const random = randomBytes(20);
  const buf = Buffer.alloc(30);
  buf[0] = 0x7e;
  buf[1] = KEY_KIND;
  buf.writeBigUInt64BE(keyId, 2);
  random.copy(buf, 10);
  return issued(buf, random);
}

export async function issueTokenSecret(tokenId: bigint, dbGlobalId: bigint, payer: OpsPayer): Promise<IssuedSecret> {
  payer.chargeOps(BCRYPT_COMPUTE_OPS);
  const random = randomBytes(20);
  const buf = Buffer.alloc(38);
  buf[0] = 0x7e;
  buf[1] = TOKEN_KIND;
  buf.writeBigUInt64BE(tokenId, 2);
  buf.writeBigUInt64BE(BigInt.asUintN(64, dbGlobalId), 10);
  random.copy(buf, 18);
  return issued(buf, random);
}

async function issued(buf: Buffer, random: Buffer): Promise<IssuedSecret> {
  const part = random.toString('base64url');
  return { secret: buf.toString('base64url'), hashedSecret: await bcrypt(part), check: newSecretCheck(part) };
}

function bcrypt(text: string): Promise<string> {
  // `2a`, as Fauna's (jBCrypt) hashes read.
  return bcryptHash(text, { cost: BCRYPT_COST, version: '2a' });
}

/** BCrypt (cost 5) of a credentials password. */
export function hashPassword(password: string, payer: OpsPayer): Promise<string> {
  payer.chargeOps(BCRYPT_COMPUTE_OPS);
  return bcrypt(password);
}

export function verifyPassword(password: string, hash: string, payer: OpsPayer): Promise<boolean> {
  payer.chargeOps(BCRYPT_COMPUTE_OPS);
  return bcryptCheck(password, hash);
}

function bcryptCheck(text: string, hash: string): Promise<boolean> {
  return bcryptVerify(text, hash).catch(() => false);
}

export interface DecodedSecret {
  kind: 'key' | 'token';
  id: bigint;
  /** base64url of the random part: what the stored hash covers. */
  random: string;
  /** Token secrets: the global id of the token's database. */
  db?: bigint;
}

export function decodeSecret(secret: string): DecodedSecret | undefined {
  if (!/^fn[AE][A-Za-z0-9_-]+$/.test(secret)) return undefined;
  const buf = Buffer.from(secret, 'base64url');
  // Node's decoder drops a trailing partial group: a secret with a character added (or a non-canonical
  // last character) would decode to the same bytes. Only the exact encoding is that secret.
  if (buf[0] !== 0x7e || buf.toString('base64url') !== secret) return undefined;
  if (buf[1] === KEY_KIND && buf.length === 30)
    return { kind: 'key', id: buf.readBigUInt64BE(2), random: buf.subarray(10).toString('base64url') };
  if (buf[1] === TOKEN_KIND && buf.length === 38)
    return { kind: 'token', id: buf.readBigUInt64BE(2), db: buf.readBigUInt64BE(10), random: buf.subarray(18).toString('base64url') };
  return undefined;
}

/**
 * BCrypt verification of a secret against its `hashed_secret`: Fauna's hash covers the random part;
 * Fauna also accepts a hash of the whole secret (AuthLike.scala: keys created with a given `secret`
 * for imports), so that is tried second. Up to two BCrypt runs, both charged before the first.
 */
export function verifySecret(decoded: DecodedSecret, fullSecret: string, hash: string, payer: OpsPayer): Promise<boolean> {
  payer.chargeOps(2 * BCRYPT_COMPUTE_OPS);
  return bcryptCheck(decoded.random, hash).then((ok) => ok || bcryptCheck(fullSecret, hash));
}

/** A new check of a secret's random part: a salt, and the salted SHA-256 of the part. */
export function newSecretCheck(random: string): Uint8Array {
  const salt = randomBytes(SALT_BYTES);
  return Buffer.concat([salt, digest(salt, random)]);
}

/** True when `check` (newSecretCheck) is of this random part; constant-time. */
export function matchesSecretCheck(check: Uint8Array, random: string): boolean {
  if (check.length !== SECRET_CHECK_BYTES) return false;
  const salt = check.subarray(0, SALT_BYTES);
  return timingSafeEqual(check.subarray(SALT_BYTES), digest(salt, random));
}

function digest(salt: Uint8Array, random: string): Buffer {
  return createHash('sha256').update(salt).update(random, 'utf8').digest();
}
