// The location record of a key or token (meta `keyloc:`/`tokloc:` + id): the internal id of the
// database holding its document, then, for secrets issued or verified since issue 30, the fast check
// of the secret (secrets.ts newSecretCheck). Records written before have the database id alone; a
// reader of the first 8 bytes (any release) reads both forms, so the storage format is unchanged.
// A secret is checked against its record here, for authentication and KeyFromSecret alike.

import { matchesSecretCheck, newSecretCheck, SECRET_CHECK_BYTES, type DecodedSecret } from './secrets';

/** Meta key of the location record of a key or token. */
export function secretLocationKey(kind: 'key' | 'token', id: bigint): Uint8Array {
  const b = Buffer.alloc(15);
  b.write(kind === 'key' ? 'keyloc:' : 'tokloc:', 0, 'latin1');
  b.writeBigUInt64BE(id, 7);
  return b;
}

export interface SecretLocation {
  /** Internal id of the database the key or token document lives in. */
  db: bigint;
  /** The secret's fast check; absent for a record written before checks existed. */
  check?: Uint8Array;
}

export function encodeSecretLocation(db: bigint, check?: Uint8Array): Uint8Array {
  const b = Buffer.alloc(8 + (check ? SECRET_CHECK_BYTES : 0));
  b.writeBigUInt64BE(db);
  if (check) b.set(check, 8);
  return b;
}

/** A secret's check learned from a BCrypt verification, for the executor to store in its record. */
export interface LearnedCheck {
  kind: 'key' | 'token';
  id: bigint;
  check: Uint8Array;
}

/**
 * True when `decoded` is the secret of the key or token whose location record is `loc`: by the
 * record's check when it has one (nothing else read); else by BCrypt against the document's
 * `hashed_secret` (`hashOf`, read only then), run by `bcrypt`, which throttles or charges it. A
 * BCrypt success gives `learn` the check to store, so the secret needs BCrypt no more.
 */
export async function secretMatches(
  loc: SecretLocation,
  decoded: DecodedSecret,
  hashOf: () => Promise<string | undefined>,
  bcrypt: (hash: string) => Promise<boolean>,
  learn: (learned: LearnedCheck) => void,
): Promise<boolean> {
  if (loc.check) return matchesSecretCheck(loc.check, decoded.random);
  const hash = await hashOf();
  if (hash === undefined || !(await bcrypt(hash))) return false;
  learn({ kind: decoded.kind, id: decoded.id, check: newSecretCheck(decoded.random) });
  return true;
}

export function decodeSecretLocation(raw: Uint8Array): SecretLocation {
  const b = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const db = b.readBigUInt64BE(0);
  return b.length === 8 + SECRET_CHECK_BYTES ? { db, check: b.subarray(8) } : { db };
}
