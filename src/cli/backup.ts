// `flora backup`: downloads a consistent backup of the whole server (GET /api/v1/backup) into a
// file, checking it as it arrives: the file is kept only once its trailer's count and SHA-256 match
// the records received (it is written as <out>.part and renamed then).

import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { PassThrough, Readable, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { BackupError } from '../backup/format';
import { openBackup } from '../backup/readBackup';
import { formatBytes, parseFlags, progressReporter, runCommand, UsageError } from './flags';

export const BACKUP_USAGE = `Usage: flora backup --out <file> [options]

Downloads a backup of the whole server (every database, document version, index, key and the
store's clocks), consistent at one point in time, while the server keeps serving; checks the
file's record count and SHA-256 as it is written. The query log is not included.

Options:
  --url <url>        Flora's address (env FLORA_URL, default http://127.0.0.1:8443)
  --secret <secret>  The root secret, or an admin key of the top database (env FLORA_SECRET; required)
  --out <file>       Where to write (conventionally *.flora-backup; an existing file is replaced)
  -h, --help         Show this help

Exit codes: 0 written and checked, 1 failed (refused, unreachable, a corrupt stream), 2 bad usage.
`;

interface Options {
  url: string;
  secret: string;
  out: string;
}

function parse(args: readonly string[], env: NodeJS.ProcessEnv): Options {
  const { values, operands } = parseFlags(args, ['--url', '--secret', '--out'], []);
  if (operands.length > 0) throw new UsageError(`Unexpected argument '${operands[0]}'.`);
  const secret = values.get('--secret') ?? env.FLORA_SECRET;
  if (!secret) throw new UsageError('A secret is required (--secret or FLORA_SECRET).');
  const out = values.get('--out');
  if (!out) throw new UsageError('--out is required.');
  return { url: (values.get('--url') ?? env.FLORA_URL ?? 'http://127.0.0.1:8443').replace(/\/+$/, ''), secret, out };
}

export function backup(args: readonly string[], env: NodeJS.ProcessEnv = process.env, err: Writable = process.stderr, out: Writable = process.stdout): Promise<number> {
  const run = async (opts: Options) => {
    await download(opts, err);
    return 0;
  };
  return runCommand({ name: 'backup', usage: BACKUP_USAGE, parse: (a) => parse(a, env), run }, args, out, err);
}

async function download(opts: Options, err: Writable): Promise<void> {
  let res: Response;
  try {
    res = await fetch(`${opts.url}/api/v1/backup`, { headers: { authorization: `Bearer ${opts.secret}` } });
  } catch (e) {
    throw new Error(`cannot reach ${opts.url}: ${((e as Error).cause as Error | undefined)?.message ?? (e as Error).message}`);
  }
  if (res.status !== 200 || !res.body) {
    const text = await res.text();
    let message = text.slice(0, 200);
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      // not JSON: as sent
    }
    throw new Error(`backup refused (HTTP ${res.status}): ${message}`);
  }
  const ts = res.headers.get('x-flora-backup-ts') ?? '?';
  const part = `${opts.out}.part`;
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
  const file = createWriteStream(part);
  const check = new PassThrough();
  let bytes = 0;
  body.on('data', (c: Buffer) => (bytes += c.length));
  // One source, two readers at the pace of the slower: the file, and the check of what it holds.
  body.pipe(file);
  body.pipe(check);
  body.on('error', (e) => {
    file.destroy(e);
    check.destroy(e);
  });
  const started = Date.now();
  const progress = progressReporter(err);
  let records = 0;
  const line = () => {
    const s = Math.max((Date.now() - started) / 1000, 0.001);
    return `${formatBytes(bytes)}, ${records.toLocaleString('en-US')} records, ${formatBytes(Math.round(bytes / s))}/s`;
  };
  try {
    const reading = await openBackup(check);
    for await (const chunk of reading.records) {
      records += chunk.length;
      progress.update(line);
    }
    const trailer = reading.trailer();
    await finished(file);
    await rename(part, opts.out);
    progress.done(`${line()}: checked (SHA-256 ${trailer.sha256.slice(0, 16)}…)`);
    err.write(`backup at ts ${ts} (storage format ${reading.header.storage_format}) written to ${opts.out}\n`);
  } catch (e) {
    body.destroy();
    file.destroy();
    await rm(part, { force: true });
    if (e instanceof BackupError) throw new Error(`the backup stream is not valid (nothing kept): ${e.message}`);
    throw e;
  }
}
