// Presigned download URLs served by Flora itself: `<path>?version=<v>&expires=<unix s>&signature=<s>`,
// where the signature is HMAC-SHA256 over the path, version and expiry with a key only the server
// knows. The key is made once and kept in the store, so URLs survive a restart and a URL minted by
// one process of a tier is good at every other; a key an earlier version kept in the log directory
// (`exports/url-signing.key`) is taken over, so its URLs stay good.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Store } from '../storage/types';

const KEY_META = Buffer.from('logs:url-signing-key', 'utf8');

export type Verdict = 'ok' | 'expired' | 'invalid';

export class UrlSigner {
  constructor(private readonly key: Buffer) {
    if (key.length < 16) throw new Error('URL signing key too short');
  }

  /** The tier's key from the store; made on first use (from `legacyFile` when an earlier version left one). */
  static async fromStore(store: Store, legacyFile: string): Promise<UrlSigner> {
    let legacy: Buffer | undefined;
    try {
      const key = await readFile(legacyFile);
      if (key.length >= 32) legacy = key;
    } catch {
      // none
    }
    const fresh = legacy ?? randomBytes(32);
    // Processes starting together: one commit wins, the others are re-run and read its key.
    const { result } = await store.run(async (txn) => {
      const stored = await txn.getMeta(KEY_META);
      if (stored && stored.length >= 32) return Buffer.from(stored);
      txn.putMeta(KEY_META, fresh);
      return fresh;
    });
    return new UrlSigner(result);
  }

  /** Loads the key from `file`, creating it on first use. */
  static async open(file: string): Promise<UrlSigner> {
    try {
      const key = await readFile(file);
      if (key.length >= 32) return new UrlSigner(key);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await mkdir(path.dirname(file), { recursive: true });
    const key = randomBytes(32);
    await writeFile(file, key, { mode: 0o600 });
    return new UrlSigner(key);
  }

  /** The query string (without `?`) that makes `urlPath` valid until `expiresAtMs` (rounded down to seconds). */
  sign(urlPath: string, version: number, expiresAtMs: number): string {
    const expires = Math.floor(expiresAtMs / 1000);
    const signature = this.mac(urlPath, String(version), String(expires));
    return `version=${version}&expires=${expires}&signature=${signature}`;
  }

  /** Checks a request for `urlPath`: a missing or wrong signature is 'invalid', a late one 'expired'. */
  verify(urlPath: string, query: URLSearchParams, nowMs: number): Verdict {
    const version = query.get('version');
    const expires = query.get('expires');
    const signature = query.get('signature');
    if (!version || !expires || !signature || !/^\d{1,9}$/.test(version) || !/^\d{1,12}$/.test(expires)) return 'invalid';
    const expected = Buffer.from(this.mac(urlPath, version, expires));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 <= nowMs ? 'expired' : 'ok';
  }

  private mac(urlPath: string, version: string, expires: string): string {
    return createHmac('sha256', this.key).update(`${urlPath}\n${version}\n${expires}`).digest('base64url');
  }
}
