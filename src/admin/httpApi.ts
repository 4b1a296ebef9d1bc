// Calls of Flora's JSON job APIs (/api/v1/logs, /exports, /imports, /backups) with the signed-in
// key: their errors are `{"message": …}` with an HTTP status, turned into FloraError so that the
// screens show them like a query's (a 403 reads as "the signed-in key's role cannot …").

import { FloraClient, FloraError } from './client';

export interface ApiRequest {
  method?: 'GET' | 'POST';
  /** JSON (an object) or a file's bytes. */
  body?: unknown;
  headers?: Record<string, string>;
}

function send(client: FloraClient, path: string, req: ApiRequest): Promise<Response> {
  const json = req.body !== undefined && !(req.body instanceof Blob);
  return client.fetch(path, {
    method: req.method ?? 'GET',
    headers: { ...req.headers, ...(json && { 'content-type': 'application/json' }) },
    body: json ? JSON.stringify(req.body) : (req.body as Blob | undefined),
  });
}

async function failure(res: Response): Promise<FloraError> {
  const text = await res.text();
  let message = `HTTP ${res.status}`;
  try {
    const parsed = JSON.parse(text) as { message?: unknown; reason?: unknown };
    message = String(parsed.message ?? parsed.reason ?? message);
  } catch {
    // Not JSON: the status says it.
  }
  return new FloraError(res.status, '', message);
}

/** The JSON answer of a call, or a FloraError with the API's message. */
export async function apiJson<T>(client: FloraClient, path: string, req: ApiRequest = {}): Promise<T> {
  const res = await send(client, path, req);
  if (!res.ok) throw await failure(res);
  try {
    return (await res.json()) as T;
  } catch {
    throw new FloraError(res.status, 'bad answer', `The server answered ${res.status} with a body that is not JSON.`);
  }
}

/**
 * Downloads a file that needs the Authorization header (a plain link cannot send one): fetched,
 * then saved by the browser under `name`.
 */
export async function downloadWithKey(client: FloraClient, path: string, name: string): Promise<number> {
  const res = await send(client, path, {});
  if (!res.ok) throw await failure(res);
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // The click has handed the blob to the download; revoked a moment later, not at once.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return blob.size;
}
