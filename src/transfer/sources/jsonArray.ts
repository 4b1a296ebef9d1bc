// Cuts a file holding one top-level JSON array into the texts of its elements, with the line each
// starts on and its 1-based position. Fauna's export writes `[doc,doc,…]` with no newlines
// (core: ext/model/src/main/scala/tasks/export/Outfile.scala, OutfileWriter.writeFragment and
// commit), so a 128 MiB file is one line: only the element being cut is held, never the file.
//
// The cutter only follows strings and bracket depth; each element's text is then parsed on its own,
// so a malformed element is one problem and the elements after it are still read. An element is
// given only once the `,` or `]` after it is seen: a file cut short loses no half-read element.
// The records of a chunk are given together (one promise per chunk, not per element).

import { failureReason } from './fileBytes';
import type { RecordOrProblem } from './records';

const enum C {
  LF = 10,
  SPACE = 32,
  TAB = 9,
  CR = 13,
  QUOTE = 34,
  BACKSLASH = 92,
  COMMA = 44,
  OPEN_SQUARE = 91,
  CLOSE_SQUARE = 93,
  OPEN_CURLY = 123,
  CLOSE_CURLY = 125,
}

const enum State {
  BeforeArray, // expecting `[`
  BeforeElement, // after `[` or `,`: expecting an element (or `]` right after `[`)
  InElement,
  AfterArray, // after the closing `]`: only blanks may follow
}

function isBlank(c: number): boolean {
  return c === C.SPACE || c === C.LF || c === C.CR || c === C.TAB;
}

export async function* splitJsonArray(chunks: AsyncIterable<Buffer>, maxChars: number): AsyncGenerator<RecordOrProblem[]> {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let state = State.BeforeArray;
  let line = 1;
  let element = 0; // elements started so far
  let startLine = 0; // line of the current element's first character
  let depth = 0;
  let inString = false;
  let escaped = false;
  let pieces: string[] = [];
  let pieceChars = 0;
  let overlong = false;
  let empty = true; // `[` was just read: `]` may close an empty array

  /** A problem at line `at`, about the current element unless `ofElement` is false. */
  const problem = (reason: string, at = line, ofElement = true): RecordOrProblem => ({
    kind: 'problem',
    line: at,
    element: ofElement && element > 0 ? element : undefined,
    reason,
  });

  /** The current element is complete: its record, or the problem that it is too long. */
  const take = (): RecordOrProblem => {
    const item: RecordOrProblem = overlong
      ? problem(`array element longer than ${maxChars} characters: not read`, startLine)
      : { kind: 'record', line: startLine, element, text: pieces.join('') };
    pieces = [];
    pieceChars = 0;
    overlong = false;
    return item;
  };

  try {
    for await (const chunk of chunks) {
      const batch: RecordOrProblem[] = [];
      let text: string;
      try {
        text = utf8.decode(chunk, { stream: true });
      } catch {
        yield [problem('not valid UTF-8: the rest of the file was not read')];
        return;
      }
      let from = -1; // where the current element's text starts in `text`, while in one
      if (state === State.InElement) from = 0;
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === C.LF) line++;
        if (state === State.BeforeArray) {
          if (isBlank(c)) continue;
          if (c !== C.OPEN_SQUARE) {
            yield [...batch, problem('not a JSON array (the file does not start with "["): not read')];
            return;
          }
          state = State.BeforeElement;
          empty = true;
          continue;
        }
        if (state === State.AfterArray) {
          if (isBlank(c)) continue;
          yield [...batch, problem('text after the end of the array: not read', line, false)];
          return;
        }
        if (state === State.BeforeElement) {
          if (isBlank(c)) continue;
          if (c === C.CLOSE_SQUARE && empty) {
            state = State.AfterArray;
            continue;
          }
          element++;
          if (c === C.COMMA || c === C.CLOSE_SQUARE) {
            batch.push(problem(`array element ${element} is missing`));
            if (c === C.CLOSE_SQUARE) state = State.AfterArray;
            continue;
          }
          state = State.InElement;
          startLine = line;
          depth = 0;
          inString = false;
          escaped = false;
          from = i;
          // this character is the element's first: read on as one
        }
        if (inString) {
          if (escaped) escaped = false;
          else if (c === C.BACKSLASH) escaped = true;
          else if (c === C.QUOTE) inString = false;
        } else if (c === C.QUOTE) inString = true;
        else if (c === C.OPEN_CURLY || c === C.OPEN_SQUARE) depth++;
        else if ((c === C.CLOSE_CURLY || c === C.CLOSE_SQUARE) && depth > 0) depth--;
        else if (depth === 0 && (c === C.COMMA || c === C.CLOSE_SQUARE)) {
          if (!overlong) pieces.push(text.slice(from, i));
          batch.push(take());
          state = c === C.COMMA ? State.BeforeElement : State.AfterArray;
          empty = false;
          from = -1;
        }
      }
      if (batch.length > 0) yield batch;
      if (state === State.InElement && !overlong) {
        pieces.push(text.slice(from));
        pieceChars += text.length - from;
        if (pieceChars > maxChars) {
          overlong = true;
          pieces = [];
        }
      }
    }
  } catch (err) {
    const where = state === State.InElement ? ` (element ${element} is incomplete and was not read)` : '';
    yield [problem(failureReason(err) + where, state === State.InElement ? startLine : line)];
    return;
  }
  const end = state as State; // (TypeScript does not follow the loop's assignments)
  if (end === State.BeforeArray) yield [problem('no JSON array in the file')];
  else if (end !== State.AfterArray) {
    const inside = end === State.InElement;
    const at = inside ? `inside element ${element}, which was not read` : `after element ${element}`;
    yield [problem(`the array is not closed: the file ends ${at}`, inside ? startLine : line)];
  }
}
