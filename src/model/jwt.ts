// JWT authentication through access providers (fql-v4.md §6.4): a Bearer secret that looks like a
// JWT (`ey…` with dots) is an RS256 token whose `aud` names a database
// (`https://db.fauna.com/db/<global_id>`), whose `iss` matches the `issuer` of an access provider
// in that database, signed with a key from the provider's `jwks_uri` (fetched, bounded and cached
// by jwks/cache.ts: one key tried, the kid's), within `nbf`…`exp`. It authenticates as a client in
// that database with the provider's roles (`jwtRoles`, mapped by the roles code); CurrentIdentity()
// is `sub`, CurrentToken() the payload. Any failure → 401.

import { verify } from 'node:crypto';
import type { Txn } from '../storage/types';
import type { Obj, Value } from '../values/types';
import type { Catalog } from './catalog';
import type { Scope } from './auth';
import { pathOfDatabase } from './databases';
import type { JwksCache } from './jwks/cache';

/** True for secrets that should be verified as JWTs. */
export function looksLikeJwt(secret: string): boolean {
  return secret.startsWith('ey') && secret.includes('.');
}

function b64urlJson(part: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** JSON → FQL value (integral numbers become Longs). */
export function jsonToValue(v: unknown): Value {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(jsonToValue);
  const out: Obj = new Map();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out.set(k, jsonToValue(x));
  return out;
}

const ZBASE32 = 'ybndrfg8ejkmcpqxot1uwisza345h769';

/** Inverse of ids.ts `zbase32` (13 characters → 64-bit id), or undefined. */
export function fromZbase32(s: string): bigint | undefined {
  if (!/^[ybndrfg8ejkmcpqxot1uwisza345h769]{13}$/.test(s)) return undefined;
  let v = 0n;
  for (const c of s) v = (v << 5n) | BigInt(ZBASE32.indexOf(c));
  if (v & 1n) return undefined;
  return v >> 1n;
}

const AUDIENCE_PREFIX = 'https://db.fauna.com/db/';

export class JwtVerifier {
  /** Database scope id → its names from the top (or null: no such database), per catalog generation. */
  private readonly paths = new Map<bigint, string[] | null>();

  constructor(
    private readonly catalog: Catalog,
    private readonly jwks: JwksCache,
  ) {}

  /** Databases were created, moved or deleted. */
  invalidate(): void {
    this.paths.clear();
  }

  /** The Scope of a valid JWT, or undefined (→ 401). */
  async verify(jwt: string, txn: Txn): Promise<Scope | undefined> {
    try {
      return await this.check(jwt, txn);
    } catch {
      return undefined;
    }
  }

  private async check(jwt: string, txn: Txn): Promise<Scope | undefined> {
    const parts = jwt.split('.');
    if (parts.length !== 3) return undefined;
    const header = b64urlJson(parts[0]);
    const payload = b64urlJson(parts[1]);
    if (!header || !payload || header.alg !== 'RS256') return undefined;
    if (header.kid !== undefined && typeof header.kid !== 'string') return undefined;
    const { iss, aud, exp, nbf, sub } = payload;
    if (typeof iss !== 'string' || typeof exp !== 'number') return undefined;
    if (sub !== undefined && typeof sub !== 'string') return undefined;
    const now = Number(txn.snapshotTs) / 1e6;
    if (exp <= now) return undefined;
    if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now)) return undefined;
    // The audience names the database.
    const auds = Array.isArray(aud) ? aud : [aud];
    let db: bigint | undefined;
    let path: string[] | undefined;
    for (const a of auds) {
      if (typeof a !== 'string' || !a.startsWith(AUDIENCE_PREFIX)) continue;
      const id = fromZbase32(a.slice(AUDIENCE_PREFIX.length).replace(/\/$/, ''));
      if (id === undefined) continue;
      path = await this.pathOf(id, txn);
      if (path) {
        db = id;
        break;
      }
    }
    if (db === undefined || !path) return undefined;
    const provider = (await this.catalog.schema(txn, db, false)).all('access_providers').find((e) => e.fields.get('issuer') === iss);
    if (!provider) return undefined;
    const uri = provider.fields.get('jwks_uri');
    if (typeof uri !== 'string') return undefined;
    const signed = Buffer.from(`${parts[0]}.${parts[1]}`, 'latin1');
    const signature = Buffer.from(parts[2], 'base64url');
    const key = await this.jwks.keyFor(uri, header.kid as string | undefined);
    if (!key || !verify('RSA-SHA256', signed, key, signature)) return undefined;
    const roles = provider.fields.get('roles');
    return {
      db,
      path,
      role: 'client',
      root: false,
      expiresAt: BigInt(Math.floor(exp * 1e6)),
      jwt: { sub, payload: jsonToValue(payload) as Obj },
      jwtRoles: roles === undefined ? [] : Array.isArray(roles) ? roles : [roles],
    };
  }

  /** pathOfDatabase, cached per catalog generation (undefined when the database does not exist). */
  private async pathOf(db: bigint, txn: Txn): Promise<string[] | undefined> {
    const cached = this.paths.get(db);
    if (cached !== undefined) return cached ?? undefined;
    const path = await pathOfDatabase(this.catalog, txn, db);
    if (this.paths.size > 10_000) this.paths.clear();
    this.paths.set(db, path ?? null);
    return path;
  }
}
