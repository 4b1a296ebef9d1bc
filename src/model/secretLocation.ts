// The location record of a key or token (meta `keyloc:`/`tokloc:` + id): the internal id of the
// database holding its document, then, for secrets issued or verified since issue 30, the fast check
// of the secret (secrets.ts newSecretCheck). Records written before have the database id alone; a
// reader of the first 8 bytes (any release) reads both forms, so the storage format is unchanged.

import { SECRET_CHECK_BYTES } from './secrets';

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

export function decodeSecretLocation(raw: Uint8Array): SecretLocation {
  const b = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const db = b.readBigUInt64BE(0);
  return b.length === 8 + SECRET_CHECK_BYTES ? { db, check: b.subarray(8) } : { db };
}
