// What `flora eval` and `flora shell` share before they run: their flags, the connection, and a
// printer for the streams they write to.

import { homedir } from 'node:os';
import type { Writable } from 'node:stream';
import type { ParseArgsConfig } from 'node:util';
import { parseOptions, UsageError } from '../flags';
import { wantsColour } from './colour';
import { LANGUAGES, type Language } from './language';
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
  /** --version: the FQL version inputs are in (default auto: v10 where the v4 syntax fails and v10 parses). */
  language: Language;
}

/** The usage text of --version. */
export const VERSION_HELP = `  --version <v>        The FQL version of the input: 4 (FQL v4 in the JavaScript driver's syntax,
                       sent to POST /), 10 (FQL v10, sent to POST /query/1), or auto (the default:
                       an input that FQL v4's syntax refuses and FQL v10's parser takes is v10,
                       unless it calls a function only v4 has, such as Paginate; any other is v4)`;

/** Parses the command's own options with the connection's and --format; throws UsageError. */
export function parseCommand(args: readonly string[], own: Options, env: NodeJS.ProcessEnv): Parsed | 'help' {
  const parsed = parseOptions(args, { ...CONNECTION_OPTIONS, format: { type: 'string' }, version: { type: 'string' }, help: { type: 'boolean', short: 'h' }, ...own });
  const values = parsed.values as Parsed['values'];
  if (values.help) return 'help';
  const format = values.format as string | undefined;
  if (format !== undefined && !(FORMATS as string[]).includes(format)) throw new UsageError(`--format is one of ${FORMATS.join(', ')} (got '${format}')`);
  const language = (values.version ?? 'auto') as string;
  if (!(LANGUAGES as string[]).includes(language)) throw new UsageError(`--version is one of ${LANGUAGES.join(', ')} (got '${language}')`);
  const str = (name: string) => values[name] as string | undefined;
  let connection;
  try {
    connection = resolveConnection({ url: str('url'), secret: str('secret'), endpoint: str('endpoint'), database: str('database') }, env, homedir());
  } catch (e) {
    if (e instanceof ConnectionError) throw new UsageError(e.message);
    throw e;
  }
  return { values, positionals: parsed.positionals, connection, format: format as Format | undefined, language: language as Language };
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
