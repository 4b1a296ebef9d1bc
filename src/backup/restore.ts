// Restores a backup into an engine's store, and checks a store against a backup's trailer.
//
// The target must be empty. The restore marker (storage/format.ts) is written before the first
// record and removed after the last one once the trailer checked out, so a store whose restore was
// interrupted (or whose file turned out corrupt halfway) is refused by `flora start`, and a later
// restore with `force` clears it and starts over. The records are written as they are read, in
// batches, a few batches in flight: the backup is never held in memory.

import type { Engine, WriteOp } from '../storage/engine';
import { RESTORE_MARKER } from '../storage/format';
import { BackupError, RecordEncoder, type BackupTrailer } from './format';
import type { BackupReading } from './readBackup';

/** Records per write; a batch is also cut at BATCH_BYTES. */
const BATCH_RECORDS = 2000;
const BATCH_BYTES = 4 * 1024 * 1024;
const WRITES_IN_FLIGHT = 4;
const WIPE_BATCH = 2000;
/** Every key of the map lies in [ALL_START, ALL_END) (storage/keys.ts tags are ASCII letters). */
const ALL_START = Uint8Array.of(0);
const ALL_END = Uint8Array.of(0xff);

/** The target cannot take the restore (not empty, an unfinished restore without force). */
export class RestoreRefused extends Error {}

export interface RestoreOptions {
  /** Clears a target that holds an unfinished restore, and starts over. */
  force?: boolean;
  onProgress?: (records: number) => void;
}

type TargetState = 'empty' | 'unfinished' | 'store';

async function targetState(engine: Engine): Promise<TargetState> {
  if (await engine.get(RESTORE_MARKER)) return 'unfinished';
  for await (const _ of engine.range({ start: ALL_START, end: ALL_END, limit: 1 })) return 'store';
  return 'empty';
}

/** Deletes every key, a batch at a time. */
async function wipe(engine: Engine): Promise<void> {
  for (;;) {
    const ops: WriteOp[] = [];
    for await (const kv of engine.range({ start: ALL_START, end: ALL_END, limit: WIPE_BATCH })) ops.push({ key: kv.key, value: null });
    if (ops.length === 0) return;
    await engine.write(ops);
  }
}

/** Writes every record of `backup` into `engine`'s (empty) store; resolves with the checked trailer. */
export async function restoreInto(engine: Engine, backup: BackupReading, opts: RestoreOptions = {}): Promise<BackupTrailer> {
  const state = await targetState(engine);
  if (state === 'unfinished' && !opts.force)
    throw new RestoreRefused('the target holds an unfinished restore: run flora restore again with --force to clear it and start over');
  if (state === 'store')
    throw new RestoreRefused('the target is not empty (it holds a Flora store): restore into a new data directory or an empty PostgreSQL database');
  if (state === 'unfinished') await wipe(engine);
  await engine.write([{ key: RESTORE_MARKER, value: Buffer.from(JSON.stringify(backup.header), 'utf8') }]);

  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  const send = async (ops: WriteOp[]) => {
    while (inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(inFlight);
    if (failure) throw failure;
    const w: Promise<void> = engine.write(ops).then(
      () => void inFlight.delete(w),
      (e: unknown) => {
        failure ??= e;
        inFlight.delete(w);
      },
    );
    inFlight.add(w);
  };
  let batch: WriteOp[] = [];
  let bytes = 0;
  let records = 0;
  for await (const chunk of backup.records) {
    for (const kv of chunk) {
      if (kv.key.length > engine.maxKeySize) throw new BackupError(`record ${records + 1} has a key of ${kv.key.length} bytes, more than the target stores`);
      batch.push({ key: kv.key, value: kv.value });
      bytes += kv.key.length + kv.value.length;
      records++;
      if (batch.length >= BATCH_RECORDS || bytes >= BATCH_BYTES) {
        await send(batch);
        batch = [];
        bytes = 0;
      }
    }
    opts.onProgress?.(records);
  }
  if (batch.length > 0) await send(batch);
  await Promise.all(inFlight);
  if (failure) throw failure;
  // The trailer checked out (the records' iteration ends only then): the store is whole.
  await engine.write([{ key: RESTORE_MARKER, value: null }]);
  return backup.trailer();
}

/** Count and SHA-256 of a store's whole map, framed as a backup frames it. */
export async function storeDigest(engine: Engine): Promise<BackupTrailer> {
  const snapshot = await engine.snapshot();
  try {
    const encoder = new RecordEncoder();
    for await (const chunk of snapshot.scan()) encoder.frame(chunk);
    return encoder.trailer();
  } finally {
    await snapshot.close();
  }
}

/** Re-reads the restored store and compares it with the backup's trailer; throws when they differ. */
export async function verifyStore(engine: Engine, trailer: BackupTrailer): Promise<void> {
  const got = await storeDigest(engine);
  if (got.records !== trailer.records)
    throw new BackupError(`verification failed: the restored store holds ${got.records} entries, the backup ${trailer.records}`);
  if (got.sha256 !== trailer.sha256)
    throw new BackupError(`verification failed: the restored store's SHA-256 is ${got.sha256}, the backup's ${trailer.sha256}`);
}
