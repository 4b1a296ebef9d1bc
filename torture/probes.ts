// How the torture suite talks to a server and watches it: requests with a deadline (a request that
// outlives it is a hang), raw bytes on a socket, a ping probe (how long the event loop was held) and
// the process's resident memory from /proc.

import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import type { Attack, HttpAttack } from './attacks';

export type Outcome =
  | { kind: 'answer'; status: number; body: string }
  /** The connection ended without an HTTP answer. */
  | { kind: 'closed'; detail: string }
  /** No answer within the deadline. */
  | { kind: 'hang' };

/**
 * Runs `start` with a `done` that settles the outcome once; past `deadlineMs` the outcome is a hang
 * (and the cleanup given to `onHang` runs).
 */
function withDeadline(deadlineMs: number, start: (done: (o: Outcome) => void, onHang: (cleanup: () => void) => void) => void): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    let cleanup = () => undefined as void;
    const done = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const timer = setTimeout(() => {
      done({ kind: 'hang' });
      cleanup();
    }, deadlineMs);
    start(done, (c) => (cleanup = c));
  });
}

/** The first 64 KiB of a body (all a verdict needs): large answers do not weigh on the client. */
class Head {
  private readonly chunks: Buffer[] = [];
  private kept = 0;

  add(c: Buffer): void {
    if (this.kept >= 65536) return;
    this.chunks.push(c);
    this.kept += c.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).subarray(0, 65536).toString('utf8');
  }
}

export class Sender {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private session: http2.ClientHttp2Session | undefined;

  constructor(
    private readonly url: string,
    private readonly deadlineMs: number,
    /** The server's body timeout: a request held open half-sent is answered (408) after it. */
    private readonly bodyTimeoutMs = 30_000,
  ) {}

  send(attack: Attack): Promise<Outcome> {
    if (attack.raw) return this.raw(attack.raw.bytes, attack.raw.holdMs);
    const req = attack.http!;
    return req.http2 ? this.h2(req) : this.h1(req);
  }

  private h1(req: HttpAttack): Promise<Outcome> {
    return withDeadline(this.deadlineMs, (done, onHang) => {
      const r = http.request(new URL(req.path, this.url), { method: req.method, headers: req.headers, agent: this.agent }, (res) => {
        const body = new Head();
        res.on('data', (c: Buffer) => body.add(c));
        res.on('end', () => done({ kind: 'answer', status: res.statusCode ?? 0, body: body.text() }));
        res.on('error', (e) => done({ kind: 'closed', detail: e.message }));
      });
      onHang(() => r.destroy());
      // The server may answer (401, 413) and stop reading before the body is sent: that is an answer.
      r.on('error', (e) => done({ kind: 'closed', detail: e.message }));
      r.end(req.body);
    });
  }

  private h2(req: HttpAttack): Promise<Outcome> {
    return withDeadline(this.deadlineMs, (done, onHang) => {
      if (!this.session || this.session.closed || this.session.destroyed) {
        // Node's client refuses (ENHANCE_YOUR_CALM) to queue more than maxSessionMemory (10 MB by
        // default) of its own outgoing data: a body over the server's limit must reach the server.
        this.session = http2.connect(this.url, { maxSessionMemory: 256 });
        this.session.on('error', () => undefined);
      }
      const stream = this.session.request({ ':method': req.method, ':path': req.path, ...req.headers });
      let status = 0;
      const body = new Head();
      stream.on('response', (h) => (status = Number(h[':status'])));
      stream.on('data', (c: Buffer) => body.add(c));
      stream.on('end', () => done(status ? { kind: 'answer', status, body: body.text() } : { kind: 'closed', detail: 'stream ended without headers' }));
      stream.on('error', (e) => done(status ? { kind: 'answer', status, body: body.text() } : { kind: 'closed', detail: e.message }));
      onHang(() => stream.close());
      stream.end(req.body);
    });
  }

  /** Raw bytes on a fresh connection; the first status line read is the answer. */
  private raw(bytes: Buffer, holdMs: number): Promise<Outcome> {
    const { hostname, port } = new URL(this.url);
    // A request left half-sent (held, or shorter than it declares) is the server's to time out.
    return withDeadline(this.bodyTimeoutMs + this.deadlineMs, (settle, onHang) => {
      let got = '';
      const socket = net.connect(Number(port), hostname);
      const done = (o: Outcome) => {
        settle(o);
        socket.destroy();
      };
      onHang(() => socket.destroy());
      socket.on('connect', () => {
        // Trickle: half the bytes now, the rest never (the server must time the request out).
        socket.write(holdMs > 0 ? bytes.subarray(0, Math.max(1, bytes.length >> 1)) : bytes);
      });
      socket.on('data', (c: Buffer) => {
        got += c.toString('latin1');
        const m = /^HTTP\/1\.[01] (\d{3})/.exec(got);
        if (m) done({ kind: 'answer', status: Number(m[1]), body: got.slice(got.indexOf('\r\n\r\n') + 4) });
        // An HTTP/2 server answers a bad connection with a GOAWAY frame (after its SETTINGS): that
        // is an answer too.
        else if (hasGoaway(got)) done({ kind: 'answer', status: 400, body: 'GOAWAY' });
      });
      socket.on('error', (e) => done({ kind: 'closed', detail: e.message }));
      socket.on('close', () => done({ kind: 'closed', detail: got ? `unparsed answer ${JSON.stringify(got.slice(0, 60))}` : 'closed without an answer' }));
    });
  }

  close(): void {
    this.agent.destroy();
    this.session?.destroy();
  }
}

/** True when `bytes` (latin1) are HTTP/2 frames that include a GOAWAY. */
function hasGoaway(bytes: string): boolean {
  let at = 0;
  while (at + 9 <= bytes.length) {
    const length = (bytes.charCodeAt(at) << 16) | (bytes.charCodeAt(at + 1) << 8) | bytes.charCodeAt(at + 2);
    if (bytes.charCodeAt(at + 3) === 0x07) return true;
    at += 9 + length;
  }
  return false;
}

/** GET /ping on its own connection, every `everyMs`: how long the server kept it waiting. */
export class PingProbe {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private timer: NodeJS.Timeout | undefined;
  private inFlight = false;
  readonly latencies: number[] = [];
  failures = 0;

  constructor(
    private readonly url: string,
    private readonly everyMs = 50,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.ping(), this.everyMs);
  }

  private ping(): void {
    if (this.inFlight) return;
    this.inFlight = true;
    const started = performance.now();
    const r = http.get(new URL('/ping', this.url), { agent: this.agent, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => {
        this.latencies.push(performance.now() - started);
        this.inFlight = false;
      });
    });
    r.on('timeout', () => r.destroy(new Error('ping timed out')));
    r.on('error', () => {
      this.failures++;
      this.inFlight = false;
    });
  }

  stop(): void {
    clearInterval(this.timer);
    this.agent.destroy();
  }

  percentile(p: number): number {
    if (this.latencies.length === 0) return 0;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  }
}

/** Resident memory of a process (VmRSS), in bytes; 0 once it is gone. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples a process's RSS every `everyMs`. */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  peak = 0;
  last = 0;

  constructor(private readonly pid: () => number) {}

  start(everyMs = 100): void {
    // Unref'd: a run that throws before stop() must not be kept alive by its sampler.
    this.timer = setInterval(() => this.sample(), everyMs).unref();
  }

  sample(): number {
    this.last = rssOf(this.pid());
    this.peak = Math.max(this.peak, this.last);
    return this.last;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
