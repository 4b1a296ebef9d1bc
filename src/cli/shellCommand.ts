// `flora shell`: an interactive shell for FQL v4 in the driver's JavaScript syntax (fauna-shell 0.x's
// `shell`) and FQL v10 (fauna-shell 4's), or a script runner when its input is not a terminal.

import { homedir } from 'node:os';
import type { Readable } from 'node:stream';
import { UsageError } from './flags';
import { Evaluator } from './shell/evaluate';
import { CONNECTION_HELP, openDatabase } from './shell/connection';
import { History, historyFilePath } from './shell/history';
import { runRepl, SHELL_HELP } from './shell/repl';
import { parseCommand, terminalPrinter, VERSION_HELP, type CommandStreams } from './shell/setup';

export const SHELL_USAGE = `Usage: flora shell [options]

An interactive shell for FQL v4 in the JavaScript driver's syntax, as fauna-shell 0.x had it, and
for FQL v10, as fauna-shell 4 has it: results in FQL syntax (v4's coloured on a terminal), then the
query's time and metrics; v4 errors with their code, description and position, v10 errors as
fauna-shell 4 prints them (the error's summary: the query with carets under the failing part). History is kept in ~/.flora_history (env
FLORA_HISTORY_FILE names another file; empty: none). When standard input is not a terminal, its
lines are run the same way without prompts, and the exit code is 1 if any input failed.

Options:
  --format <format>    shell: results in FQL syntax (the default); json: each result's JSON exactly
                       as the server sent it (v10: the simple format's)
${VERSION_HELP}
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
    const language = parsed.language === 'auto' ? 'FQL v4 and v10' : `FQL v${parsed.language}`;
    printer.note(`Connected to ${where} (${language})\nType .help for help, .exit or Ctrl-D to leave.`);
  }
  return runRepl({
    connection,
    evaluator: new Evaluator(client, printer, connection, parsed.language),
    printer,
    history: History.load(historyFilePath(env, homedir())),
    input: streams.input,
    output: out,
    warnings: err,
  });
}
