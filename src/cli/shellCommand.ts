// `flora shell`: an interactive FQL v4 shell in the driver's JavaScript syntax (fauna-shell's
// `shell`), or a script runner when its input is not a terminal.

import { homedir } from 'node:os';
import type { Readable } from 'node:stream';
import { UsageError } from './flags';
import { Evaluator } from './shell/evaluate';
import { CONNECTION_HELP, openDatabase } from './shell/connection';
import { History, historyFilePath } from './shell/history';
import { runRepl, SHELL_HELP } from './shell/repl';
import { parseCommand, terminalPrinter, type CommandStreams } from './shell/setup';

export const SHELL_USAGE = `Usage: flora shell [options]

An interactive shell for FQL v4 in the JavaScript driver's syntax, as fauna-shell 0.x had it:
results in FQL syntax (coloured on a terminal), then the query's time and metrics; errors with
their code, description and position. History is kept in ~/.flora_history (env
FLORA_HISTORY_FILE names another file; empty: none). When standard input is not a terminal, its
lines are run the same way without prompts, and the exit code is 1 if any input failed.

Options:
  --format <format>    shell: results in FQL syntax (the default); json: each result's JSON exactly
                       as the server sent it
  -h, --help           Show this help

${CONNECTION_HELP}

${SHELL_HELP}
`;

export async function shellCommand(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  streams: CommandStreams & { input: Readable & { isTTY?: boolean } } = { out: process.stdout, err: process.stderr, input: process.stdin },
): Promise<number> {
  const { out, err } = streams;
  let parsed;
  try {
    parsed = parseCommand(args, {}, env);
    if (parsed === 'help') {
      out.write(SHELL_USAGE);
      return 0;
    }
    if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument '${parsed.positionals[0]}' (a database is --database <path>)`);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err.write(`flora shell: ${e.message}\n\nRun 'flora shell --help' for the options.\n`);
    return 2;
  }
  const { connection } = parsed;
  const printer = terminalPrinter(parsed.format ?? 'shell', streams, env, out);
  let client;
  try {
    client = await openDatabase(connection);
  } catch (e) {
    if (printer.failure(e)) return 1;
    throw e;
  }
  if (streams.input.isTTY) {
    const where = `${connection.url}${connection.endpoint ? ` (endpoint '${connection.endpoint}')` : ''}${connection.database ? `, database ${connection.database}` : ''}`;
    printer.note(`Connected to ${where}\nType .help for help, .exit or Ctrl-D to leave.`);
  }
  return runRepl({
    connection,
    evaluator: new Evaluator(client, printer),
    printer,
    history: History.load(historyFilePath(env, homedir())),
    input: streams.input,
    output: out,
    warnings: err,
  });
}
