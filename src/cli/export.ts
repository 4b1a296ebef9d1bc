// `flora export`: writes a database tree, read at one transaction time, in the flora export
// format or in Fauna's snapshot layout (src/transfer/export, docs/export-format.md).

import type { Writable } from 'node:stream';
import type { ExportFormat, ExportOptions } from '../transfer/export';
import { unknownOption } from '../suggest';

export const DB_EXPORT_USAGE = `Usage: flora export --out <dir> [options]

Writes a database, its child databases and everything in them as one consistent snapshot (every
read at the transaction time the export starts at), through the public HTTP API.

Options:
  --url <url>         Flora's address (env FLORA_URL, default http://127.0.0.1:8443)
  --secret <secret>   Root secret or admin key secret (env FLORA_SECRET; required)
  --database <path>   Export the child database a/b of the secret's database (default: its own)
  --out <dir>         Where to write: a new or empty directory, or an earlier export of the same
                      format (replaced)
  --format <f>        flora (default): what 'flora import' reads back exactly (docs/export-format.md);
                      fauna-simple, fauna-tagged: Fauna's snapshot-export layout (documents and
                      credentials only; one tree per database, children in databases/<name>/)
  --history           Also every version of every document within retention (flora format)
  --keys              Also keys and tokens, with their hashed secrets (flora format)
  --no-gzip           Write plain files instead of gzip
  -h, --help          Show this help

Exit codes: 0 written, 1 failed (the message says why), 2 bad usage.
`;

class UsageError extends Error {}

const VALUE_FLAGS = ['--url', '--secret', '--database', '--out', '--format'];
const SWITCHES = ['--history', '--keys', '--no-gzip'];
const FORMATS: readonly ExportFormat[] = ['flora', 'fauna-simple', 'fauna-tagged'];

export function parseExportArgs(args: readonly string[], env: NodeJS.ProcessEnv): ExportOptions {
  const flags = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (SWITCHES.includes(arg)) {
      switches.add(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    if (!VALUE_FLAGS.includes(name)) throw new UsageError(unknownOption(arg, [...VALUE_FLAGS, ...SWITCHES, '--help']));
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === '') throw new UsageError(`Option '${name}' needs a value.`);
    flags.set(name, value);
  }
  const secret = flags.get('--secret') ?? env.FLORA_SECRET;
  if (!secret) throw new UsageError('A secret is required (--secret or FLORA_SECRET).');
  const out = flags.get('--out');
  if (!out) throw new UsageError('--out <dir> is required.');
  const format = (flags.get('--format') ?? 'flora') as ExportFormat;
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, not '${format}'.`);
  if (format !== 'flora' && (switches.has('--history') || switches.has('--keys')))
    throw new UsageError(`--history and --keys are for --format flora: Fauna's snapshot layout has no place for them.`);
  const database = (flags.get('--database') ?? '').split('/').filter((s) => s !== '');
  if (database.length > 0 && secret.includes(':'))
    throw new UsageError('--database needs an unscoped secret (the export scopes it to each database itself).');
  return {
    url: (flags.get('--url') ?? env.FLORA_URL ?? 'http://127.0.0.1:8443').replace(/\/+$/, ''),
    secret,
    database,
    out,
    format,
    history: switches.has('--history'),
    keys: switches.has('--keys'),
    gzip: !switches.has('--no-gzip'),
  };
}

export async function exportDatabase(args: readonly string[], env: NodeJS.ProcessEnv = process.env, err: Writable = process.stderr, out: Writable = process.stdout): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    out.write(DB_EXPORT_USAGE);
    return 0;
  }
  let opts: ExportOptions;
  try {
    opts = parseExportArgs(args, env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err.write(`flora export: ${e.message}\n\nRun 'flora export --help' for the options.\n`);
    return 2;
  }
  const { runExport, streamProgress, QueryFailed, ServerUnreachable, NoFaunaForm, OutputRefused } = await import('../transfer/export');
  try {
    await runExport({ ...opts, progress: streamProgress(err) });
    return 0;
  } catch (e) {
    const known = e instanceof QueryFailed || e instanceof ServerUnreachable || e instanceof NoFaunaForm || e instanceof OutputRefused;
    if ((err as NodeJS.WriteStream).isTTY) err.write('\n');
    err.write(`flora export: ${known ? (e as Error).message : `failed: ${(e as Error).stack ?? String(e)}`}\n`);
    return 1;
  }
}
