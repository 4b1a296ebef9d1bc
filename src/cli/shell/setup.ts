// What `flora eval` and `flora shell` share before they run: their flags, the connection, and a
// printer for the streams they write to.

import { homedir } from 'node:os';
import type { Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../flags';
import { wantsColour } from './colour';
import { CONNECTION_OPTIONS, ConnectionError, resolveConnection, type Connection } from './connection';
import { FORMATS, Printer, type Format } from './output';

export type Terminal = Writable & { isTTY?: boolean; columns?: number };

export interface CommandStreams {
  out: Terminal;
  err: Terminal;
}

type Options = NonNullable<ParseArgsConfig['options']>;

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  connection: Connection;
  /** --format, if given. */
  format?: Format;
}

/** Parses the command's own options with the connection's and --format; throws UsageError. */
export function parseCommand(args: readonly string[], own: Options, env: NodeJS.ProcessEnv): Parsed | 'help' {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals: true, options: { ...CONNECTION_OPTIONS, format: { type: 'string' }, help: { type: 'boolean', short: 'h' }, ...own } });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const values = parsed.values as Parsed['values'];
  if (values.help) return 'help';
  const format = values.format as string | undefined;
  if (format !== undefined && !(FORMATS as string[]).includes(format)) throw new UsageError(`--format is one of ${FORMATS.join(', ')} (got '${format}')`);
  const str = (name: string) => values[name] as string | undefined;
  let connection;
  try {
    connection = resolveConnection({ url: str('url'), secret: str('secret'), endpoint: str('endpoint'), database: str('database') }, env, homedir());
  } catch (e) {
    if (e instanceof ConnectionError) throw new UsageError(e.message);
    throw e;
  }
  return { values, positionals: parsed.positionals, connection, format: format as Format | undefined };
}

/** Results on `out` in `format`, errors on `err`, metrics on `metrics`; colours where they go to a terminal. */
export function terminalPrinter(format: Format, streams: CommandStreams, env: NodeJS.ProcessEnv, metrics: Terminal | undefined): Printer {
  const channel = (stream: Terminal) => ({ stream, colour: wantsColour(stream, env) });
  return new Printer({
    format,
    results: channel(streams.out),
    errors: channel(streams.err),
    metrics: metrics && channel(metrics),
    width: () => streams.out.columns || 80,
  });
}
