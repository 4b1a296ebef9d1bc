// One TCP port serving HTTP/1.1 and cleartext HTTP/2 with prior knowledge (wire.md §1.1).
// Node's http2 server cannot do HTTP/1.1 without TLS, so a plain `net` server peeks at the first bytes of
// every connection and hands the socket to an http or an http2 server that never listens itself.

import * as http from 'node:http';
import * as http2 from 'node:http2';
import * as net from 'node:net';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
/** A connection that sends nothing for this long is dropped (it would otherwise be held forever). */
const SNIFF_TIMEOUT_MS = 30_000;
/** An HTTP/2 session with no open stream for this long gets a GOAWAY. Never applies while a stream is open. */
const H2_IDLE_SESSION_MS = 60_000;

export type Protocol = 'http/1.1' | 'h2';
export type AnyRequest = http.IncomingMessage | http2.Http2ServerRequest;
export type AnyResponse = http.ServerResponse | http2.Http2ServerResponse;
export type RequestListener = (req: AnyRequest, res: AnyResponse, protocol: Protocol) => void;

export interface Listener {
  readonly address: net.AddressInfo;
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

export function listen(host: string, port: number, onRequest: RequestListener): Promise<Listener> {
  const sockets = new Set<net.Socket>();
  const sniffing = new Set<net.Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  const activeH1 = new Set<http.ServerResponse>();
  let closing = false;
  let closed: Promise<void> | undefined;

  const h1 = http.createServer((req, res) => {
    activeH1.add(res);
    res.once('close', () => activeH1.delete(res));
    // During shutdown every response ends its connection (Node then sends `Connection: close`).
    if (closing) res.shouldKeepAlive = false;
    onRequest(req, res, 'http/1.1');
  });
  // The http server never listens, so start its connection tracking by hand: it powers
  // closeIdleConnections() and the headers/request timeouts for requests that never finish arriving.
  h1.emit('listening');
  h1.on('clientError', onClientError);

  const h2 = http2.createServer((req, res) => onRequest(req, res, 'h2'));
  h2.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    session.on('error', () => session.destroy());
    trackIdleSession(session);
    if (closing) session.close();
  });
  h2.on('sessionError', () => undefined); // already handled per session; must not crash the process

  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (closing) {
      socket.destroy();
      return;
    }
    sniffing.add(socket);
    sniff(socket, (protocol, head) => {
      sniffing.delete(socket);
      handOver(socket, protocol, head);
    });
  });

  function handOver(socket: net.Socket, protocol: Protocol, head: Buffer): void {
    // Paused first: unshifting into a flowing stream would emit the bytes to no listener.
    socket.pause();
    socket.unshift(head);
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
    server.listen(port, host, () => {
      server.off('error', reject);
      // accept() errors (EMFILE…) must not crash the process.
      server.on('error', (err) => console.error('flora: cannot accept a connection:', err.message));
      const listener: Listener = {
        address: server.address() as net.AddressInfo,
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

/** Waits for enough bytes to tell the protocols apart; tolerates a preface split across packets. */
function sniff(socket: net.Socket, decided: (protocol: Protocol, head: Buffer) => void): void {
  let head: Buffer = Buffer.alloc(0);
  const onTimeout = () => socket.destroy();
  const cleanup = () => {
    socket.off('data', onData);
    socket.off('end', onEnd);
    socket.off('timeout', onTimeout);
    socket.setTimeout(0);
  };
  const onData = (chunk: Buffer) => {
    head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
    const decision = classify(head);
    if (decision === 'undecided') return;
    cleanup();
    decided(decision, head);
  };
  // Closed (or half-closed) before saying anything useful: nothing to answer.
  const onEnd = () => {
    cleanup();
    socket.destroy();
  };
  socket.on('data', onData);
  socket.on('end', onEnd);
  socket.on('timeout', onTimeout);
  socket.setTimeout(SNIFF_TIMEOUT_MS);
}

function trackIdleSession(session: http2.ServerHttp2Session): void {
  let open = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(() => session.close(), H2_IDLE_SESSION_MS);
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

/** Malformed HTTP/1.1 (or a request that never finished arriving): answer in JSON, then close. */
function onClientError(err: NodeJS.ErrnoException, socket: net.Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET' || (socket as { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const status = timedOut ? '408 Request Timeout' : '400 Bad Request';
  const body = JSON.stringify({ error: timedOut ? 'request timeout: Client timed out.' : 'bad request' });
  socket.end(
    `HTTP/1.1 ${status}\r\ncontent-type: application/json;charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
