// Key sets of access providers' `jwks_uri`s, fetched on demand (fetchDocument.ts), bounded
// (keySet.ts) and cached, so that a forged JWT costs one lookup once its provider's set is known:
// - a fetched set is trusted for `ttlMs`; an unknown `kid` refetches at most once per `kidCooldownMs`
//   (jose's cooldown) so a provider's key rotation is picked up;
// - a failed fetch is not retried before a back-off that doubles from `backoffMs` to `maxBackoffMs`,
//   meanwhile the last good set (if any) keeps serving;
// - verifications waiting for one URI share its fetch, and at most `maxFetches` run at once (each
//   holds up to `maxBytes`); beyond that a JWT of an unfetched provider is refused, not queued. A
//   fetch's DNS lookup holds a thread of libuv's pool (4 threads, shared with BCrypt) until it ends,
//   past the fetch's deadline if it must: the fetch keeps its place until then, and maxFetches stays
//   below the pool's size, so hanging lookups can never hold every thread;
// - the cache itself holds at most `maxEntries` URIs (oldest dropped first).

import type { KeyObject } from 'node:crypto';
import { dnsLookupAll, fetchJwksDocument, type FetchLimits, type HostLookup } from './fetchDocument';
import { keySetOf, type KeySet } from './keySet';
import { log } from '../../diag/log';

export interface JwksOptions extends FetchLimits {
  ttlMs: number;
  kidCooldownMs: number;
  backoffMs: number;
  maxBackoffMs: number;
  maxFetches: number;
  maxEntries: number;
  /** Where a failed fetch is reported (the server's stderr). */
  warn: (line: string) => void;
  /** Fetches a document, resolving its host with `lookup` (tests give their own, and their clock). */
  fetch: (uri: string, limits: FetchLimits, lookup: HostLookup) => Promise<unknown>;
  lookup: HostLookup;
  clock: () => number;
}

export const JWKS_DEFAULTS: JwksOptions = {
  timeoutMs: 5_000,
  maxBytes: 1024 * 1024,
  allowPrivate: false,
  ttlMs: 10 * 60_000,
  kidCooldownMs: 30_000,
  backoffMs: 1_000,
  maxBackoffMs: 60_000,
  maxFetches: 2,
  maxEntries: 1_000,
  warn: (line) => log.warn(line),
  fetch: fetchJwksDocument,
  lookup: dnsLookupAll,
  clock: Date.now,
};

interface Entry {
  set?: KeySet;
  /** When `set` was fetched. */
  fetchedAt: number;
  /** Failures since the last success, and when a fetch may be tried again. */
  failures: number;
  retryAt: number;
  pending?: Promise<void>;
}

export class JwksCache {
  private readonly opts: JwksOptions;
  private readonly entries = new Map<string, Entry>();
  private fetching = 0;

  constructor(opts: Partial<JwksOptions> = {}) {
    this.opts = { ...JWKS_DEFAULTS, ...opts };
  }

  /**
   * The one key to verify a JWT with header `kid` against: the key with that kid, or without a kid
   * the set's only key (a set of several needs the kid: trying each would multiply a forged JWT's
   * cost). Undefined when there is none.
   */
  async keyFor(uri: string, kid: string | undefined): Promise<KeyObject | undefined> {
    const entry = this.entryOf(uri);
    if (!entry.set || this.opts.clock() - entry.fetchedAt > this.opts.ttlMs) await this.refresh(uri, entry);
    if (!entry.set) return undefined;
    if (kid === undefined) return entry.set.keys.length === 1 ? entry.set.keys[0] : undefined;
    if (!entry.set.byKid.has(kid) && this.opts.clock() - entry.fetchedAt >= this.opts.kidCooldownMs) await this.refresh(uri, entry);
    return entry.set.byKid.get(kid);
  }

  private entryOf(uri: string): Entry {
    let entry = this.entries.get(uri);
    if (!entry) {
      if (this.entries.size >= this.opts.maxEntries) {
        for (const [k, e] of this.entries) {
          if (e.pending) continue;
          this.entries.delete(k);
          break;
        }
      }
      entry = { fetchedAt: 0, failures: 0, retryAt: 0 };
      this.entries.set(uri, entry);
    }
    return entry;
  }

  /** Fetches `uri` unless a fetch is in flight (joined), backing off, or too many run at once. */
  private refresh(uri: string, entry: Entry): Promise<void> {
    if (entry.pending) return entry.pending;
    if (this.opts.clock() < entry.retryAt || this.fetching >= this.opts.maxFetches) return Promise.resolve();
    this.fetching++;
    // The place is given back once the fetch and every lookup it started have ended.
    let running = 1;
    const done = () => {
      if (--running === 0) this.fetching--;
    };
    const lookup: HostLookup = (host) => {
      running++;
      const addresses = this.opts.lookup(host);
      addresses.then(done, done);
      return addresses;
    };
    entry.pending = this.load(uri, entry, lookup).finally(() => {
      entry.pending = undefined;
      done();
    });
    return entry.pending;
  }

  private async load(uri: string, entry: Entry, lookup: HostLookup): Promise<void> {
    try {
      entry.set = keySetOf(await this.opts.fetch(uri, this.opts, lookup));
      entry.fetchedAt = this.opts.clock();
      entry.failures = 0;
      entry.retryAt = 0;
    } catch (e) {
      const wait = Math.min(this.opts.backoffMs * 2 ** entry.failures, this.opts.maxBackoffMs);
      entry.failures++;
      entry.retryAt = this.opts.clock() + wait;
      this.opts.warn(`JWKS ${JSON.stringify(uri)} not usable: ${(e as Error).message}; not fetched again for ${wait / 1000} s`);
    }
  }
}
