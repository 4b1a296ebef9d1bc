// A JWKS document → the RS256 verification keys it holds, bounded when it is read so that verifying
// a JWT later costs one small RSA operation: at most MAX_KEYS keys (a larger document is refused as a
// whole), moduli of 2048–8192 bits (jose's minimum for RS256; 8192 keeps a verification well under
// a millisecond) and odd public exponents from 3 to 2^31-1 (Go's crypto/rsa bound; a huge exponent
// makes each verification cost as much as a private-key operation). Keys outside the bounds, of
// another type (EC, oct, OKP: Flora verifies RS256 only) or marked for another use are left out.

import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

export const JWKS_KEY_LIMITS = {
  maxKeys: 100,
  minModulusBits: 2048,
  maxModulusBits: 8192,
  maxExponent: 2 ** 31 - 1,
} as const;

export interface KeySet {
  /** Usable keys in document order. */
  readonly keys: readonly KeyObject[];
  /** Usable keys by `kid` (the first of a repeated kid). */
  readonly byKid: ReadonlyMap<string, KeyObject>;
}

/** A JWKS document that cannot be used at all. */
export class JwksInvalid extends Error {}

/** The usable keys of a parsed JWKS document; throws JwksInvalid when it is not one or holds too many. */
export function keySetOf(doc: unknown): KeySet {
  const entries = doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(entries)) throw new JwksInvalid('not a JWKS document (no "keys" array)');
  if (entries.length > JWKS_KEY_LIMITS.maxKeys)
    throw new JwksInvalid(`${entries.length} keys (at most ${JWKS_KEY_LIMITS.maxKeys})`);
  const keys: KeyObject[] = [];
  const byKid = new Map<string, KeyObject>();
  for (const jwk of entries) {
    const key = rs256Key(jwk);
    if (!key) continue;
    keys.push(key);
    const kid = (jwk as { kid?: unknown }).kid;
    if (typeof kid === 'string' && !byKid.has(kid)) byKid.set(kid, key);
  }
  return { keys, byKid };
}

/** The key a JWK describes when it is an RSA signature key within the bounds; else undefined. */
export function rs256Key(jwk: unknown): KeyObject | undefined {
  if (!jwk || typeof jwk !== 'object' || Array.isArray(jwk)) return undefined;
  const { kty, use, alg, n, e } = jwk as Record<string, unknown>;
  if (kty !== 'RSA' || (use !== undefined && use !== 'sig') || (alg !== undefined && alg !== 'RS256')) return undefined;
  if (typeof n !== 'string' || typeof e !== 'string') return undefined;
  // Sizes are checked on the decoded bytes before any key is built.
  if (n.length > Math.ceil((JWKS_KEY_LIMITS.maxModulusBits + 8) / 6) + 4 || e.length > 16) return undefined;
  const bits = bitLength(Buffer.from(n, 'base64url'));
  if (bits < JWKS_KEY_LIMITS.minModulusBits || bits > JWKS_KEY_LIMITS.maxModulusBits) return undefined;
  const exponent = Buffer.from(e, 'base64url');
  if (bitLength(exponent) > 31) return undefined;
  const value = exponent.reduce((v, b) => v * 256 + b, 0);
  if (value < 3 || value > JWKS_KEY_LIMITS.maxExponent || value % 2 === 0) return undefined;
  try {
    return createPublicKey({ key: { kty: 'RSA', n, e } as JsonWebKey, format: 'jwk' });
  } catch {
    return undefined;
  }
}

/** Bits of a big-endian unsigned integer, leading zero bytes ignored. */
function bitLength(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i]));
}
