// `npm run bench -- --import [--docs 1000000] [--per-file 250000] [--batch 500] [--in-flight 4]`
// `flora import` of a generated Fauna snapshot export (tagged encoding, .jsonl.gz files rolled over
// every --per-file documents): a Flora server (one process, LMDB on a temp dir) and the import
// command as two processes, as a user runs them. Prints the import's rate, both processes' peak
// memory (sampled every 250 ms from /proc) and the data directory's size per document.

import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createGzip } from 'node:zlib';
import { FLORA_BIN, ROOT, startFlora } from '../test/helpers/server';
import { exportRecord, type FixtureDoc } from '../test/helpers/faunaExports';
import { MemorySampler } from '../torture/memory';
import { diskBytes } from './procStatus';
import { mb, numberArg, runMain } from './harness';

const COLLECTION = 'Items';

function doc(i: number): FixtureDoc {
  const second = String(i % 60).padStart(2, '0');
  return {
    coll: COLLECTION,
    id: String(1_000_000_000 + i),
    ts: `2025-01-09T19:07:${second}.${String(i % 1_000_000).padStart(6, '0')}Z`,
    fields: [
      ['n', { long: BigInt(i) }],
      ['name', `item ${i}`],
      ['group', `g${i % 50}`],
      ['price', { double: (i % 1000) / 10 }],
      ['tags', ['a', 'b', `t${i % 7}`]],
      ['added', { time: '2024-05-01T12:00:00Z' }],
      ['owner', { ref: { coll: COLLECTION, id: String(1_000_000_000 + (i % 1000)) } }],
    ],
  };
}

/** A Fauna snapshot export of `docs` documents, written as a stream; its export_<id> folder. */
async function writeExport(root: string, docs: number, perFile: number): Promise<{ dir: string; bytes: number }> {
  const exportDir = path.join(root, 'export_bench');
  const taskDir = path.join(exportDir, '1');
  const collDir = path.join(taskDir, 'data', 'collections', COLLECTION);
  mkdirSync(collDir, { recursive: true });
  let files = 0;
  let bytes = 0;
  for (let start = 0; start < docs; start += perFile, files++) {
    const file = path.join(collDir, `${COLLECTION}_00_${String(files).padStart(6, '0')}.jsonl.gz`);
    const gzip = createGzip();
    const out = gzip.pipe(createWriteStream(file));
    for (let i = start; i < Math.min(docs, start + perFile); i++) if (!gzip.write(exportRecord(doc(i), 'tagged') + '\n')) await once(gzip, 'drain');
    gzip.end();
    await once(out, 'close');
    bytes += statSync(file).size;
  }
  const manifest = {
    host_id: 'bench', account_id: '1', export_id: 'bench', task_id: '1', collections: [COLLECTION], snapshot_ts: '2025-01-09T19:08:00Z',
    doc_format: 'tagged', datafile_format: 'jsonl', datafile_compression: true, datafile_ext: 'jsonl.gz', part: 0, total_parts: 1,
    files_count: files, files_bytes: bytes,
  };
  writeFileSync(path.join(taskDir, 'metadata_00.json'), JSON.stringify(manifest, null, 2));
  return { dir: exportDir, bytes };
}

export async function main(): Promise<void> {
  const docs = numberArg('--docs', 1_000_000);
  const perFile = numberArg('--per-file', 250_000);
  const batch = numberArg('--batch', 500);
  const inFlight = numberArg('--in-flight', 4);
  const root = mkdtempSync(path.join(tmpdir(), 'flora-bench-import-'));
  const srv = await startFlora();
  try {
    let t = Date.now();
    const written = await writeExport(root, docs, perFile);
    console.log(`import: export of ${docs} documents written in ${((Date.now() - t) / 1000).toFixed(1)} s (${mb(written.bytes)} MB gzipped)`);
    const reportFile = path.join(root, 'report.json');
    const args = [FLORA_BIN, 'import', written.dir, '--url', srv.url, '--secret', srv.secret, '--database', 'bench', '--report', reportFile, '--batch', String(batch), '--in-flight', String(inFlight)];
    t = Date.now();
    const cli = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const server = new MemorySampler(() => srv.proc.pid!);
    const importer = new MemorySampler(() => cli.pid!);
    server.start(250);
    importer.start(250);
    let stdout = '';
    cli.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const [code] = (await once(cli, 'exit')) as [number];
    const secs = (Date.now() - t) / 1000;
    server.stop();
    importer.stop();
    if (code !== 0) throw new Error(`flora import exited with ${code}:\n${stdout}`);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { collections: Record<string, { written: number; existing: number }> };
    const n = report.collections[COLLECTION].written;
    if (n !== docs) throw new Error(`imported ${n} of ${docs} documents:\n${stdout}`);
    console.log(stdout.trimEnd());
    console.log(`import: ${n} documents in ${secs.toFixed(1)} s = ${(n / secs).toFixed(0)} documents/s (batches of ${batch}, ${inFlight} in flight; one server process)`);
    console.log(`import: peak RSS of the import command ${mb(importer.peak.rss)} MB (anonymous ${mb(importer.peak.anon)} MB); of the server ${mb(server.peak.rss)} MB (anonymous ${mb(server.peak.anon)} MB)`);
    console.log(`import: data directory ${mb(diskBytes(srv.dataDir))} MB, ${(diskBytes(srv.dataDir) / n).toFixed(0)} B per document`);
  } finally {
    await srv.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

if (require.main === module) runMain(main);
