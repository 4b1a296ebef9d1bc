// The dashboard's HTTP side (no browser): /admin serves the bundle built by scripts/build.js with
// the right types, cache and CSP headers; other paths under /admin are 404; --no-admin and
// FLORA_ADMIN=false turn it off; and the bundle stays under the 1 MB gzipped budget.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { httpRequest, ROOT, serverForFile, startFlora, type StartOptions } from '../helpers/server';

const file = serverForFile();
const ADMIN_DIR = path.join(ROOT, 'dist', 'admin');

describe('/admin', () => {
  test('/admin and /admin/ are the page; its script and stylesheet have their types', async () => {
    for (const p of ['/admin', '/admin/']) {
      const page = await httpRequest(file.flora.url, { path: p });
      assert.equal(page.status, 200, p);
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
      assert.match(page.body, /<script src="\/admin\/app\.js" defer><\/script>/);
    }
    const js = await httpRequest(file.flora.url, { path: '/admin/app.js' });
    assert.equal(js.status, 200);
    assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(js.body, readFileSync(path.join(ADMIN_DIR, 'app.js'), 'utf8'));
    const css = await httpRequest(file.flora.url, { path: '/admin/app.css' });
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
  });

  test("GraphiQL is a bundle of its own, not named by the page, whose styles fetch nothing (no font, no @import)", async () => {
    const page = await httpRequest(file.flora.url, { path: '/admin' });
    assert.doesNotMatch(page.body, /graphiql/i, 'the first screen does not load it');
    const js = await httpRequest(file.flora.url, { path: '/admin/graphiql.js' });
    assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.doesNotMatch(js.body, /process\.env\.NODE_ENV/, 'React in production mode: the check is compiled away');
    const css = await httpRequest(file.flora.url, { path: '/admin/graphiql.css' });
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    assert.match(css.body, /\.graphiql-container/);
    // The CSP's font-src is 'self': a font from elsewhere or from a data: URL would be refused.
    assert.doesNotMatch(css.body, /@import|@font-face|url\((?!"?data:image\/)/);
  });

  test('every file carries a strict CSP (nothing from elsewhere), nosniff and no-cache', async () => {
    for (const p of ['/admin', '/admin/app.js', '/admin/app.css', '/admin/graphiql.js', '/admin/graphiql.css']) {
      const { headers } = await httpRequest(file.flora.url, { path: p, http2: p.endsWith('.css') });
      assert.match(headers['content-security-policy'], /^default-src 'self';/, p);
      assert.doesNotMatch(headers['content-security-policy'], /unsafe|https?:|\*/, p);
      assert.equal(headers['x-content-type-options'], 'nosniff');
      assert.equal(headers['cache-control'], 'no-cache');
    }
  });

  test('gzipped for a browser that accepts it (the same bytes once inflated), as they are otherwise', async () => {
    const built = (name: string) => readFileSync(path.join(ADMIN_DIR, name), 'utf8');
    for (const name of ['app.js', 'graphiql.js']) {
      const zipped = await fetch(`${file.flora.url}/admin/${name}`, { headers: { 'accept-encoding': 'gzip, deflate' } });
      assert.equal(zipped.headers.get('content-encoding'), 'gzip', name);
      assert.equal(zipped.headers.get('vary'), 'accept-encoding');
      assert.equal(await zipped.text(), built(name), 'fetch inflates it to the file');
    }
    const plain = await httpRequest(file.flora.url, { path: '/admin/app.js' }); // no Accept-Encoding
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body, built('app.js'));
    const refused = await httpRequest(file.flora.url, { path: '/admin/app.js', headers: { 'accept-encoding': 'gzip;q=0, identity' } });
    assert.equal(refused.headers['content-encoding'], undefined, 'q=0 refuses gzip');
  });

  test('HEAD answers the headers without the body; other methods are 405', async () => {
    const head = await httpRequest(file.flora.url, { method: 'HEAD', path: '/admin/app.js' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['content-type'], 'text/javascript; charset=utf-8');
    const post = await httpRequest(file.flora.url, { method: 'POST', path: '/admin', body: '{}' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, 'GET');
  });

  test('anything but the bundle\'s files is 404, including paths that climb out', async () => {
    for (const p of ['/admin/nope.js', '/admin/../package.json', '/admin/%2e%2e/package.json', '/admin/app.js/x', '/admin//app.js', '/adminx', '/admin/.build-inputs']) {
      const r = await httpRequest(file.flora.url, { path: p });
      assert.equal(r.status, 404, p);
      assert.doesNotMatch(r.body, /"name": "flora"/, p);
    }
  });

  test('the query API is untouched: POST / still answers', async () => {
    const r = await httpRequest(file.flora.url, { method: 'POST', path: '/', headers: { authorization: 'Bearer secret' }, body: '{"add":[1,2]}' });
    assert.equal(r.body, '{"resource":3}');
  });
});

describe('turned off', () => {
  const ways: [string, StartOptions][] = [
    ['--no-admin', { args: ['--no-admin'] }],
    ['FLORA_ADMIN=false', { env: { FLORA_ADMIN: 'false' } }],
  ];
  for (const [how, opts] of ways) {
    test(`${how}: /admin is 404 like any unknown path`, async () => {
      const flora = await startFlora(opts);
      try {
        for (const p of ['/admin', '/admin/app.js']) assert.equal((await httpRequest(flora.url, { path: p })).status, 404, p);
        assert.equal((await httpRequest(flora.url, { path: '/ping' })).status, 200);
      } finally {
        await flora.stop();
      }
    });
  }
});

test('the bundle weighs under 1 MB gzipped', () => {
  const names = readdirSync(ADMIN_DIR);
  assert.ok(['app.js', 'index.html', 'graphiql.js', 'graphiql.css'].every((n) => names.includes(n)), `built files: ${names.join(', ')}`);
  const gzipped = names.reduce((sum, n) => sum + gzipSync(readFileSync(path.join(ADMIN_DIR, n))).length, 0);
  assert.ok(gzipped < 1_000_000, `dist/admin is ${gzipped} bytes gzipped`);
});
