// The JSON text of a GraphQL response as it is sent: within the response size limit, and written a
// slice at a time (an answer of many fields takes a while to write, and other requests must not
// wait for it). An explicit stack, not recursion: no promise or frame per value.

import { responseTooLarge } from '../fql/render';
import type { Pacer } from '../wire/json';
import { scalarJson } from './values';

/** Values written between two looks at the clock. */
const CLOCK_STRIDE = 1024;
/** Text is kept in pieces of about this many characters, joined once at the end. */
const PIECE = 64 * 1024;

/** A list or an object being written (one shape for both, so that the loop stays monomorphic). */
class Frame {
  i = 0;
  wrote = false;
  readonly size: number;

  constructor(
    readonly list: readonly unknown[] | null,
    readonly object: Record<string, unknown> | null,
    readonly keys: readonly string[] | null,
  ) {
    this.size = list ? list.length : keys!.length;
  }
}

/** responseJson's text for `value`; LimitExceeded past `maxChars` characters. */
export async function responseText(value: unknown, txnTs: bigint, maxChars: number, pacer: Pacer): Promise<string> {
  const pieces: string[] = [];
  let piece = '';
  let length = 0;
  /** `"key":` by key: the same few keys come back for every object of a list. */
  const keyText = new Map<string, string>();
  const stack: Frame[] = [];
  let sliceEnd = performance.now() + pacer.sliceMs;
  let steps = 0;
  let next: unknown = value;
  let pending = true; // `next` is to be written
  for (;;) {
    let s: string;
    if (pending) {
      pending = false;
      const v = next;
      if (typeof v === 'string') s = JSON.stringify(v);
      else if (Array.isArray(v)) {
        s = '[';
        stack.push(new Frame(v, null, null));
      } else {
        const scalar = scalarJson(v, txnTs);
        if (scalar !== undefined) s = scalar;
        else {
          s = '{';
          const object = v as Record<string, unknown>;
          stack.push(new Frame(null, object, Object.keys(object)));
        }
      }
    } else {
      const top = stack[stack.length - 1];
      if (top === undefined) break;
      if (top.list !== null) {
        if (top.i === top.size) {
          s = ']';
          stack.pop();
        } else {
          s = top.i === 0 ? '' : ',';
          next = top.list[top.i++];
          pending = true;
        }
      } else {
        const keys = top.keys!;
        const object = top.object!;
        while (top.i < top.size && object[keys[top.i]] === undefined) top.i++;
        if (top.i === top.size) {
          s = '}';
          stack.pop();
        } else {
          const key = keys[top.i++];
          let k = keyText.get(key);
          if (k === undefined) keyText.set(key, (k = JSON.stringify(key) + ':'));
          s = top.wrote ? ',' + k : k;
          top.wrote = true;
          next = object[key];
          pending = true;
        }
      }
    }
    length += s.length;
    if (length > maxChars) throw responseTooLarge(length, maxChars);
    piece += s;
    if (piece.length >= PIECE) {
      pieces.push(piece);
      piece = '';
    }
    if (++steps % CLOCK_STRIDE === 0 && performance.now() >= sliceEnd) {
      await pacer.pause();
      sliceEnd = performance.now() + pacer.sliceMs;
    }
  }
  pieces.push(piece);
  return pieces.join('');
}
