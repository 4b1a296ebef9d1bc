// Which Fauna export a path holds: a snapshot export (a directory leading to metadata_NN.json, or
// one of those files), driver dumps (a dump file, or a directory of them), or a flora export (a
// directory with manifest.json, or that file).

import { stat } from 'node:fs/promises';
import path from 'node:path';
import { DUMP_FILE, findDumpFiles, openDriverDump } from './driverDump';
import { findSnapshotDirs, openSnapshot } from './faunaSnapshot';
import { databaseDir, MANIFEST_FILE, readFloraManifest } from '../floraFormat';
import { openFloraExport } from './floraExport';
import { MANIFEST_NAME } from './snapshotManifest';
import { SourceError, type Source } from './types';

export async function openSource(p: string): Promise<Source> {
  let info;
  try {
    info = await stat(p);
  } catch {
    throw new SourceError(`${p}: no such file or directory`);
  }
  if (info.isFile()) {
    const flora = path.basename(p) === MANIFEST_FILE ? await readFloraManifest(path.dirname(p)) : undefined;
    if (flora) return openFloraExport(path.dirname(p), flora);
    if (MANIFEST_NAME.test(path.basename(p))) return openSnapshot(path.dirname(p));
    if (DUMP_FILE.test(p)) return openDriverDump([p]);
    throw new SourceError(`${p}: not a Fauna export (expected metadata_NN.json, or a dump file *.ndjson, *.jsonl or *.json, optionally .gz)`);
  }
  const flora = await readFloraManifest(p);
  if (flora) return openFloraExport(p, flora);
  if (await exists(path.join(p, databaseDir([]))))
    throw new SourceError(`${p}: a flora export without its ${MANIFEST_FILE} (written last): the export did not finish; run it again`);
  const snapshots = await findSnapshotDirs(p);
  if (snapshots.length > 1)
    throw new SourceError(`${p} holds ${snapshots.length} snapshot exports; point at one of: ${snapshots.join(', ')}`);
  if (snapshots.length === 1) return openSnapshot(snapshots[0]);
  const dumps = await findDumpFiles(p);
  if (dumps.length > 0) return openDriverDump(dumps);
  throw new SourceError(
    `${p}: no Fauna export found (a snapshot export has metadata_NN.json in its task directory; driver dumps are *.ndjson, *.jsonl or *.json files, optionally .gz)`,
  );
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}
