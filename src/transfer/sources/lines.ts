// Cuts a byte stream into lines (JSONL, NDJSON), numbered from 1. Only the line being cut is held,
// so memory is bounded by the longest line whatever the file's size. Blank lines are not records
// (Fauna ends every JSONL file with a newline, and writes an empty one as just "\n"). The records
// of a chunk are given together, up to BATCH at a time: one promise per batch rather than per line,
// and a chunk of many short lines is not cut in one go (a reader in the server lets the loop go
// between batches).

import { failureReason } from './fileBytes';
import type { RecordOrProblem } from './records';

const NL = 0x0a;
const BATCH = 1024;

export async function* splitLines(chunks: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<RecordOrProblem[]> {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overlong = false; // the current line passed maxBytes: its bytes are dropped until its end
  let line = 1;

  const finish = (last: Buffer): RecordOrProblem | undefined => {
    const at = line++;
    if (overlong) {
      overlong = false;
      return { kind: 'problem', line: at, reason: `line longer than ${maxBytes} bytes: not read` };
    }
    const bytes = pending.length === 0 ? last : Buffer.concat([...pending, last]);
    pending = [];
    pendingBytes = 0;
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return { kind: 'problem', line: at, reason: 'line is not valid UTF-8' };
    }
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return undefined;
    return { kind: 'record', line: at, text };
  };

  try {
    for await (const chunk of chunks) {
      let batch: RecordOrProblem[] = [];
      let start = 0;
      for (let nl = chunk.indexOf(NL, start); nl >= 0; nl = chunk.indexOf(NL, start)) {
        const item = finish(chunk.subarray(start, nl));
        if (item) batch.push(item);
        start = nl + 1;
        if (batch.length >= BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
      if (start < chunk.length && !overlong) {
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
        if (pendingBytes > maxBytes) {
          overlong = true;
          pending = [];
          pendingBytes = 0;
        }
      }
    }
  } catch (err) {
    // The lines before are given; the one being cut is incomplete, so it is reported, not read.
    const cut = pendingBytes > 0 || overlong ? ' (the line is incomplete and was not read)' : '';
    yield [{ kind: 'problem', line, reason: failureReason(err) + cut }];
    return;
  }
  // A last line without a newline is complete: the file ended normally.
  if (pendingBytes > 0 || overlong) {
    const item = finish(Buffer.alloc(0));
    if (item) yield [item];
  }
}
