// A response that stays open and is written piece by piece (POST /stream): the headers at once,
// then chunks flushed as they are written — HTTP/1.1 chunked transfer encoding, or DATA frames on
// the HTTP/2 stream. It notices when the client goes away (HTTP/2 RST_STREAM or session
// destroyed, HTTP/1.1 socket closed) and reports it once through onClose.

import type * as http from 'node:http';
import * as http2 from 'node:http2';
import type { HttpResponse } from './context';
import type { AnyResponse, Protocol } from './listener';
import type { StreamSink } from '../streams/sink';
import { log } from '../diag/log';

export type { StreamSink };


const CONNECTION_HEADERS = ['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'content-length'];

export function openStreamSink(res: AnyResponse, protocol: Protocol, head: HttpResponse): StreamSink {
  const headers: Record<string, string> = { ...head.headers };
  for (const name of CONNECTION_HEADERS) delete headers[name];
  if (protocol === 'h2') {
    const stream = (res as http2.Http2ServerResponse).stream;
    if (!stream || stream.destroyed || stream.closed) return closedSink();
    stream.respond({ ...headers, ':status': head.status });
    return new Sink(stream, () => stream.close(http2.constants.NGHTTP2_CANCEL));
  }
  const h1 = res as http.ServerResponse;
  if (h1.destroyed || h1.writableEnded) return closedSink();
  // A stream holds its connection for as long as it lasts: close it afterwards (also lets a
  // shutdown finish without waiting for idle keep-alive connections to time out).
  h1.shouldKeepAlive = false;
  h1.writeHead(head.status, headers); // no content-length: chunked on HTTP/1.1
  h1.flushHeaders();
  return new Sink(h1, () => h1.destroy());
}

type Writable = NodeJS.WritableStream & {
  writableLength: number;
  writableEnded: boolean;
  destroyed: boolean;
  once(event: 'close' | 'drain' | 'error', fn: () => void): unknown;
  off(event: 'close' | 'drain' | 'error', fn: () => void): unknown;
};

class Sink implements StreamSink {
  private done = false;
  written = 0;
  private readonly closers: (() => void)[] = [];

  constructor(
    private readonly out: Writable,
    private readonly abort: () => void,
  ) {
    const onClose = () => this.finish();
    out.once('close', onClose);
    // Errors (client resets) end up in 'close' too; without a listener they would be thrown.
    out.on('error', () => undefined);
    if (out.destroyed) this.finish();
  }

  get buffered(): number {
    return this.out.writableLength;
  }

  get closed(): boolean {
    return this.done || this.out.writableEnded || this.out.destroyed;
  }

  write(text: string): boolean {
    if (this.closed) return false;
    this.written += Buffer.byteLength(text, 'utf8');
    return this.out.write(text);
  }

  drained(): Promise<void> {
    if (this.closed || this.out.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const settle = () => {
        this.out.off('drain', settle);
        this.out.off('close', settle);
        resolve();
      };
      this.out.once('drain', settle);
      this.out.once('close', settle);
    });
  }

  end(): void {
    if (this.closed) return;
    this.out.end();
  }

  destroy(): void {
    if (this.done) return;
    try {
      this.abort();
    } finally {
      this.finish();
    }
  }

  onClose(fn: () => void): void {
    if (this.done) queueMicrotask(fn);
    else this.closers.push(fn);
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    for (const fn of this.closers.splice(0)) {
      try {
        fn();
      } catch (e) {
        log.error('stream close handler failed', { err: e });
      }
    }
  }
}

/** A sink for a response that could not be opened (the client left during evaluation). */
export function closedSink(): StreamSink {
  return {
    write: () => false,
    buffered: 0,
    written: 0,
    closed: true,
    drained: () => Promise.resolve(),
    end: () => undefined,
    destroy: () => undefined,
    onClose: (fn) => queueMicrotask(fn),
  };
}
