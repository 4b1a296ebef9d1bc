// What the admin commands (export-logs, backup, restore) share: their flags (`--name value`,
// `--name=value`, switches, operands), --help and exit codes, and the progress lines they print.

import type { Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { unknownOption } from '../suggest';

/** Bad usage: the command prints it with a pointer to --help and exits 2. */
export class UsageError extends Error {}

export interface CommandSpec<O> {
  /** As typed after `flora`. */
  name: string;
  usage: string;
  /** Throws UsageError for bad usage. */
  parse(args: readonly string[]): O;
  /** Resolves with the exit code. */
  run(opts: O): Promise<number>;
  /** The exit code of a failure `run` threw (default 1). */
  failure?(e: unknown): number;
}

/** --help (exit 0), bad usage (exit 2, with a pointer to --help), a failure (its message, exit 1 or as `failure` says). */
export async function runCommand<O>(spec: CommandSpec<O>, args: readonly string[], out: Writable, err: Writable): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    out.write(spec.usage);
    return 0;
  }
  let opts: O;
  try {
    opts = spec.parse(args);
  } catch (e) {
    if (e instanceof UsageError) {
      err.write(`flora ${spec.name}: ${e.message}\n\nRun 'flora ${spec.name} --help' for the options.\n`);
      return 2;
    }
    throw e;
  }
  try {
    return await spec.run(opts);
  } catch (e) {
    err.write(`flora ${spec.name}: ${(e as Error).message}\n`);
    return spec.failure?.(e) ?? 1;
  }
}

export interface ParsedFlags {
  values: Map<string, string>;
  switches: Set<string>;
  operands: string[];
}

/** Parses `args` given the flags that take a value and the switches; anything else is a UsageError. */
export function parseFlags(args: readonly string[], valued: readonly string[], switches: readonly string[]): ParsedFlags {
  const out: ParsedFlags = { values: new Map(), switches: new Set(), operands: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--') || arg === '-') {
      out.operands.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    if (switches.includes(name) && eq < 0) {
      out.switches.add(name);
      continue;
    }
    if (!valued.includes(name)) throw new UsageError(unknownOption(arg, [...valued, ...switches, '--help']));
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) throw new UsageError(`Option '${name}' needs a value.`);
    out.values.set(name, value);
  }
  return out;
}

type ParseOptions = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util's parseArgs (positionals allowed) with its errors as UsageErrors worded as the other
 * commands word them: an unknown option gets the closest known one, not node's advice about '--'.
 */
export function parseOptions<T extends ParseOptions>(args: readonly string[], options: T) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true as const });
  } catch (e) {
    const code = (e as { code?: string }).code;
    const message = (e as Error).message;
    const option = /^Unknown option '([^']+)'/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined) {
      const flags = Object.entries(options).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]);
      throw new UsageError(unknownOption(option, flags));
    }
    // "Option '--url <value>' argument missing": said as parseFlags says it.
    const missing = /^Option '(?:-\w, )?(--[\w-]+) <value>' argument missing/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && missing !== undefined) throw new UsageError(`Option '${missing}' needs a value.`);
    throw new UsageError(message);
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

/**
 * Progress lines on `err`: redrawn in place on a terminal (at most every 200 ms), else a plain line
 * every 5 s; `done` ends it with the final line.
 */
export function progressReporter(err: NodeJS.WritableStream): { update(line: () => string): void; done(line: string): void } {
  const tty = (err as { isTTY?: boolean }).isTTY === true;
  const every = tty ? 200 : 5000;
  let last = Date.now();
  let drawn = false;
  return {
    update(line) {
      const now = Date.now();
      if (now - last < every) return;
      last = now;
      err.write(tty ? `\r\x1b[K${line()}` : `${line()}\n`);
      drawn = tty;
    },
    done(line) {
      err.write(drawn ? `\r\x1b[K${line}\n` : `${line}\n`);
    },
  };
}
