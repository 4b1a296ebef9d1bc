// One TCP port serving HTTP/1.1 and cleartext HTTP/2 with prior knowledge (wire.md §1.1), or, with a
// certificate, HTTPS: HTTP/2 chosen by ALPN and HTTP/1.1. Node's http2 server cannot do HTTP/1.1
// without TLS, so a plain `net` (or `tls`) server peeks at the first (decrypted) bytes of every
// connection and hands the socket to an http or an http2 server that never listens itself.

import * as http from 'node:http';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { readTlsPair, type TlsFiles } from './tlsFiles';
import { log } from '../diag/log';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const EMPTY = Buffer.alloc(0);
/** HTTP/2 streams one session may have open at once. Node's client assumes 100 until our SETTINGS
 *  arrive and queues requests beyond the limit (the driver multiplexes all its queries on one session). */
const H2_MAX_CONCURRENT_STREAMS = 250;
/** Memory one HTTP/2 session may take (MB, Node's unit); beyond it new streams are refused. */
const H2_MAX_SESSION_MEMORY_MB = 16;
/** Connections the kernel accepts for the process before it takes them (Linux caps it at
 *  net.core.somaxconn). Node's default, 511, overflows when hundreds of clients connect at once
 *  while the event loop is busy: the kernel then drops their handshakes, and each retries after 1,
 *  3, 7, 15, 31 s — a client can wait a minute for a connection the server would take in a moment. */
const LISTEN_BACKLOG = 4096;
/** After an error response on HTTP/1.1, unread input is discarded for at most this long before the
 *  socket is destroyed: closing with unread input resets the connection, which can lose the answer. */
const LINGER_MS = 2_000;

export interface ListenerLimits {
  /** A request's head and body must have arrived this long after it started, or it gets a 408. A
   *  connection that sends nothing is dropped after this long. */
  bodyTimeoutMs: number;
  /** Idle HTTP/1.1 keep-alive connections are closed, idle HTTP/2 sessions get a GOAWAY, after this long. */
  idleTimeoutMs: number;
  /** Largest request head (request line and headers; HTTP/2: the header list), in KiB. */
  maxHeaderKb: number;
}

/** Statuses of the failures the HTTP layer answers itself (fql-v4.md §1.7 "Netty-level failures"). */
export type FailureStatus = 400 | 408 | 431;

const FAILURE_BODY: Record<FailureStatus, string> = {
  400: '{"error":"bad request"}',
  408: '{"error":"request timeout: Client timed out."}',
  431: '{"error":"request header fields too large"}',
};
const FAILURE_REASON: Record<FailureStatus, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** The exact JSON body of a failure answered by the HTTP layer. */
export function failureBody(status: FailureStatus): string {
  return FAILURE_BODY[status];
}

type FailureHandler = (status: FailureStatus) => void;
const failureHandlers = new WeakMap<AnyRequest, FailureHandler>();

/**
 * Called when the rest of an HTTP/1.1 request turns out malformed (a bad chunk, a cut-off body) or
 * too slow after its head was handed to the request listener. The handler must answer the request
 * (once) and should make a pending body read fail; the connection is closed afterwards.
 */
export function onRequestFailure(req: AnyRequest, handler: FailureHandler): void {
  failureHandlers.set(req, handler);
}

export type Protocol = 'http/1.1' | 'h2';
export type AnyRequest = http.IncomingMessage | http2.Http2ServerRequest;
export type AnyResponse = http.ServerResponse | http2.Http2ServerResponse;
export type RequestListener = (req: AnyRequest, res: AnyResponse, protocol: Protocol) => void;

export interface Listener {
  readonly address: net.AddressInfo;
  /** Whether the port serves TLS. */
  readonly secure: boolean;
  /** Reads the certificate and key files again for new connections; throws TlsFilesError (the old pair stays). */
  reloadTls(): void;
  /** Stops accepting; finishes in-flight requests; closes idle keep-alive sockets and h2 sessions (GOAWAY). */
  close(): Promise<void>;
  /** Drops every connection at once (second signal during shutdown). */
  destroyAll(): void;
}

type Decision = 'h2' | 'http/1.1' | 'undecided';

/** Compares the bytes seen so far with the HTTP/2 preface. */
export function classify(head: Buffer): Decision {
  const n = Math.min(head.length, PREFACE.length);
  if (head.subarray(0, n).compare(PREFACE.subarray(0, n)) !== 0) return 'http/1.1';
  return n === PREFACE.length ? 'h2' : 'undecided';
}

export function listen(host: string, port: number, onRequest: RequestListener, limits: ListenerLimits, tlsFiles?: TlsFiles): Promise<Listener> {
  const sockets = new Set<net.Socket>();
  const sniffing = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  const activeH1 = new Set<http.ServerResponse>();
  let closing = false;
  let closed: Promise<void> | undefined;

  const h1 = http.createServer(
    {
      // A head over this is HPE_HEADER_OVERFLOW, answered 431 by onClientError.
      maxHeaderSize: limits.maxHeaderKb * 1024,
      // Heads and bodies that never finish arriving: Node answers through 'clientError' (408).
      headersTimeout: limits.bodyTimeoutMs,
      requestTimeout: limits.bodyTimeoutMs,
      // How often those two are checked (Node's default is every 30 s).
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.bodyTimeoutMs / 4))),
      keepAliveTimeout: limits.idleTimeoutMs,
      // Fauna (Netty) answers an HTTP/1.1 request without Host; Node would send an empty 400.
      requireHostHeader: false,
    },
    (req, res) => {
      activeH1.add(res);
      res.once('close', () => activeH1.delete(res));
      responses.set(req, res);
      // During shutdown every response ends its connection (Node then sends `Connection: close`).
      if (closing) res.shouldKeepAlive = false;
      onRequest(req, res, 'http/1.1');
    },
  );
  // The http server never listens, so start its connection tracking by hand: it powers
  // closeIdleConnections() and the headers/request timeouts for requests that never finish arriving.
  h1.emit('listening');
  const lingerMs = Math.min(LINGER_MS, limits.bodyTimeoutMs);
  h1.on('clientError', (err: NodeJS.ErrnoException, socket: net.Socket) => onClientError(err, socket, lingerMs));
  // An Expect other than 100-continue: Node would answer 417 with an empty body. The request is served
  // as if the header were absent (RFC 9110 §10.1.1 lets a server ignore it), so every answer is one of ours.
  h1.on('checkExpectation', (req: http.IncomingMessage, res: http.ServerResponse) => h1.emit('request', req, res));
  // CONNECT (a tunnel): Node would close the connection without a word.
  h1.on('connect', (_req: http.IncomingMessage, socket: net.Socket) => answerAndClose(socket, 400, lingerMs));

  const h2 = http2.createServer(
    {
      maxSessionMemory: H2_MAX_SESSION_MEMORY_MB,
      // nghttp2 resets a stream whose header list passes this (once our SETTINGS are acknowledged); up to
      // there, a list over maxHeaderKb is answered 431 below, as on HTTP/1.1.
      settings: { maxConcurrentStreams: H2_MAX_CONCURRENT_STREAMS, maxHeaderListSize: 2 * limits.maxHeaderKb * 1024 },
    },
    (req, res) => {
      if (headerListSize(req.rawHeaders) > limits.maxHeaderKb * 1024) answerStream(res.stream, 431);
      else onRequest(req, res, 'h2');
    },
  );
  h2.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    session.on('error', () => session.destroy());
    trackIdleSession(session, limits.idleTimeoutMs);
    if (closing) session.close();
  });
  h2.on('sessionError', () => undefined); // already handled per session; must not crash the process

  const accept = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (closing) {
      socket.destroy();
      return;
    }
    if (socket instanceof tls.TLSSocket && socket.alpnProtocol === 'h2') {
      handOver(socket, 'h2', EMPTY);
      return;
    }
    sniffing.add(socket);
    // Nothing (or not enough to tell the protocols apart) in this long: dropped.
    sniff(socket, Math.min(limits.bodyTimeoutMs, limits.idleTimeoutMs), limits.maxHeaderKb * 1024, (outcome, head) => {
      sniffing.delete(socket);
      if (outcome === 'h2' || outcome === 'http/1.1') handOver(socket, outcome, head);
      else answerAndClose(socket, outcome === null ? 408 : 400, lingerMs);
    });
  };
  let server: net.Server;
  if (tlsFiles === undefined) server = net.createServer({ allowHalfOpen: true, noDelay: true }, accept);
  else {
    const tlsServer = tls.createServer(
      {
        ...readTlsPair(tlsFiles),
        ALPNProtocols: ['h2', 'http/1.1'],
        allowHalfOpen: true,
        noDelay: true,
        // A handshake that never completes holds a socket like a request that never arrives.
        handshakeTimeout: Math.min(limits.bodyTimeoutMs, limits.idleTimeoutMs),
      },
      accept,
    );
    // Sockets still in their handshake (or failing it: plain HTTP, a scan) are closed with the rest.
    tlsServer.on('connection', (raw: net.Socket) => {
      sockets.add(raw);
      raw.once('close', () => sockets.delete(raw));
    });
    tlsServer.on('tlsClientError', (_err: Error, socket: tls.TLSSocket) => socket.destroy());
    server = tlsServer;
  }

  function handOver(socket: net.Socket, protocol: Protocol, head: Buffer): void {
    // Paused first: unshifting into a flowing stream would emit the bytes to no listener.
    socket.pause();
    if (head.length > 0) socket.unshift(head);
    if (protocol === 'h2') {
      // An h2 session owns the connection; a half-closed socket would linger.
      socket.allowHalfOpen = false;
      h2.emit('connection', socket); // the session reads the unshifted bytes itself
    } else {
      h1.emit('connection', socket);
      socket.resume(); // replays the unshifted bytes into the http parser before any new read
    }
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      // accept() errors (EMFILE…) must not crash the process.
      server.on('error', (err) => log.error(`cannot accept a connection: ${err.message}`, { code: (err as NodeJS.ErrnoException).code }));
      const listener: Listener = {
        address: server.address() as net.AddressInfo,
        secure: tlsFiles !== undefined,
        reloadTls: () => {
          if (tlsFiles !== undefined) (server as tls.Server).setSecureContext(readTlsPair(tlsFiles));
        },
        close: () => {
          closed ??= new Promise<void>((done) => {
            closing = true;
            // Calls back once the listening socket is closed and every accepted connection has ended.
            server.close(() => done());
            for (const socket of sniffing) socket.destroy();
            for (const res of activeH1) if (!res.headersSent) res.shouldKeepAlive = false;
            h1.close(); // closes idle keep-alive sockets and stops the http server's timeout checks
            for (const session of sessions) session.close();
          });
          return closed;
        },
        destroyAll: () => {
          for (const socket of sockets) socket.destroy();
        },
      };
      resolve(listener);
    });
  });
}

/**
 * Waits for enough bytes to tell the protocols apart; tolerates a preface split across packets. For
 * HTTP/1.1 it also waits for the end of the request line, to refuse one without a version (HTTP/0.9's
 * `GET /`, which Node's parser would hold until the headers timeout) or a broken preface. `null`: the deadline passed in the
 * middle of a request line (answered 408; a socket that sent nothing or part of a preface is just dropped).
 */
function sniff(
  socket: net.Socket,
  timeoutMs: number,
  maxHead: number,
  decided: (outcome: Protocol | 'refused' | null, head: Buffer) => void,
): void {
  let head: Buffer = Buffer.alloc(0);
  // A deadline, not an inactivity timeout: a preface sent a byte at a time must not hold the socket longer.
  const timer = setTimeout(() => {
    cleanup();
    // Silence, or part of an HTTP/2 preface: no HTTP/1.1 client to answer.
    if (classify(head) === 'undecided') socket.destroy();
    else decided(null, head);
  }, timeoutMs);
  timer.unref();
  const cleanup = () => {
    socket.off('data', onData);
    socket.off('end', onEnd);
    socket.off('close', cleanup);
    clearTimeout(timer);
  };
  const onData = (chunk: Buffer) => {
    head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
    const decision = classify(head);
    if (decision === 'undecided') return;
    if (decision === 'h2') {
      cleanup();
      decided('h2', head);
      return;
    }
    const line = requestLine(head, maxHead);
    if (line === 'undecided') return;
    cleanup();
    decided(line === 'refuse' ? 'refused' : 'http/1.1', head);
  };
  // Closed (or half-closed) before saying anything useful: nothing to answer.
  const onEnd = () => {
    cleanup();
    socket.destroy();
  };
  socket.on('data', onData);
  socket.on('end', onEnd);
  socket.once('close', cleanup);
}

/**
 * Looks at the first line of an HTTP/1.1 connection: 'refuse' for `METHOD target` without a version,
 * and for a `PRI` line that is not the HTTP/2 preface (Node would close the connection without a
 * word); 'undecided' while a `METHOD ` line has not ended (within maxHead bytes); 'parse' otherwise
 * (Node's parser answers anything else, garbage included, at once).
 */
export function requestLine(head: Buffer, maxHead: number): 'parse' | 'refuse' | 'undecided' {
  let i = 0;
  while (i < head.length && (head[i] === 0x0d || head[i] === 0x0a)) i++; // empty lines before it are allowed
  const start = i;
  while (i < head.length && head[i] >= 0x41 && head[i] <= 0x5a) i++; // METHOD
  if (i === head.length) return head.length > maxHead ? 'parse' : 'undecided';
  if (i === start || head[i] !== 0x20) return 'parse';
  const end = head.indexOf(0x0a, i);
  if (end < 0) return head.length > maxHead ? 'parse' : 'undecided';
  const line = head.toString('latin1', start, end).replace(/\r$/, '');
  return / HTTP\/[^ ]*$/.test(line) && !line.startsWith('PRI ') ? 'parse' : 'refuse';
}

function trackIdleSession(session: http2.ServerHttp2Session, idleMs: number): void {
  let open = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(() => session.close(), idleMs);
    timer.unref();
  };
  session.on('stream', (stream: http2.ServerHttp2Stream) => {
    open++;
    clearTimeout(timer);
    stream.on('error', () => undefined); // client resets (NGHTTP2_CANCEL…) are routine
    stream.once('close', () => {
      if (--open === 0 && !session.closed) arm();
    });
  });
  session.once('close', () => clearTimeout(timer));
  arm();
}

/** A header list's size as HTTP/2 counts it (RFC 9113 §6.5.2): names and values plus 32 per field. */
function headerListSize(raw: readonly string[]): number {
  let size = 0;
  for (const field of raw) size += Buffer.byteLength(field, 'latin1');
  return size + (raw.length / 2) * 32;
}

/** A failure answered on an HTTP/2 stream; an unread request body is then declined (NO_ERROR). */
function answerStream(stream: http2.ServerHttp2Stream, status: FailureStatus): void {
  if (stream.destroyed || stream.closed) return;
  const body = Buffer.from(FAILURE_BODY[status]);
  stream.respond({ ':status': status, 'content-type': 'application/json;charset=utf-8', 'content-length': body.length });
  stream.end(body, () => {
    if (!stream.closed) stream.close(http2.constants.NGHTTP2_NO_ERROR);
  });
}

/** The response to each HTTP/1.1 request, for errors that the parser reports against its socket. */
const responses = new WeakMap<http.IncomingMessage, http.ServerResponse>();
/** Sockets whose error is being answered: the parser reports an error again for every later chunk. */
const failing = new WeakSet<net.Socket>();

interface ParserSocket extends net.Socket {
  parser?: { incoming?: http.IncomingMessage | null } | null;
  _httpMessage?: http.ServerResponse | null;
}

function failureStatus(err: NodeJS.ErrnoException): FailureStatus {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  if (err.code === 'HPE_HEADER_OVERFLOW') return 431;
  return 400;
}

/**
 * Malformed HTTP/1.1, or a request that never finished arriving: answered in JSON, then the connection
 * is closed. An error in the body of a request already handed to the request listener is that request's
 * to answer (onRequestFailure); an error in a new head is answered after the responses still owed.
 */
function onClientError(err: NodeJS.ErrnoException, raw: net.Socket, lingerMs: number): void {
  const socket = raw as ParserSocket;
  if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  if (failing.has(socket)) return;
  failing.add(socket);
  const status = failureStatus(err);

  const incoming = socket.parser?.incoming;
  if (!incoming || incoming.complete) {
    answerAfterPending(socket, status, lingerMs);
    return;
  }
  // The body (or trailers) of a request being handled.
  const res = responses.get(incoming);
  const handler = failureHandlers.get(incoming);
  if (res && handler && !res.headersSent && !res.writableEnded) {
    res.once('finish', () => closeAfterAnswer(socket, lingerMs));
    handler(status);
  } else if (res?.writableEnded && !res.writableFinished) {
    // Answered already (a 413, a 408 of its own): the rest of the body does not matter, but the answer does.
    res.once('finish', () => closeAfterAnswer(socket, lingerMs));
  } else {
    // Answered, or half-way through an answer that cannot be cut short: only the connection is left to end.
    socket.destroy();
  }
}

/** Writes a failure once the responses to earlier (pipelined) requests on the socket are out. */
function answerAfterPending(socket: ParserSocket, status: FailureStatus, lingerMs: number): void {
  const pending = socket._httpMessage;
  if (pending) {
    // Node's own 'finish' listener runs first and hands the socket to the next queued response, if any.
    pending.once('finish', () => answerAfterPending(socket, status, lingerMs));
    return;
  }
  answerAndClose(socket, status, lingerMs);
}

function answerAndClose(socket: net.Socket, status: FailureStatus, lingerMs: number): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = FAILURE_BODY[status];
  socket.write(
    `HTTP/1.1 ${status} ${FAILURE_REASON[status]}\r\ncontent-type: application/json;charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  closeAfterAnswer(socket, lingerMs);
}

/** Ends an HTTP/1.1 connection after an error answer: input is read and thrown away until the client
 *  closes its side, or lingerMs at most, so that the close does not become a reset that loses the answer. */
function closeAfterAnswer(socket: net.Socket, lingerMs: number): void {
  if (socket.destroyed) return;
  if (!socket.writableEnded) socket.end();
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
