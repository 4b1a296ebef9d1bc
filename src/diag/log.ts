// The server's own log (not the query log, src/logs/): one line per event on stderr, as text or as
// JSON (--log-format), chosen once at start. Every room may import it: it imports no other room.

import { jsonLine, textLine, type LogFields, type LogFormat, type LogLevel } from './logLine';

interface LogSetup {
  format: LogFormat;
  /** "supervisor", a tier worker's number, or "main" (a server of one process). */
  worker: string;
  /** Literal secrets to keep out of every line (the root secret), beside the shapes redact() knows. */
  secrets: readonly string[];
}

let setup: LogSetup = { format: 'text', worker: 'main', secrets: [] };

/** Called once at start, before the first event. In JSON, Node's own warnings become events too. */
export function configureLog(s: LogSetup): void {
  setup = { ...s, secrets: [...s.secrets] };
  if (s.format === 'json') {
    process.removeAllListeners('warning'); // Node's printer writes free text
    process.on('warning', (w) => write('warn', w.message, { err: w }));
  }
}

export function logFormat(): LogFormat {
  return setup.format;
}

function write(level: LogLevel, msg: string, fields?: LogFields): void {
  const line = setup.format === 'json'
    ? jsonLine({ level, time: new Date(), msg, worker: setup.worker, pid: process.pid, fields }, setup.secrets)
    : textLine(msg, fields, setup.secrets);
  process.stderr.write(`${line}\n`);
}

export const log = {
  info: (msg: string, fields?: LogFields): void => write('info', msg, fields),
  warn: (msg: string, fields?: LogFields): void => write('warn', msg, fields),
  error: (msg: string, fields?: LogFields): void => write('error', msg, fields),
  /**
   * A step of the server's life (listening, stopping, stopped): in JSON an info event like any
   * other; in text `text` exactly as given (a line scripts wait for), or nothing.
   */
  milestone(msg: string, text: string | undefined, fields?: LogFields): void {
    if (setup.format === 'json') write('info', msg, fields);
    else if (text !== undefined) process.stderr.write(`${text}\n`);
  },
};
