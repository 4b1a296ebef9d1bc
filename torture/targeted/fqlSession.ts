// What the attacks share to speak FQL: requests over one HTTP/2 connection (as a driver keeps one),
// another client's queries meanwhile, the documents and the long expression they send.

import http2 from 'node:http2';
import { setTimeout as delay } from 'node:timers/promises';
import { procCpuSeconds } from '../../bench/procStatus';
import { h2Answer, timedPost, type RawResponse, type TimedResponse } from '../../test/helpers/server';

/** One HTTP/2 connection carrying FQL requests (POST /), any number in flight. */
export class FqlSession {
  private readonly session: http2.ClientHttp2Session;

  constructor(url: string) {
    this.session = http2.connect(url);
    this.session.on('error', () => {}); // a request's own error reports it
  }

  post(secret: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
    const stream = this.session.request({
      ':method': 'POST',
      ':path': '/',
      authorization: `Bearer ${secret}`,
      'x-faunadb-api-version': '4',
      'content-type': 'application/json',
      ...headers,
    });
    stream.end(typeof body === 'string' ? body : JSON.stringify(body));
    return h2Answer(stream);
  }

  /** Once the requests in flight are answered. */
  close(): void {
    this.session.close();
  }

  /** At once, as a client that gives up does: the requests in flight are reset. */
  destroy(): void {
    this.session.destroy();
  }
}

/** Another client while an attack runs: a cheap query with `secret` on a fresh connection, again 100 ms after each answer, until stopped. */
export class Bystander {
  readonly answers: TimedResponse[] = [];
  private stopped = false;
  private readonly running: Promise<void>;

  constructor(
    readonly who: string,
    url: string,
    secret: string,
    http2 = false,
  ) {
    this.running = (async () => {
      while (!this.stopped) {
        this.answers.push(await timedPost(url, secret, { http2 }));
        await delay(100);
      }
    })();
  }

  /** Resolves once the query in flight is answered. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}

/** The first error of an FQL answer, or undefined for a resource. */
export function firstError(a: RawResponse): { code: string; description: string } | undefined {
  try {
    return (JSON.parse(a.body) as { errors?: { code: string; description: string }[] }).errors?.[0];
  } catch {
    return undefined;
  }
}

/** CPU time `pid` has used so far (user + system, all threads), in ms. */
export function cpuMs(pid: number): number {
  return procCpuSeconds(pid) * 1000;
}

/** Wire form of a ref to a document of a user collection. */
export function docRef(collection: string, id: string): unknown {
  return { ref: { collection }, id };
}

/** The password of the users createUsers makes. */
export const PASSWORD = 'correct horse battery staple';

/** Collection `users` and, for each of `ids`, a user whose password is PASSWORD; made with `rootSecret`. */
export async function createUsers(session: FqlSession, rootSecret: string, ids: readonly string[]): Promise<void> {
  const made = [await session.post(rootSecret, { create_collection: { object: { name: 'users' } } })];
  for (const id of ids) made.push(await session.post(rootSecret, { create: docRef('users', id), params: { object: { credentials: { object: { password: PASSWORD } } } } }));
  const failed = made.find((a) => a.status !== 201);
  if (failed) throw new Error(`creating the users: ${failed.status} ${failed.body}`);
}

/**
 * An expression of `outer` × `width`^`depth` lambda calls and no memory to speak of (Foreach builds
 * nothing): the default is minutes of CPU on this machine.
 */
export function longExpr(width = 3000, depth = 2, outer = 40): object {
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  const loop = (over: unknown, body: unknown) => ({ foreach: { lambda: 'x', expr: body }, collection: over });
  let body: unknown = { var: 'x' };
  for (let i = 0; i < depth; i++) body = loop({ var: 'a' }, body);
  return { let: [{ a: range(width) }, { o: range(outer) }], in: loop({ var: 'o' }, body) };
}
