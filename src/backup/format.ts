// The backup file format (docs/backup-format.md), format version 1: one gzip stream of
//
//   header    one line of JSON, ending in "\n":
//             {"magic":"flora-backup","version":1,"storage_format":4,"created":"<ISO 8601>",
//              "issued_ts":"<µs>","engine":"lmdb"|"postgres","query_log":"not included"}
//   records   per entry of the store's map, in key order:
//             u32 key length (big-endian, ≥ 1), key bytes, u32 value length, value bytes
//   end       u32 0 (a key is never empty, so a zero key length ends the records)
//   trailer   one line of JSON: {"records":<count>,"sha256":"<hex>"}, the SHA-256 over every
//             record's bytes exactly as framed above (lengths included, the end mark not)
//
// Nothing follows the trailer. `issued_ts` is the store's issued transaction time in the snapshot:
// every commit at or below it is in the file and none above it. Both directions stream: the
// encoder frames a chunk of records at a time, the decoder takes the decompressed bytes in whatever
// pieces they arrive and hands back whole records, so neither ever holds the store.

import { createHash, type Hash } from 'node:crypto';
import type { KV } from '../storage/engine';
import { FORMAT_VERSION } from '../storage/format';

export const MAGIC = 'flora-backup';
export const BACKUP_VERSION = 1;
/** What the file name of a backup ends with, by convention. */
export const BACKUP_SUFFIX = '.flora-backup';
/** A header or trailer line longer than this is not one (a file of something else). */
const MAX_LINE = 64 * 1024;
/** Longest key any engine stores (LMDB's limit): a longer length is corruption. */
const MAX_KEY = 1978;
/** A value length beyond this is corruption, not data (documents are far smaller). */
const MAX_VALUE = 256 * 1024 * 1024;

export type EngineKind = 'lmdb' | 'postgres';

export interface BackupHeader {
  magic: typeof MAGIC;
  version: number;
  /** The storage format of the store's data (storage/format.ts), as its format record says. */
  storage_format: number;
  created: string;
  /** µs, as decimal text (beyond 2^53). */
  issued_ts: string;
  engine: EngineKind;
  query_log: 'not included';
}

export interface BackupTrailer {
  records: number;
  sha256: string;
}

/** The file is not a readable Flora backup; the message says what and where. */
export class BackupError extends Error {}

export function headerLine(h: BackupHeader): Buffer {
  return Buffer.from(`${JSON.stringify(h)}\n`, 'utf8');
}

/** The end mark (a zero key length) and the trailer line. */
export function closing(t: BackupTrailer): Buffer {
  return Buffer.concat([Buffer.alloc(4), Buffer.from(`${JSON.stringify(t)}\n`, 'utf8')]);
}

/** Checks a parsed header line: a Flora backup this release can restore. */
export function checkHeader(v: unknown): BackupHeader {
  const h = v as Partial<BackupHeader> | null;
  if (h === null || typeof h !== 'object' || h.magic !== MAGIC) throw new BackupError('not a Flora backup (its header does not start with the magic "flora-backup")');
  if (typeof h.version !== 'number' || !Number.isInteger(h.version) || h.version < 1) throw new BackupError('the backup header has no valid format version');
  if (h.version > BACKUP_VERSION)
    throw new BackupError(`the backup file has format version ${h.version}, newer than this release reads (${BACKUP_VERSION}): use a newer Flora release`);
  if (typeof h.storage_format !== 'number' || !Number.isInteger(h.storage_format) || h.storage_format < 1) throw new BackupError('the backup header has no valid storage_format');
  if (h.storage_format > FORMAT_VERSION)
    throw new BackupError(
      `the backup holds storage format ${h.storage_format}, newer than this release knows (${FORMAT_VERSION}): ` +
        'restore it with the Flora release that wrote it, or a newer one',
    );
  if (typeof h.issued_ts !== 'string' || !/^\d+$/.test(h.issued_ts)) throw new BackupError('the backup header has no valid issued_ts');
  if (h.engine !== 'lmdb' && h.engine !== 'postgres') throw new BackupError('the backup header names no known engine');
  return h as BackupHeader;
}

/** Frames records and keeps the running count and SHA-256 of what it framed. */
export class RecordEncoder {
  private readonly hash: Hash = createHash('sha256');
  records = 0;

  /** The framed bytes of `kvs`, in one buffer. */
  frame(kvs: readonly KV[]): Buffer {
    let size = 0;
    for (const kv of kvs) size += 8 + kv.key.length + kv.value.length;
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (const kv of kvs) {
      out.writeUInt32BE(kv.key.length, at);
      out.set(kv.key, at + 4);
      at += 4 + kv.key.length;
      out.writeUInt32BE(kv.value.length, at);
      out.set(kv.value, at + 4);
      at += 4 + kv.value.length;
    }
    this.hash.update(out);
    this.records += kvs.length;
    return out;
  }

  trailer(): BackupTrailer {
    return { records: this.records, sha256: this.hash.digest('hex') };
  }
}

type Stage = 'header' | 'records' | 'trailer' | 'done';

/**
 * Decodes the decompressed bytes of a backup, pushed in pieces of any size: `push` returns the
 * records completed by a piece; the header is there once the first line is; `end` checks that the
 * file was whole and that the records match the trailer's count and SHA-256. Errors (BackupError)
 * name the record and the byte offset (in the decompressed stream) where the file goes wrong.
 */
export class RecordDecoder {
  header: BackupHeader | undefined;
  trailer: BackupTrailer | undefined;
  /** Records decoded so far. */
  records = 0;
  /** Decompressed bytes consumed so far. */
  offset = 0;
  private stage: Stage = 'header';
  private readonly parts: Buffer[] = [];
  private buffered = 0;
  private readonly hash: Hash = createHash('sha256');
  /** Bytes the record being read needs in all, once its lengths are known (0 before). */
  private need = 0;

  push(chunk: Buffer): KV[] {
    if (chunk.length === 0) return [];
    if (this.stage === 'done') throw new BackupError(`unexpected data after the trailer at byte ${this.offset}`);
    this.parts.push(chunk);
    this.buffered += chunk.length;
    const out: KV[] = [];
    for (;;) {
      if (this.stage === 'header') {
        const line = this.line('header');
        if (line === undefined) return out;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          throw new BackupError('not a Flora backup (its first line is not a JSON header)');
        }
        this.header = checkHeader(parsed);
        this.stage = 'records';
      } else if (this.stage === 'records') {
        if (this.buffered < Math.max(4, this.need)) return out;
        const keyLen = this.peekU32(0);
        if (keyLen === 0) {
          this.take(4);
          this.stage = 'trailer';
          continue;
        }
        if (keyLen > MAX_KEY) throw this.corrupt(`a key length of ${keyLen} bytes`);
        if (this.buffered < 8 + keyLen) return out;
        const valueLen = this.peekU32(4 + keyLen);
        if (valueLen > MAX_VALUE) throw this.corrupt(`a value length of ${valueLen} bytes`);
        this.need = 8 + keyLen + valueLen;
        if (this.buffered < this.need) return out;
        const frame = this.take(this.need);
        this.need = 0;
        this.hash.update(frame);
        out.push({ key: frame.subarray(4, 4 + keyLen), value: frame.subarray(8 + keyLen) });
        this.records++;
      } else if (this.stage === 'trailer') {
        const line = this.line('trailer');
        if (line === undefined) return out;
        this.trailer = this.checkTrailer(line);
        this.stage = 'done';
        if (this.buffered > 0) throw new BackupError(`unexpected data after the trailer at byte ${this.offset}`);
        return out;
      } else {
        return out;
      }
    }
  }

  /** At the end of the input: the trailer, once everything checked out. */
  end(): BackupTrailer {
    if (this.stage !== 'done' || !this.trailer) {
      const where =
        this.stage === 'header' ? 'inside its header' : this.stage === 'records' ? `inside record ${this.records + 1} (byte ${this.offset})` : 'inside its trailer';
      throw new BackupError(`the backup is truncated: it ends ${where}, after ${this.records} records`);
    }
    return this.trailer;
  }

  private checkTrailer(line: string): BackupTrailer {
    let t: Partial<BackupTrailer>;
    try {
      t = JSON.parse(line) as Partial<BackupTrailer>;
    } catch {
      throw new BackupError(`the backup's trailer (after record ${this.records}, byte ${this.offset}) is not valid JSON: the file is corrupt`);
    }
    if (typeof t?.records !== 'number' || typeof t.sha256 !== 'string') throw new BackupError(`the backup's trailer (byte ${this.offset}) lacks records or sha256`);
    if (t.records !== this.records)
      throw new BackupError(`the backup holds ${this.records} records but its trailer says ${t.records}: the file is corrupt`);
    const got = this.hash.digest('hex');
    if (got !== t.sha256)
      throw new BackupError(
        `checksum mismatch: the SHA-256 of the ${this.records} records is ${got}, the trailer says ${t.sha256}: ` +
          'a record between the header and the trailer is corrupt',
      );
    return t as BackupTrailer;
  }

  private corrupt(what: string): BackupError {
    return new BackupError(`the backup is corrupt at record ${this.records + 1} (byte ${this.offset} of the decompressed data): ${what}`);
  }

  /** The next line without its "\n", or undefined until it has arrived. */
  private line(what: string): string | undefined {
    const all = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
    const nl = all.indexOf(0x0a);
    if (nl < 0) {
      if (all.length > MAX_LINE) throw new BackupError(what === 'header' ? 'not a Flora backup (no header line)' : `the backup's trailer at byte ${this.offset} is corrupt`);
      this.parts.length = 0;
      this.parts.push(all);
      return undefined;
    }
    const text = all.subarray(0, nl).toString('utf8');
    this.parts.length = 0;
    if (nl + 1 < all.length) this.parts.push(all.subarray(nl + 1));
    this.buffered = all.length - nl - 1;
    this.offset += nl + 1;
    return text;
  }

  private peekU32(at: number): number {
    const bytes = Buffer.allocUnsafe(4);
    let filled = 0;
    let skip = at;
    for (const p of this.parts) {
      if (skip >= p.length) {
        skip -= p.length;
        continue;
      }
      const n = Math.min(4 - filled, p.length - skip);
      p.copy(bytes, filled, skip, skip + n);
      filled += n;
      skip = 0;
      if (filled === 4) break;
    }
    return bytes.readUInt32BE(0);
  }

  /** The next `n` buffered bytes (a view when they lie in one piece). */
  private take(n: number): Buffer {
    let out: Buffer;
    const first = this.parts[0];
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.parts.shift();
      else this.parts[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let filled = 0;
      while (filled < n) {
        const p = this.parts[0];
        const k = Math.min(n - filled, p.length);
        p.copy(out, filled, 0, k);
        filled += k;
        if (k === p.length) this.parts.shift();
        else this.parts[0] = p.subarray(k);
      }
    }
    this.buffered -= n;
    this.offset += n;
    return out;
  }
}
