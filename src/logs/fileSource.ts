// Reading the hour files back for an export: the files of the range (every process's, files.ts) are
// streamed a piece at a time, so memory stays bounded whatever the range; each piece gives the
// exported form of the records in [start, end) of the databases the export covers.

import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { LogRange, LogSource, RangeScan, ScanBatch } from './backend';
import { filesInRange, removeExpired } from './files';
import { exportedLine, formatTs, lineDb, lineTs, recentLine } from './record';

/** Lines longer than this are not records (the writer never makes them): skipped. */
const MAX_LINE = 1024 * 1024;

export class FileLogSource implements LogSource {
  constructor(private readonly dir: string) {}

  async scan(range: LogRange, batchBytes = 1024 * 1024): Promise<RangeScan> {
    // Only the bytes present now: every record of the range is on disk (the runner waited for it).
    const files = await filesInRange(this.dir, range.startMs, range.endMs);
    const lo = formatTs(range.startMs);
    const hi = formatTs(range.endMs);
    const filter = range.dbs;
    const form = range.paths ? recentLine : exportedLine;
    return {
      bytesTotal: files.reduce((n, f) => n + f.size, 0),
      async *[Symbol.asyncIterator](): AsyncIterator<ScanBatch> {
        let scanned = 0;
        for (const f of files) {
          if (f.size === 0) continue;
          const input = createReadStream(f.path, { start: 0, end: f.size - 1, highWaterMark: batchBytes });
          const decoder = new StringDecoder('utf8');
          let carry = '';
          try {
            for await (const chunk of input as AsyncIterable<Buffer>) {
              const text = carry + decoder.write(chunk);
              let out = '';
              let records = 0;
              let from = 0;
              for (let nl = text.indexOf('\n', from); nl >= 0; nl = text.indexOf('\n', from)) {
                const line = text.slice(from, nl);
                from = nl + 1;
                const ts = lineTs(line);
                if (ts === undefined || ts < lo || ts >= hi) continue;
                if (filter) {
                  const db = lineDb(line);
                  if (db === undefined || !filter.has(db)) continue;
                }
                out += `${form(line)}\n`;
                records++;
              }
              carry = text.length - from > MAX_LINE ? '' : text.slice(from);
              scanned += chunk.length;
              yield { text: out, records, scanned };
            }
          } finally {
            input.destroy();
          }
          // A last line without its newline is a torn write: not a record.
        }
      },
    };
  }

  async removeBefore(cutoffMs: number): Promise<void> {
    await removeExpired(this.dir, 0, cutoffMs);
  }
}
