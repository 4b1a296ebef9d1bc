// Secret formats (fql-v4.md §6.1, DECISIONS #9): keys are `fnA…`, tokens `fnE…`, both base64url
// of [0x7E, kind, id (8 bytes BE), (token: db global id, 8 bytes), 20 random bytes]. Only a BCrypt
// hash of the random part is stored.

import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';

const KEY_KIND = 0x70;
const TOKEN_KIND = 0x71;
const BCRYPT_COST = 5;

export interface IssuedSecret {
  secret: string;
  hashedSecret: string;
}

export function issueKeySecret(keyId: bigint): IssuedSecret {
  const random = randomBytes(20);
  const buf = Buffer.alloc(30);
  buf[0] = 0x7e;
  buf[1] = KEY_KIND;
  buf.writeBigUInt64BE(keyId, 2);
  random.copy(buf, 10);
  return { secret: buf.toString('base64url'), hashedSecret: bcrypt.hashSync(random.toString('base64url'), BCRYPT_COST) };
}

export function issueTokenSecret(tokenId: bigint, dbGlobalId: bigint): IssuedSecret {
  const random = randomBytes(20);
  const buf = Buffer.alloc(38);
  buf[0] = 0x7e;
  buf[1] = TOKEN_KIND;
  buf.writeBigUInt64BE(tokenId, 2);
  buf.writeBigUInt64BE(BigInt.asUintN(64, dbGlobalId), 10);
  random.copy(buf, 18);
  return { secret: buf.toString('base64url'), hashedSecret: bcrypt.hashSync(random.toString('base64url'), BCRYPT_COST) };
}

/** BCrypt (cost 5) of a credentials password. */
export function hashPassword(password: string): string {
  return bcrypt.hashSync(password, BCRYPT_COST);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash).catch(() => false);
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
  if (buf[0] !== 0x7e) return undefined;
  if (buf[1] === KEY_KIND && buf.length === 30)
    return { kind: 'key', id: buf.readBigUInt64BE(2), random: buf.subarray(10).toString('base64url') };
  if (buf[1] === TOKEN_KIND && buf.length === 38)
    return { kind: 'token', id: buf.readBigUInt64BE(2), db: buf.readBigUInt64BE(10), random: buf.subarray(18).toString('base64url') };
  return undefined;
}

export function verifySecret(decoded: DecodedSecret, fullSecret: string, hash: string): Promise<boolean> {
  return bcrypt.compare(decoded.random, hash).then((ok) => ok || bcrypt.compare(fullSecret, hash));
}
