// `flora import`: a Fauna export, driver dumps or schema-as-code resources into a Flora database.

import { writeFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { parseOptions } from './flags';
import { QueryClient, QueryFailed, ServerUnreachable } from '../transfer/queryClient';
import { SourceError } from '../transfer/sources';
import { runImport } from '../transfer/import/run';
import { withLiveExport } from '../transfer/import/fromServer';

export const IMPORT_USAGE = `Usage: flora import [<source>] [options]

Imports into a database of a Flora server, over its query API:
  - a Fauna snapshot export (the folder export_<id>/, one of its <task_id>/ folders, or the folder
    above; simple or tagged encoding, .jsonl or .json files, gzipped or not);
  - driver dumps: NDJSON files of documents as the v4 driver writes them (a file or a folder);
  - a flora export (\`flora export\`), with its child databases, schema and history;
  - with --from-url, a live FQL v4 server (another Flora, or Fauna's open-sourced core): its
    database tree is copied at one transaction time through its query API;
  - with --schema, fauna-schema-migrate's resource files (fauna/resources/**/*.fql|.js).
Schema first, then documents with their ids and ts, then credentials with their password hashes
(users log in with their old passwords). Re-running skips what is there, so an interrupted import
is finished by running it again. Records that cannot be imported are listed at the end.

Options:
  --url <url>          Flora's address (env FLORA_URL, default http://127.0.0.1:8443)
  --secret <secret>    An admin secret of the database the target is in (env FLORA_SECRET; required)
  --database <path>    Target database below the secret's, e.g. app/imported (created if missing;
                       default: the secret's own database)
  --schema <path>      Schema-as-code resources to create first (a folder or one file)
  --from-url <url>     Copy from this live server instead of a path
  --from-secret <s>    Its admin secret (env FLORA_FROM_SECRET)
  --from-database <p>  The database to copy there, below that secret's (default: its own)
  --history            With --from-url: every version within retention too
  --report <file>      Also write the report as JSON
  --batch <n>          Documents per transaction (default 500)
  --in-flight <n>      Transactions in flight at once (default 4)
  --quiet              No progress
  -h, --help           Show this help

Exit codes: 0 everything imported, 1 some records not imported or the import failed, 2 bad usage.
`;

export async function importCommand(args: readonly string[], env: NodeJS.ProcessEnv = process.env, out: Writable = process.stdout, err: Writable & { isTTY?: boolean } = process.stderr): Promise<number> {
  let parsed;
  try {
    parsed = parseOptions(args, {
      url: { type: 'string' },
      secret: { type: 'string' },
      database: { type: 'string' },
      schema: { type: 'string' },
      'from-url': { type: 'string' },
      'from-secret': { type: 'string' },
      'from-database': { type: 'string' },
      history: { type: 'boolean' },
      report: { type: 'string' },
      batch: { type: 'string' },
      'in-flight': { type: 'string' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
  } catch (e) {
    return usage(err, (e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out.write(IMPORT_USAGE);
    return 0;
  }
  const fromUrl = values['from-url'];
  if (positionals.length + (fromUrl !== undefined ? 1 : 0) > 1) return usage(err, 'one source at a time: a path or --from-url.');
  if (positionals.length === 0 && fromUrl === undefined && values.schema === undefined) return usage(err, 'a source, --schema, or both.');
  const fromSecret = values['from-secret'] ?? env.FLORA_FROM_SECRET;
  if (fromUrl !== undefined && !fromSecret) return usage(err, '--from-url needs --from-secret (or FLORA_FROM_SECRET).');
  if (fromUrl === undefined && (values['from-secret'] !== undefined || values['from-database'] !== undefined || values.history))
    return usage(err, '--from-secret, --from-database and --history go with --from-url.');
  const secret = values.secret ?? env.FLORA_SECRET;
  if (!secret) return usage(err, 'a secret is required (--secret or FLORA_SECRET).');
  const positive = (name: string, raw: string | undefined, fallback: number) => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`--${name} must be a positive integer (got '${raw}').`);
    return n;
  };
  let records: number, inFlight: number;
  try {
    records = positive('batch', values.batch, 500);
    inFlight = positive('in-flight', values['in-flight'], 4);
  } catch (e) {
    return usage(err, (e as Error).message);
  }
  const url = (values.url ?? env.FLORA_URL ?? 'http://127.0.0.1:8443').replace(/\/+$/, '');
  const progress = values.quiet ? undefined : err;
  try {
    const run = (source: string | undefined) =>
      runImport({ source, schema: values.schema, client: new QueryClient(url, secret), database: values.database ?? '', batch: { records, inFlight }, progress });
    const report =
      fromUrl === undefined
        ? await run(positionals[0])
        : await withLiveExport({ url: fromUrl.replace(/\/+$/, ''), secret: fromSecret!, database: values['from-database'] ?? '', history: values.history === true }, progress, run);
    out.write(`${report.render()}\n`);
    if (values.report) await writeFile(values.report, JSON.stringify(report, null, 2) + '\n');
    return report.problems.length > 0 ? 1 : 0;
  } catch (e) {
    if (e instanceof SourceError || e instanceof ServerUnreachable || e instanceof QueryFailed) {
      // A progress line drawn in place on a terminal is ended first.
      if (progress && err.isTTY) err.write('\n');
      err.write(`flora import: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

function usage(err: Writable, message: string): number {
  err.write(`flora import: ${message}\n\nRun 'flora import --help' for the options.\n`);
  return 2;
}
