// The records of a data file, in batches (those of one chunk): JSON texts with the line (and, in a
// JSON-array file, the element) each starts on, or a problem where one could not be cut out. JSONL files give one record per
// non-blank line; JSON files one per element of their top-level array. Problems carry the reason;
// the records before and after a problem are still given.

import { fileChunks, failureReason, ReadFailure } from './fileBytes';
import { splitJsonArray } from './jsonArray';
import { splitLines } from './lines';

export interface RawRecord {
  readonly kind: 'record';
  readonly line: number;
  readonly element?: number;
  readonly text: string;
}

export interface RawProblem {
  readonly kind: 'problem';
  readonly line: number;
  readonly element?: number;
  readonly reason: string;
}

export type RecordOrProblem = RawRecord | RawProblem;

/** `auto`: an array when the first non-blank character is `[`, else lines. */
export type Layout = 'lines' | 'array' | 'auto';

/** Records larger than this are reported, not read (Fauna documents are at most 8 MB). */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

export async function* readRecords(file: string, layout: Layout, maxBytes = MAX_RECORD_BYTES, onBytes?: (bytes: number) => void): AsyncGenerator<RecordOrProblem[]> {
  let chunks: AsyncIterable<Buffer>;
  try {
    const first = await firstChunks(fileChunks(file, onBytes));
    if (layout === 'auto') layout = first.firstChar === 0x5b /* [ */ ? 'array' : 'lines';
    chunks = first.chunks;
  } catch (err) {
    yield [{ kind: 'problem', line: err instanceof ReadFailure ? 0 : 1, reason: failureReason(err) }];
    return;
  }
  yield* layout === 'array' ? splitJsonArray(chunks, maxBytes) : splitLines(chunks, maxBytes);
}

/** Reads up to the first non-blank byte (to tell the layout), and gives back a stream that starts over. */
async function firstChunks(source: AsyncGenerator<Buffer>): Promise<{ firstChar: number | undefined; chunks: AsyncIterable<Buffer> }> {
  const held: Buffer[] = [];
  let firstChar: number | undefined;
  let failure: unknown;
  try {
    while (firstChar === undefined) {
      const next = await source.next();
      if (next.done) break;
      held.push(next.value);
      firstChar = next.value.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
    }
  } catch (err) {
    if (err instanceof ReadFailure) throw err;
    failure = err; // a read error after some bytes: given after them, where the splitter counts the line
  }
  async function* replay(): AsyncGenerator<Buffer> {
    yield* held;
    held.length = 0;
    if (failure !== undefined) throw failure;
    yield* source;
  }
  return { firstChar, chunks: replay() };
}

