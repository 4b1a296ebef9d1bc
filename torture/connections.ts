// Connections that cost a server without asking much of it: idle keep-alive connections and HTTP/2
// sessions held open (the server must go on answering, then close them at its idle timeout), slow
// clients trickling a request a byte at a time or stalling mid-request (answered 200 when it arrives
// in time, else 408), and a slow reader that leaves a large answer unread. Plus the process's open
// file descriptors, to see that none leak.

import { readdirSync } from 'node:fs';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import type { Rand } from './fuzzFql';

/** Open file descriptors of a process (0 once it is gone). */
export function fdCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

type Closer = { close(): void };

/** `count` idle connections: HTTP/1.1 keep-alive after one answered ping, and HTTP/2 sessions after one. */
export class IdleConnections {
  private readonly open = new Set<Closer>();
  private holding = true;
  /** Connections the server closed while they were held (then opened again). */
  reopened = 0;
  /** Connections that could not be opened or answered. */
  failed = 0;
  /** Most connections open at once. */
  peak = 0;

  constructor(
    private readonly url: string,
    private readonly count: number,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Opens them, `batch` at a time; resolves once all are open and idle. */
  async start(batch = 50): Promise<void> {
    for (let i = 0; i < this.count; i += batch) {
      await Promise.all(Array.from({ length: Math.min(batch, this.count - i) }, (_, j) => this.openOne((i + j) % 10 < 7)));
    }
  }

  private async openOne(h1: boolean): Promise<void> {
    try {
      await (h1 ? this.openH1() : this.openH2());
      this.peak = Math.max(this.peak, this.open.size);
    } catch {
      this.failed++;
    }
  }

  private openH1(): Promise<void> {
    const { hostname, port } = new URL(this.url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname);
      const handle: Closer = { close: () => socket.destroy() };
      let got = '';
      socket.setNoDelay(true);
      socket.on('connect', () => socket.write('GET /ping HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.on('data', (c: Buffer) => {
        got += c.toString('latin1');
        if (got.includes('\r\n\r\n') && !this.open.has(handle)) {
          this.open.add(handle);
          resolve();
        }
      });
      socket.on('error', reject);
      socket.on('close', () => this.closed(handle, true, reject));
    });
  }

  private openH2(): Promise<void> {
    return new Promise((resolve, reject) => {
      const session = http2.connect(this.url);
      const handle: Closer = { close: () => session.destroy() };
      session.on('error', reject);
      session.on('close', () => this.closed(handle, false, reject));
      const stream = session.request({ ':path': '/ping' });
      stream.on('error', reject);
      stream.resume();
      stream.on('end', () => {
        this.open.add(handle);
        resolve();
      });
      stream.end();
    });
  }

  private closed(handle: Closer, h1: boolean, reject: (e: Error) => void): void {
    if (!this.open.delete(handle)) return reject(new Error('closed before it was answered'));
    if (this.holding) {
      this.reopened++;
      void this.openOne(h1);
    }
  }

  /** Stops reopening; resolves with how many are still open after `ms` (the server closes idle ones). */
  async release(ms: number): Promise<number> {
    this.holding = false;
    const until = Date.now() + ms;
    while (this.open.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    return this.open.size;
  }

  destroy(): void {
    this.holding = false;
    for (const c of [...this.open]) c.close();
    this.open.clear();
  }
}

export type SlowKind = 'trickle' | 'trickle-too-slow' | 'stall-head' | 'stall-body' | 'slow-reader';

export interface SlowOutcome {
  kind: SlowKind;
  /** The status answered (0: none), and how long it took. */
  status: number;
  ms: number;
  /** Why this outcome is wrong, if it is. */
  problem?: string;
}

/**
 * One slow client on a fresh connection. The server's body timeout (`bodyTimeoutMs`) bounds how long
 * a request may take to arrive: one that makes it gets its answer, one that does not gets 408.
 */
export function slowClient(url: string, secret: string, bodyTimeoutMs: number, rand: Rand): Promise<SlowOutcome> {
  const { hostname, port } = new URL(url);
  const kinds: SlowKind[] = ['trickle', 'trickle-too-slow', 'stall-head', 'stall-body', 'slow-reader'];
  const kind = kinds[Math.floor(rand() * kinds.length)];
  const request = (body: string) =>
    Buffer.from(`POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  const small = request('{"add":[1,2]}');
  // A byte every `gap` ms: the whole request in about half the body timeout, or twice it.
  const plan: { bytes: Buffer; gapMs: number; upTo: number; expect: number[] } = {
    trickle: { bytes: small, gapMs: bodyTimeoutMs / 2 / small.length, upTo: small.length, expect: [200] },
    'trickle-too-slow': { bytes: small, gapMs: (2 * bodyTimeoutMs) / small.length, upTo: small.length, expect: [408] },
    'stall-head': { bytes: small, gapMs: 0, upTo: 40, expect: [408] },
    'stall-body': { bytes: small, gapMs: 0, upTo: small.length - 5, expect: [408] },
    'slow-reader': { bytes: request('{"repeat":{"repeat":"0123456789abcdef","number":1024},"number":256}'), gapMs: 0, upTo: Infinity, expect: [200] },
  }[kind];
  const deadlineMs = 3 * bodyTimeoutMs + 30_000;
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.setNoDelay(true);
    let got = Buffer.alloc(0);
    let status = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (problem?: string) => {
      clearTimeout(timer);
      clearTimeout(deadline);
      socket.destroy();
      resolve({ kind, status, ms: Date.now() - started, problem });
    };
    const deadline = setTimeout(() => finish(`no answer after ${deadlineMs} ms`), deadlineMs);
    const judge = () => {
      if (status >= 500) return finish(`status ${status}`);
      if (!plan.expect.includes(status)) return finish(`status ${status}, expected ${plan.expect.join(' or ')}`);
      finish();
    };
    let sent = 0;
    const send = () => {
      const end = Math.min(plan.upTo, plan.bytes.length);
      if (plan.gapMs === 0) {
        socket.write(plan.bytes.subarray(0, end));
        sent = end;
        return;
      }
      if (sent >= end || socket.destroyed) return;
      socket.write(plan.bytes.subarray(sent, ++sent));
      timer = setTimeout(send, plan.gapMs);
    };
    socket.on('connect', () => {
      send();
      if (kind === 'slow-reader') {
        // Read nothing for a while: the server holds the unsent answer, then must deliver it whole.
        socket.pause();
        setTimeout(() => socket.resume(), Math.min(bodyTimeoutMs, 5000));
      }
    });
    socket.on('data', (c: Buffer) => {
      got = Buffer.concat([got, c]);
      const head = got.toString('latin1', 0, Math.min(got.length, 200));
      const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (!m) return;
      status = Number(m[1]);
      if (kind !== 'slow-reader') return judge();
      const headEnd = got.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(got.toString('latin1', 0, headEnd));
      if (headEnd > 0 && length && got.length >= headEnd + 4 + Number(length[1])) judge();
      else if (headEnd > 0 && !length && got.subarray(-5).toString('latin1') === '0\r\n\r\n') judge();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (status) judge();
      else finish('closed without an answer');
    });
  });
}
