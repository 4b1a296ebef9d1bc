// `flora restore`: writes a backup file into a new store (a data directory, or a PostgreSQL
// database), checks its trailer, and with --verify reads the restored store back and compares it;
// `flora restore --verify <file>` alone checks the file.

import { createReadStream } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { BackupTrailer } from '../backup/format';
import { openBackup, type BackupReading } from '../backup/readBackup';
import { restoreInto, RestoreRefused, verifyStore } from '../backup/restore';
import { FORMAT_VERSION } from '../storage/format';
import { StorageUnavailable, StoreInUse, type Engine } from '../storage/engine';
import { parseFlags, progressReporter, runCommand, UsageError } from './flags';

export const RESTORE_USAGE = `Usage: flora restore <file> (--data-dir <dir> | --storage postgres://…) [--verify] [--force]
       flora restore --verify <file>

Restores a backup made by 'flora backup' into an empty store: a new LMDB data directory, or an
empty PostgreSQL database. Start 'flora start' on it afterwards (a backup of an older storage format
is upgraded then). The file '-' is standard input.

Options:
  --data-dir <dir>      Restore into this data directory (must hold no store)
  --storage <url>       Restore into this PostgreSQL database (postgres://…) instead
  --verify              Read the restored store back and compare it with the backup (count and
                        SHA-256); without a target, only check the file
  --force               Clear a target left by an interrupted restore and start over
  -h, --help            Show this help

Exit codes: 0 restored (and verified), 1 the backup is not valid or the restore failed,
2 bad usage, 3 the target cannot take it (not empty, in use, unreachable).
`;

interface Options {
  file: string;
  dataDir?: string;
  storage?: string;
  verify: boolean;
  force: boolean;
}

function parse(args: readonly string[]): Options {
  const { values, switches, operands } = parseFlags(args, ['--data-dir', '--storage'], ['--verify', '--force']);
  if (operands.length !== 1) throw new UsageError(operands.length === 0 ? 'Name the backup file to restore.' : `Unexpected argument '${operands[1]}'.`);
  const dataDir = values.get('--data-dir');
  const storage = values.get('--storage');
  if (dataDir !== undefined && storage !== undefined) throw new UsageError('Give one target: --data-dir or --storage, not both.');
  if (storage !== undefined && !/^postgres(ql)?:\/\//.test(storage)) throw new UsageError('--storage takes a postgres:// URL.');
  const verify = switches.has('--verify');
  if (dataDir === undefined && storage === undefined && !verify) throw new UsageError('A target is required: --data-dir <dir> or --storage postgres://… (or --verify alone to check the file).');
  return { file: operands[0], dataDir, storage, verify, force: switches.has('--force') };
}

export function restore(args: readonly string[], err: Writable = process.stderr, stdin: Readable = process.stdin, out: Writable = process.stdout): Promise<number> {
  return runCommand(
    {
      name: 'restore',
      usage: RESTORE_USAGE,
      parse,
      run: async (opts) => {
        await run(opts, err, stdin);
        return 0;
      },
      failure: (e) => (e instanceof RestoreRefused || e instanceof StoreInUse || e instanceof StorageUnavailable ? 3 : 1),
    },
    args,
    out,
    err,
  );
}

async function run(opts: Options, err: Writable, stdin: Readable): Promise<void> {
  const input = opts.file === '-' ? stdin : createReadStream(opts.file);
  const opened = new Promise<void>((resolve, reject) => {
    if (input === stdin) resolve();
    input.once('open', () => resolve());
    input.once('error', (e: NodeJS.ErrnoException) => reject(new Error(`cannot read ${opts.file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`)));
  });
  await opened;
  try {
    const backup = await openBackup(input);
    const h = backup.header;
    err.write(`backup of ${h.created} (ts ${h.issued_ts}, storage format ${h.storage_format}, from ${h.engine})\n`);
    if (opts.dataDir === undefined && opts.storage === undefined) {
      const trailer = await checkFile(backup, err);
      err.write(`the file is whole: ${trailer.records} records, SHA-256 ${trailer.sha256}\n`);
      return;
    }
    const engine = await openTarget(opts);
    try {
      const progress = progressReporter(err);
      let count = 0;
      const trailer = await restoreInto(engine, backup, {
        force: opts.force,
        onProgress: (records) => {
          count = records;
          progress.update(() => `${count.toLocaleString('en-US')} records restored`);
        },
      });
      progress.done(`${trailer.records.toLocaleString('en-US')} records restored into ${opts.storage ? 'the PostgreSQL database' : opts.dataDir}`);
      if (opts.verify) {
        await verifyStore(engine, trailer);
        err.write(`verified: the restored store holds the backup's ${trailer.records} records (SHA-256 ${trailer.sha256})\n`);
      }
      if (h.storage_format < FORMAT_VERSION)
        err.write(`the backup holds storage format ${h.storage_format}: 'flora start' upgrades it to ${FORMAT_VERSION} when it opens the store\n`);
    } finally {
      await engine.close();
    }
  } finally {
    input.destroy();
  }
}

/** Reads every record of the file, which checks its trailer. */
async function checkFile(backup: BackupReading, err: Writable): Promise<BackupTrailer> {
  const progress = progressReporter(err);
  let records = 0;
  for await (const chunk of backup.records) {
    records += chunk.length;
    progress.update(() => `${records.toLocaleString('en-US')} records checked`);
  }
  return backup.trailer();
}

async function openTarget(opts: Options): Promise<Engine> {
  if (opts.storage) return (await import('../storage/pgEngine')).openPgEngine(opts.storage);
  return (await import('../storage/lmdbEngine')).openLmdbEngine(opts.dataDir!);
}
