// How `flora eval` and `flora shell` print: a result in FQL syntax as fauna-shell 0.x printed it
// (or its exact wire JSON), an error as fauna-shell showed it (`Error: <code>` and the response's
// errors with their positions and descriptions), and the query's metrics.

import type { Writable } from 'node:stream';
import { FqlJsError, renderValue, wireText } from '../../fqljs';
import type { JsonValue } from '../../wire/expr';
import { parseJson } from '../../wire/json';
import { QueryFailed, ServerUnreachable, type QueryAnswer, type ResponseHeaders } from '../../transfer/queryClient';
import { colourToken, dim, red } from './colour';
import { ShellError } from './errors';

export type Format = 'shell' | 'json';
export const FORMATS: readonly Format[] = ['shell', 'json'];

/** A stream to write to, and whether it takes ANSI colours. */
export interface Channel {
  stream: Writable;
  colour: boolean;
}

export interface PrinterOptions {
  format: Format;
  results: Channel;
  errors: Channel;
  /** Where the metrics line after each answer goes; none when undefined. */
  metrics?: Channel;
  /** Columns to lay results out in (a terminal's may change). */
  width: () => number;
}

export class Printer {
  constructor(private readonly opts: PrinterOptions) {}

  result(answer: QueryAnswer): void {
    const { format, results } = this.opts;
    const text = format === 'json' ? resourceJson(answer) : renderValue(answer.resource, { width: this.opts.width(), colour: results.colour ? colourToken : undefined });
    results.stream.write(`${text}\n`);
    this.metrics(answer.headers);
  }

  /** Prints a failure of parsing, connecting or querying; false for anything else (a fault, for the caller to raise). */
  failure(e: unknown): boolean {
    const { errors } = this.opts;
    const label = errors.colour ? red('Error:') : 'Error:';
    if (e instanceof QueryFailed) {
      errors.stream.write(this.opts.format === 'json' && e.answer.body ? `${e.answer.body.trim()}\n` : `${label} ${e.code}\n${this.errorList(e)}\n`);
      this.metrics(e.answer.headers);
      return true;
    }
    if (e instanceof FqlJsError || e instanceof ServerUnreachable || e instanceof ShellError) {
      errors.stream.write(`${label} ${e.message}\n`);
      return true;
    }
    return false;
  }

  /** A line for the user (the shell's messages), on the results' stream. */
  note(text: string): void {
    this.opts.results.stream.write(`${text}\n`);
  }

  /** The answer's `{errors: […]}` in FQL syntax; the first error alone when the body is not Fauna's. */
  private errorList(e: QueryFailed): string {
    let body: JsonValue;
    try {
      body = parseJson(e.answer.body);
    } catch {
      const position = e.position.map((p) => (typeof p === 'number' ? BigInt(p) : p));
      body = new Map([['errors', [new Map<string, JsonValue>([['position', position], ['code', e.code], ['description', e.description]])]]]);
    }
    return renderValue(body, { width: this.opts.width(), colour: this.opts.errors.colour ? colourToken : undefined });
  }

  private metrics(headers: ResponseHeaders): void {
    const channel = this.opts.metrics;
    const line = metricsLine(headers);
    if (!channel || line === undefined) return;
    channel.stream.write(`${channel.colour ? dim(line) : line}\n`);
  }
}

/** `time N ms, compute N, reads N, writes N` from a response's headers; undefined when it has none. */
export function metricsLine(headers: ResponseHeaders): string | undefined {
  if (headers['x-query-time'] === undefined && headers['x-compute-ops'] === undefined) return undefined;
  const h = (name: string) => headers[name] ?? '?';
  return `time ${h('x-query-time')} ms, compute ${h('x-compute-ops')}, reads ${h('x-byte-read-ops')}, writes ${h('x-byte-write-ops')}`;
}

/**
 * The resource's JSON exactly as the server wrote it (so a Double keeps its `.0` and a Long its
 * digits): the text inside `{"resource": …}`, re-encoded only if the body has another shape.
 */
export function resourceJson(answer: QueryAnswer): string {
  const inner = /^\s*\{\s*"resource"\s*:([\s\S]*)\}\s*$/.exec(answer.body)?.[1];
  if (inner !== undefined) {
    try {
      parseJson(inner); // the whole remainder is the resource, not it and more keys
      return inner.trim();
    } catch {
      // fall through
    }
  }
  return wireText(answer.resource);
}
