// How `flora eval` and `flora shell` print: a result in FQL syntax as fauna-shell 0.x printed it
// (or its exact wire JSON), an error as fauna-shell showed it (`Error: <code>` and the response's
// errors with their positions and descriptions), and the query's metrics. FQL v10 as fauna-shell 4
// prints it: the decorated result as the server wrote it, a failure as "The query failed with the
// following error:" and the response's summary (the source with carets), then abort's value.

import type { Writable } from 'node:stream';
import { FqlJsError, renderValue, wireText } from '../../fqljs';
import type { JsonValue } from '../../wire/expr';
import { parseJson } from '../../wire/json';
import { QueryFailed, ServerUnreachable, type QueryAnswer, type ResponseHeaders } from '../../transfer/queryClient';
import { colourToken, dim, red } from './colour';
import { ShellError } from './errors';
import { QueryFailedV10, type V10Answer, type V10Format } from './v10Client';

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

  /** The /query/1 format whose `data` this printer shows. */
  get v10Format(): V10Format {
    return this.opts.format === 'json' ? 'simple' : 'decorated';
  }

  resultV10(answer: V10Answer): void {
    this.opts.results.stream.write(`${answer.data}\n`);
    this.metricsV10(answer.stats);
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
    if (e instanceof QueryFailedV10) {
      errors.stream.write(this.opts.format === 'json' ? `${e.body.trim()}\n` : `${this.failureV10(e)}\n`);
      this.metricsV10(e.stats);
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

  /** fauna-shell 4's text of a failure; a request that did not run (no summary) is `Error: <code>: <message>`. */
  private failureV10(e: QueryFailedV10): string {
    const colour = this.opts.errors.colour;
    const heading = (text: string) => (colour ? red(text) : text);
    if (e.summary === '') return `${heading('Error:')} ${e.code}: ${e.description}`;
    let text = `${heading('The query failed with the following error:')}\n\n${e.summary}`;
    if (e.abort !== undefined) text += `\n\n${heading('Abort value:')}\n${e.abort}`;
    if (e.constraintFailures !== undefined) text += `\n\n${heading('Constraint failures:')}\n${JSON.stringify(JSON.parse(e.constraintFailures), null, 2)}`;
    return text;
  }

  private metrics(headers: ResponseHeaders): void {
    this.metricsText(metricsLine(headers));
  }

  private metricsV10(stats: V10Answer['stats']): void {
    if (stats.size === 0) return;
    const s = (name: string) => String(stats.get(name) ?? '?');
    this.metricsText(`time ${s('query_time_ms')} ms, compute ${s('compute_ops')}, reads ${s('read_ops')}, writes ${s('write_ops')}`);
  }

  private metricsText(line: string | undefined): void {
    const channel = this.opts.metrics;
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
