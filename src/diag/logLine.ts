// One event of the server's log as the line that is written: `flora: …` text (what the server has
// always written, and tests and operators read), or one JSON object a log shipper parses.

import { inspect } from 'node:util';
import { isSecretField, redact, REDACTED } from './redact';

export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export type LogLevel = 'info' | 'warn' | 'error';

/** What an event carries beside its message; `err` is serialised with its stack. */
export interface LogFields {
  requestId?: string;
  err?: unknown;
  [name: string]: unknown;
}

export interface LogEvent {
  level: LogLevel;
  time: Date;
  msg: string;
  /** "supervisor", a tier worker's number, or "main" for a server of one process. */
  worker: string;
  pid: number;
  fields?: LogFields;
}

/** `flora: <msg>`, then the error as Node prints it (its stack) when there is one. */
export function textLine(msg: string, fields: LogFields | undefined, secrets: readonly string[]): string {
  const err = fields?.err;
  return redact(`flora: ${msg}${err === undefined ? '' : `: ${inspect(err)}`}`, secrets);
}

/** `{"level","time","msg","worker","pid","requestId"?,…fields,"err"?}` on one line (JSON escapes the stack's newlines). */
export function jsonLine(e: LogEvent, secrets: readonly string[]): string {
  const { requestId, err, ...rest } = e.fields ?? {};
  const out: Record<string, unknown> = { level: e.level, time: e.time.toISOString(), msg: redact(e.msg, secrets), worker: e.worker, pid: e.pid };
  if (requestId !== undefined) out.requestId = plain(requestId, secrets, 0);
  for (const [name, value] of Object.entries(rest)) {
    if (value === undefined || name in out) continue;
    out[name] = isSecretField(name) ? REDACTED : plain(value, secrets, 0);
  }
  if (err !== undefined) out.err = errorObject(err, secrets);
  return JSON.stringify(out);
}

/** Deeper than this, a field value is written as Node would print it (no cycle can loop). */
const MAX_DEPTH = 4;

function plain(v: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof v === 'string') return redact(v, secrets);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return v;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Error) return errorObject(v, secrets);
  if (v instanceof Date) return v.toISOString();
  if (typeof v !== 'object' || depth >= MAX_DEPTH) return redact(inspect(v, { breakLength: Infinity }), secrets);
  if (Array.isArray(v)) return v.map((x) => plain(x, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [name, x] of Object.entries(v)) if (x !== undefined) out[name] = isSecretField(name) ? REDACTED : plain(x, secrets, depth + 1);
  return out;
}

function errorObject(err: unknown, secrets: readonly string[]): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: redact(typeof err === 'string' ? err : inspect(err, { breakLength: Infinity }), secrets) };
  const code = (err as { code?: unknown }).code;
  return {
    name: err.name,
    message: redact(err.message, secrets),
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(err.stack ? { stack: redact(err.stack, secrets) } : {}),
  };
}
