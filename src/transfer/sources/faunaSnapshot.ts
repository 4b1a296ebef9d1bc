// Fauna's snapshot export: `<task_id>/metadata_NN.json` (one per part) and
// `<task_id>/data/collections/<Coll>/<Coll>_<part:02d>_<ord:06d>.<ext>` (core:
// tasks/export/FilesManager.scala:84-87 names them; ExportInfo.scala:176-180 places them). The user
// may point at the task directory, at `export_<id>/` above it, or at the account directory above
// that, as long as it leads to one export.

import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { CREDENTIAL_COLLECTION, exportItem, type DocumentContext } from './exportDocument';
import { readRecords } from './records';
import { checkSameExport, lineOfKey, MANIFEST_NAME, readManifest, type Manifest } from './snapshotManifest';
import { type ReadOptions, type Source, type SourceDescription, type SourceFile, type SourceItem } from './types';

const DATA_FILE = /^(.+)_(\d{2,})_(\d{6,})\.(jsonl|json)(\.gz)?$/;

interface DataFile extends SourceFile {
  readonly collection: string;
  readonly part: number;
  readonly ord: number;
}

async function entries(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** The directories at `root` or up to two levels below it that hold export manifests. */
export async function findSnapshotDirs(root: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (dir: string, depth: number): Promise<void> => {
    const list = await entries(dir);
    if (list.some((e) => e.isFile() && MANIFEST_NAME.test(e.name))) {
      found.push(dir);
      return;
    }
    if (depth < 2) for (const e of list) if (e.isDirectory()) await visit(path.join(dir, e.name), depth + 1);
  };
  await visit(root, 0);
  return found.sort();
}

/** The export in `taskDir` (one that findSnapshotDirs found). Throws SourceError when its manifests cannot be followed. */
export async function openSnapshot(taskDir: string): Promise<Source> {
  const names = (await entries(taskDir)).filter((e) => e.isFile() && MANIFEST_NAME.test(e.name)).map((e) => e.name);
  const manifests = await Promise.all(names.sort().map((n) => readManifest(path.join(taskDir, n))));
  checkSameExport(manifests);
  const first = manifests[0];
  const problems: SourceItem[] = [];
  const files = await listDataFiles(taskDir, first, problems);
  checkParts(taskDir, manifests, files, problems);

  const description: SourceDescription = {
    format: 'fauna-snapshot',
    encoding: first.encoding,
    collections: first.collections,
    snapshotTs: first.snapshotTs,
    files: files.map(({ path, bytes }) => ({ path, bytes })),
  };
  return {
    describe: () => description,
    items: (opts) => snapshotItems(first, files, problems, opts),
  };
}

async function* snapshotItems(m: Manifest, files: readonly DataFile[], problems: readonly SourceItem[], opts?: ReadOptions): AsyncGenerator<SourceItem> {
  yield* problems;
  const ctx: DocumentContext = { encoding: m.encoding, simple: { exported: new Set(m.collections), refsTaken: 0 } };
  for (const f of files) {
    if (opts?.skipFiles?.has(f.path)) continue;
    for await (const batch of readRecords(f.path, m.layout, undefined, opts?.onBytes))
      for (const r of batch) {
        if (r.kind === 'problem') yield { kind: 'problem', file: f.path, line: r.line, element: r.element, reason: r.reason };
        else yield exportItem(r.text, f.collection, { file: f.path, line: r.line, element: r.element }, ctx);
      }
  }
  if (m.encoding === 'simple') {
    yield {
      kind: 'note',
      text:
        `simple encoding: ${ctx.simple.refsTaken} object(s) of exactly {id, coll} naming an exported collection were taken as refs ` +
        '(such an object cannot be told from a ref there); times, dates and bytes inside documents are plain strings in this encoding and were kept as strings',
    };
  }
}

/** The data files in collection order (as the manifest lists them), then part, then ordinal; anything else found is a problem. */
async function listDataFiles(taskDir: string, m: Manifest, problems: SourceItem[]): Promise<DataFile[]> {
  const base = path.join(taskDir, 'data', 'collections');
  const files: DataFile[] = [];
  for (const dir of await entries(base)) {
    const dirPath = path.join(base, dir.name);
    if (!dir.isDirectory()) {
      problems.push({ kind: 'problem', file: dirPath, line: 0, reason: 'not a collection directory of the export: not read' });
      continue;
    }
    const known = m.collections.includes(dir.name);
    for (const e of await entries(dirPath)) {
      const file = path.join(dirPath, e.name);
      const match = DATA_FILE.exec(e.name);
      if (!e.isFile() || !match || match[1] !== dir.name) {
        problems.push({ kind: 'problem', file, line: 0, reason: 'not a data file of the export (<Coll>_<part>_<ord>.<ext>): not read' });
      } else if (`${match[4]}${match[5] ?? ''}` !== m.ext) {
        problems.push({ kind: 'problem', file, line: 0, reason: `the manifest says data files are .${m.ext}: not read` });
      } else if (!known) {
        problems.push({ kind: 'problem', file, line: 0, reason: `collection ${dir.name} is not among the manifest's collections: not read` });
      } else {
        const bytes = (await stat(file)).size;
        files.push({ path: file, bytes, collection: dir.name, part: Number(match[2]), ord: Number(match[3]) });
      }
    }
  }
  const order = (c: string) => (c === CREDENTIAL_COLLECTION ? Infinity : m.collections.indexOf(c)); // credentials after their documents
  return files.sort((a, b) => order(a.collection) - order(b.collection) || a.part - b.part || a.ord - b.ord);
}

/** Parts missing, or whose files differ from what their manifest counts and sizes: problems, reported before the documents. */
function checkParts(taskDir: string, manifests: readonly Manifest[], files: readonly DataFile[], problems: SourceItem[]): void {
  const byPart = new Map(manifests.map((m) => [m.part, m]));
  const total = manifests[0].totalParts;
  for (const m of manifests) {
    if (m.totalParts !== total || m.part >= m.totalParts)
      problems.push({
        kind: 'problem',
        file: m.file,
        line: lineOfKey(m.text, 'total_parts'),
        reason: `total_parts is ${m.totalParts} for part ${m.part}; ${manifests[0].file} says ${total}`,
      });
    const mine = files.filter((f) => f.part === m.part);
    if (mine.length !== m.filesCount)
      problems.push({
        kind: 'problem',
        file: m.file,
        line: lineOfKey(m.text, 'files_count'),
        reason: `files_count is ${m.filesCount} but ${mine.length} data file(s) of part ${m.part} were found`,
      });
    // files_bytes sums the files' sizes on disk (ExportDataTask.scala:457-462): a download cut short shows here first.
    const bytes = mine.reduce((sum, f) => sum + f.bytes, 0);
    if (bytes !== m.filesBytes)
      problems.push({
        kind: 'problem',
        file: m.file,
        line: lineOfKey(m.text, 'files_bytes'),
        reason: `files_bytes is ${m.filesBytes} but the data files of part ${m.part} hold ${bytes} bytes: one may be truncated or changed`,
      });
  }
  for (let part = 0; part < total; part++)
    if (!byPart.has(part))
      problems.push({
        kind: 'problem',
        file: path.join(taskDir, `metadata_${String(part).padStart(2, '0')}.json`),
        line: 0,
        reason: `part ${part} of ${total} has no manifest: the export is incomplete, that part's documents are missing`,
      });
  const orphans = new Set(files.filter((f) => !byPart.has(f.part)).map((f) => f.part));
  for (const part of orphans)
    problems.push({
      kind: 'problem',
      file: taskDir,
      line: 0,
      reason: `data files of part ${part} have no manifest (the part may not have finished): read anyway`,
    });
}

