// The shell's read-eval-print loop over node:readline. On a terminal: a prompt naming the
// database, a continuation prompt while the input is incomplete, tab completion, history recalled
// with the arrows, Ctrl-C to drop the input, Ctrl-D or .exit to leave. On any other input (a pipe,
// a file): the lines are read, evaluated and printed the same way, without prompts, until its end.

import * as readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { complete } from './completer';
import { normaliseDatabase, openDatabase, type Connection } from './connection';
import { ShellError } from './errors';
import type { Evaluator } from './evaluate';
import { History, MAX_ENTRIES } from './history';
import { isIncomplete } from './incomplete';
import type { Printer } from './output';

export const SHELL_HELP = `Commands:
  .use <path>   Work in a child database of the start database (a/b); '.use /' goes back
  .help         This help
  .exit         Leave the shell (or Ctrl-D)

Enter FQL v4 in the driver's JavaScript syntax: Paginate(Collections()),
Map(Paginate(Documents(Collection("users"))), Lambda("x", Get(Var("x")))), arrow functions,
let/const declarations kept for later inputs. Or FQL v10 (--version 10, or what v4's syntax refuses
with the default --version auto): Collection.all(), users.byId("1"), Math.abs(-1); an input is one
query, a block of let statements over several lines included. An input runs when it is complete
(brackets closed, an expression after the last let); Ctrl-C drops an unfinished one. Tab completes
function names.`;

export interface ReplOptions {
  connection: Connection;
  evaluator: Evaluator;
  printer: Printer;
  history: History;
  input: Readable & { isTTY?: boolean };
  output: Writable;
  /** Where warnings go (a history file that cannot be written). */
  warnings: Writable;
}

/**
 * Runs until .exit or the input's end. Resolves 0, or (when the input is not a terminal) 1 if an
 * input failed, so that a script piped in can be checked.
 */
export async function runRepl(opts: ReplOptions): Promise<number> {
  const { connection, evaluator, printer, history } = opts;
  const interactive = opts.input.isTTY === true;
  /** The database below the start one that `.use` chose. */
  let relative = '';
  const prompt = () => `${[connection.database, relative].filter((p) => p !== '').join('/')}> `;
  const rl = readline.createInterface({
    input: opts.input,
    output: interactive ? opts.output : undefined,
    terminal: interactive,
    completer: interactive ? (line: string) => complete(line, evaluator.names(), evaluator.language) : undefined,
    history: [...history.lines()].reverse(), // readline's is newest first
    historySize: MAX_ENTRIES,
    prompt: prompt(),
  });
  let pending = '';
  let failed = false;
  let warned = false;
  let left = false;
  const next = (continued: boolean) => {
    rl.setPrompt(continued ? '... ' : prompt());
    if (interactive) rl.prompt();
  };
  /** A query is running: its answer is awaited (the server bounds its time), Ctrl-C waits too. */
  let busy = false;
  rl.on('SIGINT', () => {
    if (busy) return;
    const empty = pending === '' && rl.line === '';
    // What Node's REPL does: end the line as typed, and start a fresh input.
    (rl as unknown as { clearLine(): void }).clearLine();
    pending = '';
    if (empty) opts.output.write('(To leave, press Ctrl-D or type .exit)\n');
    next(false);
  });

  /** Handles a `.command`; resolves false for `.exit`. */
  const command = async (line: string): Promise<boolean> => {
    const [name, ...args] = line.split(/\s+/);
    if (name === '.exit') return false;
    if (name === '.help') printer.note(SHELL_HELP);
    else if (name === '.use' && args.length === 1) {
      try {
        evaluator.client = await openDatabase(connection, args[0]);
        relative = normaliseDatabase(args[0]);
      } catch (e) {
        failed = true;
        if (!printer.failure(e)) throw e;
      }
    } else {
      failed = true;
      printer.failure(new ShellError(name === '.use' ? 'usage: .use <database path> (a/b below the start database, / for it)' : `unknown command '${name}' (.help lists them)`));
    }
    return true;
  };

  next(false);
  for await (const line of rl) {
    const error = history.add(line);
    if (error && !warned) {
      warned = true;
      opts.warnings.write(`flora shell: history not saved: ${error.message}\n`);
    }
    if (pending === '' && line.trimStart().startsWith('.')) {
      busy = true;
      const stay = await command(line.trim());
      busy = false;
      if (!stay) {
        left = true;
        break;
      }
      next(false);
      continue;
    }
    pending = pending === '' ? line : `${pending}\n${line}`;
    if (isIncomplete(pending, evaluator.language)) {
      next(true);
      continue;
    }
    const input = pending;
    pending = '';
    busy = true;
    if (input.trim() !== '' && !(await evaluator.run(input))) failed = true;
    busy = false;
    next(false);
  }
  rl.close();
  if (interactive && !left) opts.output.write('\n'); // Ctrl-D ends no line
  // An input cut short by the end of the file is still run, so that its error is shown.
  if (pending.trim() !== '' && !(await evaluator.run(pending))) failed = true;
  return interactive || !failed ? 0 : 1;
}
