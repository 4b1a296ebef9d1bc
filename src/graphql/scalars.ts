// The Fauna scalars (graphql.md A.6): Date `yyyy-MM-dd` ↔ FQL Date, Time (RFC 3339, output in UTC
// with at least milliseconds) ↔ FQL Time, Long (64-bit JSON integer) ↔ FQL Long (bigint).
// Their parse functions produce FQL values directly; serialize accepts FQL values.

import { GraphQLError, Kind, print, type GraphQLScalarType, type ValueNode } from 'graphql';
import { DateV, LONG_MAX, LONG_MIN, Time, TxnTime } from '../values/types';
import { formatDate, formatTime, parseDate, parseIsoTime } from '../wire/time';

export function formatGqlTime(nanos: bigint): string {
  const s = formatTime(nanos);
  return s.includes('.') ? s : `${s.slice(0, -1)}.000Z`;
}

function parseLong(v: unknown): bigint {
  if (typeof v === 'bigint') {
    if (v < LONG_MIN || v > LONG_MAX) throw new GraphQLError(`Long cannot represent value: ${v}`);
    return v;
  }
  if (typeof v === 'number' && Number.isInteger(v)) return parseLong(BigInt(v));
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return parseLong(BigInt(v));
  throw new GraphQLError(`Long cannot represent non-integer value: ${show(v)}`);
}

function show(v: unknown): string {
  try {
    return typeof v === 'bigint' ? String(v) : JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** Only `yyyy-MM-dd` (FQL's Date() also takes a sign and longer years). */
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const DATE_FORMAT = 'Date must be a string in the format yyyy-MM-dd';
const TIME_FORMAT = 'Time must be a string in the format yyyy-MM-ddTHH:mm:ss.SSSZ';

function parseDateValue(v: unknown): DateV {
  if (v instanceof DateV) return v;
  const days = typeof v === 'string' && DATE.test(v) ? parseDate(v) : undefined;
  if (days === undefined) throw new GraphQLError(`${DATE_FORMAT}: ${show(v)}`);
  return new DateV(days);
}

function parseTimeValue(v: unknown): Time {
  if (v instanceof Time) return v;
  const nanos = typeof v === 'string' ? parseIsoTime(v) : undefined;
  if (nanos === undefined) throw new GraphQLError(`${TIME_FORMAT}: ${show(v)}`);
  return new Time(nanos);
}

/** parseLiteral of Date and Time: a string literal, or an error showing the literal as written. */
function stringLiteral(parse: (v: string) => unknown, format: string): (node: ValueNode) => unknown {
  return located((node) => {
    if (node.kind !== Kind.STRING) throw new GraphQLError(`${format}: ${print(node)}`);
    return parse(node.value);
  });
}

/** Replaces the behaviour of the Date, Time and Long scalars of a schema built from SDL. */
export function installScalars(types: { Date?: GraphQLScalarType; Time?: GraphQLScalarType; Long?: GraphQLScalarType }): void {
  const { Date: date, Time: time, Long: long } = types;
  if (long) {
    long.serialize = (v: unknown) => {
      if (v instanceof TxnTime) return v; // a document's ts written by this request: its commit time
      if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
      if (typeof v === 'bigint') return v;
      throw new GraphQLError(`Long cannot represent value: ${show(v)}`);
    };
    long.parseValue = parseLong;
    long.parseLiteral = located((node) => {
      if (node.kind !== Kind.INT) throw new GraphQLError(`Long cannot represent non-integer value: ${print(node)}`);
      return parseLong(BigInt(node.value));
    });
  }
  if (date) {
    date.serialize = (v: unknown) => {
      if (v instanceof DateV) return formatDate(v.days);
      if (typeof v === 'string' && parseDate(v) !== undefined) return v;
      throw new GraphQLError(`Date cannot represent value: ${show(v)}`);
    };
    date.parseValue = parseDateValue;
    date.parseLiteral = stringLiteral(parseDateValue, DATE_FORMAT);
  }
  if (time) {
    time.serialize = (v: unknown) => {
      if (v instanceof Time) return formatGqlTime(v.nanos);
      if (typeof v === 'string') {
        const nanos = parseIsoTime(v);
        if (nanos !== undefined) return formatGqlTime(nanos);
      }
      throw new GraphQLError(`Time cannot represent value: ${show(v)}`);
    };
    time.parseValue = parseTimeValue;
    time.parseLiteral = stringLiteral(parseTimeValue, TIME_FORMAT);
  }
}

/** graphql-js reports a literal's GraphQLError as it is: give it the literal's location. */
function located(parse: (node: ValueNode) => unknown): (node: ValueNode) => unknown {
  return (node) => {
    try {
      return parse(node);
    } catch (e) {
      if (e instanceof GraphQLError && !e.nodes) throw new GraphQLError(e.message, { nodes: node });
      throw e;
    }
  };
}
