// GET|HEAD /admin and /admin/<file>: the dashboard's bundle (dist/admin, built by scripts/build.js).
// Only the files the build wrote are served, read once; anything else under /admin is 404. The
// Content-Security-Policy lets the page load nothing but its own files and talk to nothing but this
// server: the dashboard works offline, and an injected script could not phone home.

import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Handler } from './router';
import { protocolError, type Outcome } from './responses';

/** dist/src/server/admin.js → dist/admin */
const ADMIN_DIR = join(__dirname, '..', '..', 'admin');

const ADMIN_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export function isAdminPath(path: string): boolean {
  return path === '/admin' || path.startsWith('/admin/');
}

interface AdminFile {
  body: Buffer;
  /** The same, gzipped once at load (GraphiQL's 1.3 MB is 0.4 MB so), for browsers that accept it. */
  gzipped: Buffer;
  contentType: string;
}

const gzipAsync = promisify(gzip);

/**
 * The bundle's files by name, or the reason there are none. Read and compressed off the event
 * loop (GraphiQL's 1.3 MB takes tens of ms to gzip): the queries in flight do not wait for it.
 */
async function loadBundle(dir: string): Promise<Map<string, AdminFile> | string> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return `The dashboard is not built (no ${dir}): run node scripts/build.js.`;
  }
  const files = new Map<string, AdminFile>();
  for (const name of names) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (!contentType) continue;
    const body = await readFile(join(dir, name));
    files.set(name, { body, gzipped: await gzipAsync(body, { level: 9 }), contentType });
  }
  return files.has('index.html') ? files : `The dashboard is not built (no index.html in ${dir}): run node scripts/build.js.`;
}

/** Whether an Accept-Encoding header takes gzip (listed, or `*`, without `q=0`). */
export function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding.trim() !== 'gzip' && coding.trim() !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * The handler of the /admin routes. The bundle is read on the first request and kept: it changes
 * only with a build, after which the server is restarted anyway (its own code changed too).
 */
export function adminHandler(dir: string = ADMIN_DIR): Handler {
  let loading: Promise<Map<string, AdminFile> | string> | undefined;
  return async (ctx): Promise<Outcome> => {
    loading ??= loadBundle(dir); // one load, however many requests arrive while it runs
    const bundle = await loading;
    if (typeof bundle === 'string') return protocolError(404, 'not found', bundle);
    // /admin and /admin/ are the page; the page names its files relative to /admin/.
    const name = ctx.path === '/admin' || ctx.path === '/admin/' ? 'index.html' : ctx.path.slice('/admin/'.length);
    const file = bundle.get(name);
    if (!file) return protocolError(404, 'not found', 'Not Found');
    const gzip = acceptsGzip(ctx.headers['accept-encoding']);
    return {
      status: 200,
      body: gzip ? file.gzipped : file.body,
      headers: {
        'content-type': file.contentType,
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
        vary: 'accept-encoding',
        // The page is small and must follow a new build at once; its files revalidate too, since their names carry no hash.
        'cache-control': 'no-cache',
        'content-security-policy': ADMIN_CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      },
    };
  };
}
