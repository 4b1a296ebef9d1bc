// Writes a backup (format.ts) of one engine snapshot to a byte stream: the header from the
// snapshot's format record and issued ts, then its entries a chunk at a time, gzip-compressed,
// at the pace the stream takes them (a slow reader holds the snapshot open, never the store).

import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { EngineSnapshot } from '../storage/engine';
import { FORMAT_KEY } from '../storage/format';
import { decodeU64Value } from '../storage/keys';
import { ISSUED_TS_KEY } from '../storage/store';
import { closing, headerLine, MAGIC, BACKUP_VERSION, RecordEncoder, type BackupHeader, type BackupTrailer, type EngineKind } from './format';

export interface BackupProgress {
  records: number;
  /** Compressed bytes written so far. */
  bytes: number;
}

export interface BackupResult extends BackupProgress {
  header: BackupHeader;
  trailer: BackupTrailer;
}

/** The header of a backup of `snapshot`. */
export async function backupHeader(snapshot: EngineSnapshot, engine: EngineKind): Promise<BackupHeader> {
  const format = await snapshot.get(FORMAT_KEY);
  const issued = await snapshot.get(ISSUED_TS_KEY);
  return {
    magic: MAGIC,
    version: BACKUP_VERSION,
    // A store without a format record predates them: format 1 (storage/format.ts).
    storage_format: format ? Number(decodeU64Value(format)) : 1,
    created: new Date().toISOString(),
    issued_ts: String(issued ? decodeU64Value(issued) : 0n),
    engine,
    query_log: 'not included',
  };
}

/**
 * Streams a backup of `snapshot` (with `header`, from backupHeader) into `out`, ending it, and
 * resolves once all is written. Rejects when `out` fails or closes early (a client gone); the
 * caller closes the snapshot either way.
 */
export async function writeBackup(
  snapshot: EngineSnapshot,
  header: BackupHeader,
  out: Writable,
  onProgress: (p: BackupProgress) => void = () => undefined,
): Promise<BackupResult> {
  const encoder = new RecordEncoder();
  let trailer: BackupTrailer | undefined;
  const progress: BackupProgress = { records: 0, bytes: 0 };
  async function* body(): AsyncGenerator<Buffer> {
    yield headerLine(header);
    for await (const chunk of snapshot.scan()) {
      yield encoder.frame(chunk);
      progress.records = encoder.records;
    }
    trailer = encoder.trailer();
    yield closing(trailer);
  }
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      progress.bytes += chunk.length;
      onProgress(progress);
      done(null, chunk);
    },
  });
  // Level 3: most of the size of the default level at several times its speed on these records.
  await pipeline(Readable.from(body(), { objectMode: false }), createGzip({ level: 3 }), counter, out);
  onProgress(progress);
  return { header, trailer: trailer!, ...progress };
}
