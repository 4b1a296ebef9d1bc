// Response bodies: {"resource": …} and {"errors": […]} in Fauna's shapes.

import { encodeValue, encodeValueSliced, isWide, TooLong, type LegacyStyle } from '../wire/encode';
import { jsonString, type Pacer } from '../wire/json';
import type { ProtocolError, QueryError } from '../values/errors';
import type { Value } from '../values/types';
import { LimitExceeded } from '../model/budget';

/** `{"resource": …}`; a rendering longer than `maxBytes` characters is refused (LimitExceeded). */
export function resourceBody(v: Value, txnTs: bigint, maxBytes = Infinity, legacy?: LegacyStyle): string {
  let body: string;
  try {
    body = `{"resource":${encodeValue(v, { txnTs, maxLength: maxBytes, legacy })}}`;
  } catch (e) {
    if (e instanceof TooLong) throw responseTooLarge(e.length, maxBytes);
    throw e;
  }
  if (body.length > maxBytes) throw responseTooLarge(body.length, maxBytes);
  return body;
}

/**
 * resourceBody for any result: a narrow one at once (text), a wide one (long arrays, objects, pages)
 * a slice at a time into UTF-8 bytes, so that a large result never holds the event loop long.
 */
export function resourceBytes(v: Value, txnTs: bigint, maxBytes: number, pacer: Pacer, legacy?: LegacyStyle): string | Promise<Buffer> {
  if (!isWide(v)) return resourceBody(v, txnTs, maxBytes, legacy);
  return encodeValueSliced(v, { txnTs, maxLength: maxBytes, legacy }, pacer, '{"resource":', '}').catch((e: unknown) => {
    throw e instanceof TooLong ? responseTooLarge(e.length, maxBytes) : e;
  });
}

export function responseTooLarge(size: number, limit: number): LimitExceeded {
  return new LimitExceeded(`Response exceeds the size limit: got ${size} bytes or more, limit ${limit} bytes`);
}

function position(p: (string | number)[]): string {
  return `[${p.map((x) => (typeof x === 'number' ? String(x) : jsonString(x))).join(',')}]`;
}

function queryErrorJson(e: QueryError): string {
  let s = `{"position":${position(e.position)},"code":${jsonString(e.code)},"description":${jsonString(e.description)}`;
  if (e.failures?.length)
    s += `,"failures":[${e.failures
      .map((f) => `{"field":${position(f.field)},"code":${jsonString(f.code)},"description":${jsonString(f.description)}}`)
      .join(',')}]`;
  if (e.cause?.length) s += `,"cause":[${e.cause.map(queryErrorJson).join(',')}]`;
  return s + '}';
}

export function queryErrorBody(e: QueryError): string {
  return `{"errors":[${[e, ...e.also].map(queryErrorJson).join(',')}]}`;
}

export function protocolErrorBody(e: Pick<ProtocolError, 'code' | 'description'>): string {
  return `{"errors":[{"code":${jsonString(e.code)},"description":${jsonString(e.description)}}]}`;
}
