// Where `flora eval`/`flora shell` connect: fauna-shell's endpoints file in both of its layouts (as
// the `ini` package that fauna-shell uses writes them), and flags > environment > file.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clientFor, ConnectionError, normaliseDatabase, readEndpointsFile, resolveConnection } from '../../src/cli/shell/connection';
import { parseIni } from '../../src/cli/shell/ini';

// fauna-shell's own INI writer (its dependency `ini`), so the files are byte for byte its.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ini = require(require.resolve('ini', { paths: [require.resolve('fauna-shell-0/package.json')] })) as { stringify(v: object): string };

/** fauna-shell 0.x: `fauna add-endpoint` writes top-level sections with domain, port, scheme. */
const V0 = ini.stringify({
  default: 'local',
  local: { domain: 'localhost', port: 8443, scheme: 'http', secret: 'fnLocal;x#y' },
  cloud: { domain: 'db.fauna.com', scheme: 'https', secret: 'fnCloud' },
  'my.dots': { domain: 'h', secret: 's' },
  nosecret: { domain: 'h' },
});

/** fauna-shell 1.x: endpoints nested under `endpoint.`, with a url (left out for Fauna's). */
const V1 = ini.stringify({
  default: 'dev',
  endpoint: { dev: { secret: 'fnDev', url: 'http://127.0.0.1:9000' }, cloud: { secret: 'fnCloud1' } },
});

function withHome(file: string | undefined, f: (home: string) => void): void {
  const home = mkdtempSync(path.join(tmpdir(), 'flora-shell-home-'));
  try {
    if (file !== undefined) writeFileSync(path.join(home, '.fauna-shell'), file);
    f(home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

test('the INI reader: sections, comments, quoted and escaped values', () => {
  const s = parseIni('top=1\n; comment\n# another\n[a]\nk = v ; trailing\nq = "x;y\\"z"\nl=\'lit;\'\nesc=a\\;b\n[endpoint.x\\.y]\nsecret=1\nflag\n');
  assert.deepEqual([...s.keys()], ['', 'a', 'endpoint.x.y']);
  assert.equal(s.get('')!.get('top'), '1');
  assert.deepEqual(Object.fromEntries(s.get('a')!), { k: 'v', q: 'x;y"z', l: 'lit;', esc: 'a;b' });
  assert.deepEqual(Object.fromEntries(s.get('endpoint.x.y')!), { secret: '1' });
});

test("fauna-shell 0.x's file: domain, port and scheme make the URL; the default is named at the top", () => {
  withHome(V0, (home) => {
    const file = readEndpointsFile(path.join(home, '.fauna-shell'));
    assert.equal(file.default, 'local');
    assert.deepEqual(Object.fromEntries(file.endpoints), {
      local: { url: 'http://localhost:8443', secret: 'fnLocal;x#y' },
      cloud: { url: 'https://db.fauna.com', secret: 'fnCloud' },
      'my.dots': { url: 'https://h', secret: 's' },
      nosecret: { url: 'https://h', secret: undefined },
    });
    assert.deepEqual(resolveConnection({}, {}, home), { url: 'http://localhost:8443', secret: 'fnLocal;x#y', database: '', endpoint: 'local' });
    assert.deepEqual(resolveConnection({ endpoint: 'cloud' }, {}, home), { url: 'https://db.fauna.com', secret: 'fnCloud', database: '', endpoint: 'cloud' });
  });
});

test("fauna-shell 1.x's file: [endpoint.<alias>] with secret and url (Fauna's when left out)", () => {
  withHome(V1, (home) => {
    assert.deepEqual(resolveConnection({}, {}, home), { url: 'http://127.0.0.1:9000', secret: 'fnDev', database: '', endpoint: 'dev' });
    assert.deepEqual(resolveConnection({ endpoint: 'cloud' }, {}, home), { url: 'https://db.fauna.com', secret: 'fnCloud1', database: '', endpoint: 'cloud' });
  });
});

test('flags win over the environment, which wins over the file', () => {
  withHome(V0, (home) => {
    const env = { FLORA_URL: 'http://env:1', FLORA_SECRET: 'envSecret' };
    // The environment replaces the file's default endpoint altogether.
    assert.deepEqual(resolveConnection({}, env, home), { url: 'http://env:1', secret: 'envSecret', database: '', endpoint: undefined });
    // FLORA_URL alone: the default endpoint's secret is not sent to another server.
    assert.throws(() => resolveConnection({}, { FLORA_URL: 'http://env:1' }, home), /a secret is required/);
    // Flags over the environment.
    assert.deepEqual(resolveConnection({ url: 'http://flag:2/', secret: 'flagSecret' }, env, home), { url: 'http://flag:2', secret: 'flagSecret', database: '', endpoint: undefined });
    // --endpoint is a flag: it wins over the environment, field by field under --url/--secret.
    assert.deepEqual(resolveConnection({ endpoint: 'cloud' }, env, home), { url: 'https://db.fauna.com', secret: 'fnCloud', database: '', endpoint: 'cloud' });
    assert.deepEqual(resolveConnection({ endpoint: 'cloud', secret: 'flagSecret' }, env, home).secret, 'flagSecret');
    // --url with the default endpoint's secret, as fauna-shell merged its flags over the endpoint.
    assert.deepEqual(resolveConnection({ url: 'http://flag:2' }, {}, home), { url: 'http://flag:2', secret: 'fnLocal;x#y', database: '', endpoint: 'local' });
    // Empty environment variables count as unset.
    assert.equal(resolveConnection({}, { FLORA_URL: '', FLORA_SECRET: '' }, home).endpoint, 'local');
  });
});

test('without a file: the environment, else the default URL and a required secret', () => {
  withHome(undefined, (home) => {
    assert.deepEqual(resolveConnection({ secret: 's' }, {}, home), { url: 'http://127.0.0.1:8443', secret: 's', database: '', endpoint: undefined });
    assert.throws(() => resolveConnection({}, {}, home), (e) => e instanceof ConnectionError && /a secret is required: --secret, FLORA_SECRET/.test(e.message));
    assert.throws(() => resolveConnection({ endpoint: 'x' }, {}, home), /no endpoint 'x' in .*\.fauna-shell$/);
  });
});

test('bad choices are ConnectionErrors that say what is wrong', () => {
  withHome(V0, (home) => {
    assert.throws(() => resolveConnection({ endpoint: 'nope' }, {}, home), /no endpoint 'nope' in .*\(it has 'local', 'cloud', 'my.dots', 'nosecret'\)/);
    assert.throws(() => resolveConnection({ endpoint: 'nosecret' }, {}, home), /endpoint 'nosecret' in .* has no secret/);
    assert.equal(resolveConnection({ endpoint: 'nosecret', secret: 'x' }, {}, home).url, 'https://h');
    assert.throws(() => resolveConnection({ url: 'not a url', secret: 's' }, {}, home), /'not a url' is not a URL/);
    assert.throws(() => resolveConnection({ secret: 's', database: 'a//b' }, {}, home), /'a\/\/b' is not a database path/);
  });
  withHome('default=gone\n[other]\nsecret=s\n', (home) => {
    assert.throws(() => resolveConnection({}, {}, home), /no endpoint 'gone' in .*\(it has 'other'\)/);
  });
});

test('database paths, and clients scoped to them below the start database', () => {
  assert.deepEqual(['', '/', 'a', '/a/b/', 'a/b'].map(normaliseDatabase), ['', '', 'a', 'a/b', 'a/b']);
  assert.throws(() => normaliseDatabase('a:b'), ConnectionError);
  const conn = { url: 'http://x', secret: 's', database: 'app' };
  assert.deepEqual(clientFor(conn).path, ['app']);
  assert.deepEqual(clientFor(conn, 'b/c').path, ['app', 'b', 'c']);
  assert.deepEqual(clientFor(conn, '/').path, ['app']);
  assert.deepEqual(clientFor({ ...conn, database: '' }, '/').path, []);
  // A scoped secret cannot be scoped again, but works in its own database.
  assert.throws(() => clientFor({ ...conn, secret: 's:db:admin' }), /needs an unscoped secret/);
  assert.deepEqual(clientFor({ url: 'http://x', secret: 's:db:admin', database: '' }).path, []);
});
