// The JSON text of a GraphQL response as it is sent, within the response size limit. A short one
// is written at once (responseJson); a long one a slice at a time into UTF-8 pieces (an answer of
// many fields takes a while to write, and other requests must not wait for it), with an explicit
// stack, not recursion: no promise or frame per value.

import { responseTooLarge } from '../fql/render';
import { PieceWriter, TooLong } from '../wire/encode';
import type { Pacer } from '../wire/json';
import { responseJson, scalarJson } from './values';

/** Answers estimated shorter than this (characters) are written at once. */
const AT_ONCE = 64 * 1024;
/** Values written between two looks at the clock. */
const CLOCK_STRIDE = 1024;

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

/**
 * responseJson's text for `value`, at once (text) when `estimate` (of its length) is short, else a
 * slice at a time (UTF-8 bytes); LimitExceeded past `maxChars` characters.
 */
export function responseBody(value: unknown, txnTs: bigint, maxChars: number, pacer: Pacer, estimate: number): string | Promise<Buffer> {
  if (estimate < AT_ONCE) {
    const text = responseJson(value, txnTs);
    if (text.length > maxChars) throw responseTooLarge(text.length, maxChars);
    return text;
  }
  return responseSliced(value, txnTs, maxChars, pacer).catch((e: unknown) => {
    throw e instanceof TooLong ? responseTooLarge(e.length, maxChars) : e;
  });
}

/** responseJson's text for `value` as UTF-8, written a slice at a time; TooLong past `maxChars` characters. */
async function responseSliced(value: unknown, txnTs: bigint, maxChars: number, pacer: Pacer): Promise<Buffer> {
  const out = new PieceWriter(maxChars);
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
    out.write(s);
    if (++steps % CLOCK_STRIDE === 0 && performance.now() >= sliceEnd) {
      await pacer.pause();
      sliceEnd = performance.now() + pacer.sliceMs;
    }
  }
  return out.bytes();
}
