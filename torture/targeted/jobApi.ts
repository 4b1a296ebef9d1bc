// The jobs API (/api/v1/exports, /imports) as the job attacks call it: one request with its status,
// JSON answer and time; a job polled until it is no longer Running; the files a data directory holds.

import { readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';

export interface ApiAnswer {
  status: number;
  headers: Headers;
  /** The body as text (JSON answers parsed into `json`). */
  text: string;
  json?: Record<string, any>;
  ms: number;
}

export async function api(url: string, method: string, route: string, secret: string | undefined, body?: string | Buffer): Promise<ApiAnswer> {
  const started = performance.now();
  const res = await fetch(`${url}${route}`, {
    method,
    headers: secret === undefined ? {} : { authorization: `Bearer ${secret}` },
    body: body === undefined ? undefined : typeof body === 'string' ? body : new Uint8Array(body),
  });
  const text = Buffer.from(await res.arrayBuffer()).toString('utf8');
  const ms = performance.now() - started;
  let json: Record<string, any> | undefined;
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) {
    try {
      json = JSON.parse(text) as Record<string, any>;
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, headers: res.headers, text, json, ms };
}

/** GET `route` until the job is not Running (or `timeoutMs` passes: then the last answer). */
export async function untilDone(url: string, route: string, secret: string, timeoutMs = 120_000): Promise<ApiAnswer> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api(url, 'GET', route, secret);
    if (r.status !== 200 || r.json?.state !== 'Running' || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every file below `dir` with its size ([] when there is no such folder). */
export async function filesBelow(dir: string): Promise<{ path: string; bytes: number }[]> {
  let names: string[];
  try {
    names = await readdir(dir, { recursive: true });
  } catch {
    return [];
  }
  const out: { path: string; bytes: number }[] = [];
  for (const name of names) {
    const full = path.join(dir, name);
    const s = await stat(full).catch(() => undefined);
    if (s?.isFile()) out.push({ path: full, bytes: s.size });
  }
  return out;
}
