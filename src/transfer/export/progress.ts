// What an export says while it runs: on a terminal one line rewritten in place (collections done,
// documents, rate), elsewhere a plain line per collection finished, so that a log stays readable.

import type { Writable } from 'node:stream';

export interface ExportProgress {
  /** A collection (or credentials, keys, tokens, history file) of `database` is being read. */
  started(database: string, what: string): void;
  /** `n` more records were written. */
  records(n: number): void;
  /** That collection is done: `count` records. */
  finished(database: string, what: string, count: number): void;
  /** The export is complete. */
  done(summary: string): void;
}

export const silentProgress: ExportProgress = { started() {}, records() {}, finished() {}, done() {} };

export function streamProgress(out: Writable, tty = (out as NodeJS.WriteStream).isTTY === true, now = () => Date.now()): ExportProgress {
  const start = now();
  let total = 0;
  let collections = 0;
  let current = '';
  let shown = 0;
  const rate = () => {
    const s = (now() - start) / 1000;
    return s > 0 ? Math.round(total / s) : total;
  };
  const line = () => `${collections} done, ${total} records, ${rate()}/s${current ? ` — ${current}` : ''}`;
  const show = (force: boolean) => {
    if (!tty || (!force && now() - shown < 200)) return;
    shown = now();
    out.write(`\r\x1b[K${line()}`);
  };
  const label = (db: string, what: string) => (db ? `${db}: ${what}` : what);
  return {
    started(db, what) {
      current = label(db, what);
      show(true);
    },
    records(n) {
      total += n;
      show(false);
    },
    finished(db, what, count) {
      collections++;
      if (tty) show(true);
      else out.write(`${label(db, what)}: ${count} records (${total} in all, ${rate()}/s)\n`);
    },
    done(summary) {
      current = '';
      if (tty) out.write(`\r\x1b[K${line()}\n`);
      out.write(`${summary}\n`);
    },
  };
}
