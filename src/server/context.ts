// A protocol-neutral view of one request, so that routes are written once for HTTP/1.1 and HTTP/2.
// Both protocols arrive through Node's request/response API (the http2 "compat" layer for h2); the few
// places where they differ (413 clean-up, connection headers) are handled here and nowhere else.

import type * as http from 'node:http';
import * as http2 from 'node:http2';
import { once } from 'node:events';
import { TooBusy, type ClientLink } from '../model/budget';
import type { ClientKeys } from '../model/admission';
import { secretFromHeader } from '../model/auth';
import { secretKey, type BodyCharge, type BodyLedger } from './bodyLedger';
import { clientAddressKey } from '../net/addresses';
import { nextCheckMs, tooSlow, type BodyRate } from './bodyRate';
import { failureBody, onRequestFailure, type AnyRequest, type AnyResponse, type FailureStatus, type Protocol } from './listener';
import { closedSink, openStreamSink, type StreamSink } from './streamSink';

/** `clientGone`: true once the answer cannot reach the client (the query working on it is cancelled). */
export interface RequestContext extends ClientLink {
  readonly protocol: Protocol;
  /** Upper-case method, e.g. `POST`. */
  readonly method: string;
  /** Path without the query string, as sent (not percent-decoded). */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Lower-case names; repeated headers joined with ", "; HTTP/2 pseudo-headers removed. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Who the request counts against (worked out once, when first asked): its secret, a scoped secret
   * as its key (bodyLedger.ts secretKey), and its client's address key (net/addresses
   * clientAddressKey: none for this machine's own). The body shares, the query turns and the
   * failed-login throttle all count these.
   */
  readonly clientKeys: ClientKeys;
  /**
   * The whole request body. Rejects with BodyTooLarge as soon as more than `limit` bytes are
   * declared or received, without buffering the rest; with BodyTimeout when the body has not arrived
   * `bodyTimeoutMs` after the request started, or arrives slower than the minimum rate (bodyRate.ts);
   * with TooBusy when its bytes, charged as they arrive, do not fit the shared memory or a share of
   * its connection, secret or client address (bodyLedger.ts); with MalformedRequest when the rest of
   * the request cannot be parsed (a bad chunk, a body cut off by a half-close); with ClientClosed when
   * the client is gone. A body read whole stays charged until releaseBody() or the response's end.
   */
  readBody(limit: number): Promise<Buffer>;
  /** The body read is no longer held by this request (its query has its turn): its charge is given back. Idempotent. */
  releaseBody(): void;
  /**
   * readBody, each chunk handed to `write` as it arrives instead of kept (an upload to a file): the
   * request waits while a write is pending. Resolves with the bytes received once every write is
   * done; a write that fails rejects with its error, and the rest of the body is discarded.
   */
  pipeBody(limit: number, write: (chunk: Buffer) => Promise<void>): Promise<number>;
  /**
   * The body will not be read (the request was refused before it): it is discarded as it arrives,
   * up to a bound, so the client can read the answer on a connection it may keep.
   */
  discardBody(): void;
}

export interface HttpResponse {
  status: number;
  /** Lower-case names. content-length is computed when the response is written. */
  headers: Record<string, string>;
  /** Text, or UTF-8 bytes already. */
  body: string | Buffer;
}

export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`Request body exceeds ${limit} bytes`);
  }
}

/** The client reset or closed the request before its body was complete: there is no one to answer. */
export class ClientClosed extends Error {
  constructor() {
    super('Client closed the request');
  }
}

/** The request's body did not arrive within the body timeout: 408, then the connection is closed. */
export class BodyTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Request body not received within ${timeoutMs} ms`);
  }
}

/** The rest of the request could not be parsed (HTTP/1.1 framing): 400 (431 for oversized trailers),
 *  then the connection is closed. */
export class MalformedRequest extends Error {
  constructor(readonly status: 400 | 431 = 400) {
    super('Malformed request');
  }
}

/** The answer to a BodyTimeout or MalformedRequest: Fauna's Netty-level JSON (fql-v4.md §1.7). */
export function requestFailure(err: BodyTimeout | MalformedRequest): { status: FailureStatus; body: string } {
  const status = err instanceof BodyTimeout ? 408 : err.status;
  return { status, body: failureBody(status) };
}

export interface ExchangeOptions {
  /** A request body not complete this long after the request started is a BodyTimeout. Default 30 s. */
  bodyTimeoutMs?: number;
  /** Where bodies are charged as they arrive; without it they are not counted (tools, tests). */
  ledger?: BodyLedger;
  /** The minimum rate of a body; without it none. */
  bodyRate?: BodyRate;
}

/** After a 413, at most this many further bytes are read and thrown away (so the client can read the
 *  answer and keep its HTTP/1.1 connection); a client that keeps sending beyond it is disconnected. */
const DISCARD_LIMIT = 32 * 1024 * 1024;
const DEFAULT_BODY_TIMEOUT_MS = 30_000;

export interface Exchange {
  ctx: RequestContext;
  /** Writes the response once; later calls (and calls after the client left) are ignored. */
  send(response: HttpResponse): void;
  /** Instead of send: sends the head (its body is ignored) and hands over a sink for the body. */
  stream(head: HttpResponse, start: (sink: StreamSink) => void): void;
}

export function createExchange(req: AnyRequest, res: AnyResponse, protocol: Protocol, opts: ExchangeOptions = {}): Exchange {
  const url = req.url ?? '/';
  const { path, search } = splitUrl(url);
  const headers = normalizeHeaders(req.headers, protocol);
  const raw = req.method ?? 'GET';
  const method = /^[A-Z]+$/.test(raw) ? raw : raw.toUpperCase();
  const bodyTimeoutMs = opts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  /** The body must be complete by then, counted from the request's start (its head has arrived). */
  const deadline = protocol === 'h2' ? Date.now() + bodyTimeoutMs : 0;
  let bodyDone = false;
  /** Set once the request is known to be broken or late: its answer closes the connection. */
  let failed: BodyTimeout | MalformedRequest | undefined;
  /** Rejects the body read in progress (there is at most one). */
  let abortRead: ((err: Error) => void) | undefined;
  /** What the body holds of the shared memory, from its first byte until released. */
  let charge: BodyCharge | undefined;
  let clientKeys: ClientKeys | undefined;
  const releaseBody = () => charge?.release();
  const chargeBody = (): BodyCharge | undefined => {
    if (charge || !opts.ledger) return charge;
    charge = opts.ledger.open({ connection: connectionOf(req, protocol), ...ctx.clientKeys });
    // Whatever way the exchange ends (answered, reset, the connection gone), the body is given back.
    res.once('close', releaseBody);
    return charge;
  };

  const rejectBody = () => {
    if (protocol === 'http/1.1') {
      // Drain instead of closing: closing with unread input makes the kernel reset the connection,
      // which destroys the 413 before the client reads it. Keeping the connection open (even if the
      // client asked for `Connection: close`) lets the client read the answer and then hang up itself;
      // the keep-alive timeout and DISCARD_LIMIT bound how long that can take.
      const h1 = res as http.ServerResponse;
      if (h1.req?.httpVersion === '1.1') h1.shouldKeepAlive = true;
      let discarded = 0;
      req.on('data', (chunk: Buffer) => {
        discarded += chunk.length;
        if (discarded > DISCARD_LIMIT) req.socket.destroy();
      });
      req.resume();
    }
    // HTTP/2: send() resets the stream with NO_ERROR once the response is written.
  };

  /**
   * The request cannot complete. A body read in progress fails, and the route's handler answers
   * (server.ts maps the error); with none in progress the answer goes out now, and whatever the
   * route answers later is dropped: exactly one response either way.
   */
  const fail = (err: BodyTimeout | MalformedRequest) => {
    if (failed) return;
    failed = err;
    if (abortRead) {
      abortRead(err);
      return;
    }
    const { status, body } = requestFailure(err);
    send({ status, headers: { 'content-type': 'application/json;charset=utf-8' }, body });
  };
  // HTTP/1.1 framing errors and Node's request timeout after the head, reported by the listener.
  onRequestFailure(req, (status) => fail(status === 408 ? new BodyTimeout(bodyTimeoutMs) : new MalformedRequest(status)));

  const ctx: RequestContext = {
    protocol,
    method,
    path,
    query: new URLSearchParams(search),
    headers,
    get clientKeys(): ClientKeys {
      return (clientKeys ??= {
        secret: secretKey(secretFromHeader(headers.authorization)),
        address: clientAddressKey(remoteAddressOf(req, protocol)),
      });
    },
    discardBody: () => {
      if (!bodyDone) rejectBody();
    },
    // Read where a query looks at the clock: a getter, not a listener per request. HTTP/1.1: the
    // response (or, for one queued behind another, the connection) was destroyed: the client
    // closed or reset it (Node ends the connection on a half-close too). HTTP/2: the stream was
    // reset, or its session is gone.
    get clientGone(): boolean {
      if (protocol === 'h2') return (res as http2.Http2ServerResponse).stream?.destroyed !== false;
      return (res as http.ServerResponse).destroyed || req.socket.destroyed;
    },
    releaseBody,
    async readBody(limit) {
      const held = chargeBody();
      const chunks: Buffer[] = [];
      const size = await receive(limit, (chunk) => {
        // Charged as it arrives, never as declared: a body that says 8 MiB and sends a byte holds a byte.
        if (held && !held.add(chunk.length)) throw new TooBusy();
        chunks.push(chunk);
      });
      return Buffer.concat(chunks, size);
    },
    // Written out as it arrives: the writer charges what it has in flight (uploads.ts), nothing is held here.
    pipeBody: (limit, write) => receive(limit, write),
  };

  /**
   * The body's chunks to `take` (the request paused while a promise it returns is pending; one it
   * throws refuses the body); its size. Every way the read fails gives back what the body held.
   */
  function receive(limit: number, take: (chunk: Buffer) => Promise<void> | void): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      if (failed) {
        reject(failed);
        return;
      }
      const declared = headers['content-length'];
      if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) {
        rejectBody();
        reject(new BodyTooLarge(limit));
        return;
      }
      let size = 0;
      let settled = false;
      /** The last chunk's write; the body is done once it is. */
      let writing: Promise<void> | void;
      const refuse = (err: unknown) => {
        cleanup();
        releaseBody();
        if (settled) return;
        settled = true;
        reject(err);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          rejectBody();
          refuse(new BodyTooLarge(limit));
          return;
        }
        try {
          writing = take(chunk);
        } catch (err) {
          rejectBody();
          refuse(err);
          return;
        }
        if (!writing) return;
        req.pause();
        writing.then(
          () => settled || req.resume(),
          (err: unknown) => {
            rejectBody();
            refuse(err);
          },
        );
      };
      const onEnd = () => {
        // An HTTP/2 reset also ends the request stream: a truncated body must not be run.
        if (req.aborted) {
          refuse(new ClientClosed());
          return;
        }
        cleanup();
        const done = () => {
          if (settled) return;
          settled = bodyDone = true;
          resolve(size);
        };
        // A body kept in memory (readBody) has no write pending: done now, without a promise.
        if (writing === undefined) done();
        else void writing.then(done, () => undefined); // a failed write has rejected already
      };
      const onError = () => refuse(new ClientClosed());
      const onAborted = onError;
      // A trickle that would never end (or a head with a body that never comes): 408. On HTTP/1.1
      // Node's requestTimeout (the same deadline) reports it through onRequestFailure.
      const timer = protocol === 'h2' ? setTimeout(() => fail(new BodyTimeout(bodyTimeoutMs)), Math.max(0, deadline - Date.now())) : undefined;
      // A body slower than the minimum rate is cut off long before that deadline, on both protocols.
      const rate = opts.bodyRate;
      let rateTimer: NodeJS.Timeout | undefined;
      let rateLook: NodeJS.Immediate | undefined;
      if (rate && rate.minBytesPerSecond > 0) {
        const readStart = Date.now();
        const watchRate = (elapsedMs: number) => {
          rateTimer = setTimeout(() => {
            // Bytes that came while the loop was busy are read first: the verdict waits for the poll phase.
            rateLook = setImmediate(() => {
              const elapsed = Date.now() - readStart;
              if (tooSlow(rate, size, elapsed)) fail(new BodyTimeout(elapsed));
              else watchRate(elapsed);
            });
          }, nextCheckMs(rate, elapsedMs));
        };
        watchRate(0);
      }
      abortRead = refuse;
      const cleanup = () => {
        clearTimeout(timer);
        clearTimeout(rateTimer);
        clearImmediate(rateLook);
        abortRead = undefined;
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('aborted', onAborted);
      };
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      req.on('aborted', onAborted);
    });
  }

  let sent = false;
  const send = (response: HttpResponse) => {
    if (sent || res.headersSent || res.writableEnded || res.destroyed) return;
    sent = true;
    // The rest of a broken or late HTTP/1.1 request cannot be told from a next request: close after.
    if (failed && protocol === 'http/1.1') (res as http.ServerResponse).shouldKeepAlive = false;
    const body = typeof response.body === 'string' ? Buffer.from(response.body, 'utf8') : response.body;
    const out = response.headers; // the response's own: nothing reads its transport headers after this
    out['content-length'] = String(body.length);
    const done = () => {
      // An HTTP/2 request body nobody will read would stall on flow control: tell the client to stop
      // sending, without error, now that it has the complete response (RFC 9113 §8.1).
      const stream = (res as http2.Http2ServerResponse).stream;
      if (protocol === 'h2' && !bodyDone && stream && !stream.endAfterHeaders) {
        stream.close(http2.constants.NGHTTP2_NO_ERROR);
      }
    };
    const empty = method === 'HEAD' || body.length === 0;
    if (protocol === 'h2') {
      for (const name of CONNECTION_HEADERS) delete out[name]; // forbidden in HTTP/2
      // Straight to the stream: the compat writeHead re-validates every header one by one, which
      // was the largest single cost of an HTTP/2 response. Our header names are already lower case.
      const stream = (res as http2.Http2ServerResponse).stream;
      if (!stream || stream.destroyed || stream.closed) return; // reset by the client: nobody to answer
      stream.respond({ ...out, ':status': response.status }, { endStream: empty });
      if (empty) done();
      else if (body.length <= H2_PIECE) {
        // Not end(body, done): on a stream closed by its last frame, end's callback gets an error
        // object built for nothing, on every response. 'finish' says the same without one.
        if (!bodyDone) stream.once('finish', done);
        stream.end(body);
      } else void writeInPieces(stream, body).then(done, () => stream.destroy());
      return;
    }
    res.writeHead(response.status, out);
    if (empty) res.end(done);
    else res.end(body, done);
  };

  const stream = (head: HttpResponse, start: (sink: StreamSink) => void) => {
    const open = !(sent || res.headersSent || res.writableEnded || res.destroyed);
    sent = true;
    start(open ? openStreamSink(res, protocol, head) : closedSink());
  };

  return { ctx, send, stream };
}

const CONNECTION_HEADERS = ['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection'];

/**
 * A large HTTP/2 body is handed over a piece at a time as the client reads it: written at once, it
 * would count whole against the session's memory, and the session would refuse (ENHANCE_YOUR_CALM)
 * every other stream until it was sent.
 */
const H2_PIECE = 1024 * 1024;

async function writeInPieces(stream: http2.ServerHttp2Stream, body: Buffer): Promise<void> {
  for (let at = 0; at < body.length; at += H2_PIECE) {
    if (stream.destroyed || stream.closed) return;
    const piece = body.subarray(at, at + H2_PIECE);
    if (at + H2_PIECE >= body.length) {
      await new Promise<void>((resolve) => {
        stream.once('finish', resolve).once('close', resolve);
        stream.end(piece);
      });
      return;
    }
    if (!stream.write(piece)) await once(stream, 'drain');
  }
}

/** The connection a request came on, by identity: the HTTP/1.1 socket, the HTTP/2 session. */
function connectionOf(req: AnyRequest, protocol: Protocol): object {
  const h2 = protocol === 'h2' ? (req as http2.Http2ServerRequest).stream : undefined;
  return (h2 ? h2.session : req.socket) ?? req;
}

/** The peer's IP address; undefined once the connection is gone (its requests fail at once then). */
function remoteAddressOf(req: AnyRequest, protocol: Protocol): string | undefined {
  try {
    return (protocol === 'h2' ? (req as http2.Http2ServerRequest).stream?.session?.socket : req.socket)?.remoteAddress;
  } catch {
    return undefined; // the session's socket is gone
  }
}

/** The path, and the query string. */
function splitUrl(url: string): { path: string; search: string } {
  let rest = url;
  // Absolute-form request targets (`GET http://host/ping HTTP/1.1`) are legal; keep only the path.
  if (rest.charCodeAt(0) !== 0x2f /* / */) {
    const abs = /^[a-z][a-z0-9+.-]*:\/\/[^/?]*/i.exec(rest);
    if (abs) rest = rest.slice(abs[0].length);
  }
  const q = rest.indexOf('?');
  const path = (q < 0 ? rest : rest.slice(0, q)) || '/';
  return { path, search: q < 0 ? '' : rest.slice(q + 1) };
}

function normalizeHeaders(raw: AnyRequest['headers'], protocol: Protocol): Record<string, string> {
  // HTTP/1.1: Node already gives lower-case names and joins repeats, except set-cookie (an array).
  if (protocol === 'http/1.1' && !Array.isArray(raw['set-cookie'])) return raw as Record<string, string>;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (name.startsWith(':') || value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}
