// `flora eval`: FQL v4 in the driver's JavaScript syntax (fauna-shell 0.x's `eval`) or FQL v10
// (fauna-shell 4's `query`), from the command line or a file, run against a server and printed.

import { readFileSync } from 'node:fs';
import { UsageError } from './flags';
import { Evaluator } from './shell/evaluate';
import { CONNECTION_HELP, clientFor, openDatabase } from './shell/connection';
import { parseCommand, terminalPrinter, VERSION_HELP, type CommandStreams } from './shell/setup';

export const EVAL_USAGE = `Usage: flora eval '<expression>' [options]
       flora eval --file <file> [options]

Runs FQL v4 written in the JavaScript driver's syntax, as fauna-shell 0.x took it
(Paginate(Collections()), Map(…, Lambda("x", Get(Var("x")))), arrow functions), and prints each
result. Several expressions (on several lines, or separated by ';') run in order, one query each;
let/const declarations are kept for the expressions after them. The first error stops the run.
FQL v10 (--version 10, or text that v4's syntax refuses: Math.abs(-1), Collection.all()) runs as
one query on /query/1 and prints as fauna-shell 4 prints it.

Options:
  --file <file>        Read the expressions from a file ('-': standard input)
  --format <format>    shell: each result in FQL syntax, as fauna-shell printed it (coloured on a
                       terminal; the default when standard output is a terminal)
                       json: each result's JSON exactly as the server sent it, one per line (the
                       default otherwise; v10: the simple format's data); errors are then the
                       server's JSON answer too
  --metrics            Print each query's time and metrics on standard error
${VERSION_HELP}
  -h, --help           Show this help

${CONNECTION_HELP}

Exit codes: 0 every query ran, 1 a parse, connection or query error (on standard error, after the
results before it), 2 bad usage.
`;

export async function evalCommand(args: readonly string[], env: NodeJS.ProcessEnv = process.env, streams: CommandStreams = { out: process.stdout, err: process.stderr }): Promise<number> {
  const { out, err } = streams;
  let parsed;
  try {
    parsed = parseCommand(args, { file: { type: 'string' }, metrics: { type: 'boolean' } }, env);
    if (parsed === 'help') {
      out.write(EVAL_USAGE);
      return 0;
    }
    const file = parsed.values.file;
    if (file === undefined && parsed.positionals.length === 0) throw new UsageError('an expression to run, or --file');
    if (file !== undefined && parsed.positionals.length > 0) throw new UsageError('an expression or --file, not both');
    if (parsed.positionals.length > 1) throw new UsageError(`one expression at a time (got ${parsed.positionals.length}: quote the expression)`);
    if (file === undefined && parsed.positionals[0].trim() === '') throw new UsageError('the expression is empty');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err.write(`flora eval: ${e.message}\n\nRun 'flora eval --help' for the options.\n`);
    return 2;
  }
  const { connection, values } = parsed;
  const format = parsed.format ?? (out.isTTY ? 'shell' : 'json');
  const printer = terminalPrinter(format, streams, env, values.metrics ? err : undefined);
  let source: string;
  try {
    source = typeof values.file === 'string' ? readFileSync(values.file === '-' ? 0 : values.file, 'utf8') : parsed.positionals[0];
  } catch (e) {
    err.write(`flora eval: cannot read ${values.file}: ${(e as Error).message}\n`);
    return 1;
  }
  try {
    // A database is checked first, so that a missing one is named (a query in it would get a bare 401).
    const client = connection.database ? await openDatabase(connection) : clientFor(connection);
    return (await new Evaluator(client, printer, connection, parsed.language).run(source)) ? 0 : 1;
  } catch (e) {
    if (printer.failure(e)) return 1;
    throw e;
  }
}
