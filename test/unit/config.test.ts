import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, defaultConfig, isLoopbackHost, loadConfig } from '../../src/config';

test('defaults: port 8443, root secret "secret", data in ./data', () => {
  const c = loadConfig([], {});
  assert.deepEqual([c.port, c.host, c.rootSecret, c.dataDir], [8443, '127.0.0.1', 'secret', './data']);
  assert.deepEqual(c, defaultConfig());
});

test('flags win over the environment, which wins over the defaults', () => {
  const c = loadConfig(['--port', '9000', '--region-group=eu-std'], { FLORA_PORT: '9100', FLORA_ROOT_SECRET: 's3', FLORA_HISTORY_GRACE_SECONDS: '0' });
  assert.deepEqual([c.port, c.rootSecret, c.regionGroup, c.historyGraceSeconds], [9000, 's3', 'eu-std', 0]);
});

test('bad values are ConfigErrors (exit code 2) naming where they came from', () => {
  const bad: [string[], Record<string, string>][] = [
    [['--port', '70000'], {}],
    [[], { FLORA_PORT: ' 1e3' }],
    [['--region-group', 'us/std'], {}],
    [[], { FLORA_REGION_GROUP: 'us std' }],
    [['--collect-interval-ms', '0'], {}],
    [['--history-grace-seconds', '-1'], {}],
    [['--root-secret', ''], {}],
    [['--nope', '1'], {}],
    [['--port'], {}],
  ];
  for (const [argv, env] of bad) {
    assert.throws(() => loadConfig(argv, env), (e: unknown) => e instanceof ConfigError && e.exitCode === 2, JSON.stringify([argv, env]));
  }
  assert.throws(() => loadConfig(['--region-group', 'a/b'], {}), /Invalid region group 'a\/b' \(from --region-group\)/);
});

test('the dashboard is on by default; --no-admin, --admin false and FLORA_ADMIN=false turn it off', () => {
  assert.equal(loadConfig([], {}).admin, true);
  assert.equal(loadConfig(['--no-admin'], {}).admin, false);
  assert.equal(loadConfig(['--admin', 'false'], {}).admin, false);
  assert.equal(loadConfig([], { FLORA_ADMIN: 'false' }).admin, false);
  assert.equal(loadConfig(['--no-admin', '--port', '1'], { FLORA_ADMIN: 'true' }).admin, false, 'the flag wins');
  assert.equal(loadConfig(['--admin=true'], { FLORA_ADMIN: 'off' }).admin, true);
  // --no- takes no value, and exists only for true/false settings.
  for (const argv of [['--no-admin=false'], ['--no-port'], ['--no-log-queries=1']]) {
    assert.throws(() => loadConfig(argv, {}), /Unknown option/, argv.join(' '));
  }
  assert.throws(() => loadConfig([], { FLORA_ADMIN: 'maybe' }), /Invalid boolean 'maybe' \(from FLORA_ADMIN\)/);
});

test('the default root secret is refused beyond loopback, naming the flags; a secret of its own or the override passes', () => {
  for (const host of ['0.0.0.0', '::', '192.168.1.20', '10.0.0.1', 'db.example.com', '::ffff:10.0.0.1']) {
    assert.throws(
      () => loadConfig(['--host', host], {}),
      (e: unknown) => e instanceof ConfigError && e.exitCode === 2 && /default root secret 'secret'/.test(e.message) && /--root-secret/.test(e.message) && /--allow-default-secret/.test(e.message),
      host,
    );
    assert.equal(loadConfig(['--host', host, '--root-secret', 'long-and-mine'], {}).host, host);
    assert.equal(loadConfig(['--host', host], { FLORA_ROOT_SECRET: 'long-and-mine' }).host, host);
    assert.equal(loadConfig(['--host', host, '--allow-default-secret', 'true'], {}).host, host);
    assert.equal(loadConfig([], { FLORA_HOST: host, FLORA_ALLOW_DEFAULT_SECRET: 'true' }).host, host);
  }
  assert.throws(() => loadConfig([], { FLORA_HOST: '0.0.0.0' }), ConfigError);
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) {
    assert.ok(isLoopbackHost(host), host);
    assert.equal(loadConfig(['--host', host], {}).rootSecret, 'secret', host);
  }
  for (const host of ['0.0.0.0', '::', '128.0.0.1', 'localhost.evil.example', '::2']) assert.ok(!isLoopbackHost(host), host);
});

test("the server log is text unless --log-format or FLORA_LOG_FORMAT says json; anything else is refused by name", () => {
  assert.equal(loadConfig([], {}).logFormat, 'text');
  assert.equal(loadConfig(['--log-format', 'json'], {}).logFormat, 'json');
  assert.equal(loadConfig([], { FLORA_LOG_FORMAT: 'JSON' }).logFormat, 'json');
  assert.equal(loadConfig(['--log-format=text'], { FLORA_LOG_FORMAT: 'json' }).logFormat, 'text');
  assert.throws(
    () => loadConfig(['--log-format', 'xml'], {}),
    (e: unknown) => e instanceof ConfigError && e.exitCode === 2 && e.message === "Invalid log format 'xml' (from --log-format): expected text or json.",
  );
  assert.throws(() => loadConfig([], { FLORA_LOG_FORMAT: 'logfmt' }), /^Error: Invalid log format 'logfmt' \(from FLORA_LOG_FORMAT\): expected text or json\.$/);
});

test('--storage: lmdb, a postgres:// URL, or embedded-postgres with an optional port from 1 to 65535', () => {
  assert.equal(loadConfig(['--storage', 'lmdb'], {}).storage, '');
  assert.equal(loadConfig(['--storage', 'postgresql://u:p@h/db'], {}).storage, 'postgresql://u:p@h/db');
  assert.equal(loadConfig(['--storage', 'embedded-postgres'], {}).storage, 'embedded-postgres');
  assert.equal(loadConfig([], { FLORA_STORAGE: 'embedded-postgres:5433' }).storage, 'embedded-postgres:5433');
  for (const bad of ['embedded-postgres:0', 'embedded-postgres:65536', 'embedded-postgres:', 'embedded-postgresql', 'mysql://x'])
    assert.throws(() => loadConfig(['--storage', bad], {}), new RegExp(`Invalid storage '${bad}' \\(from --storage\\): expected lmdb, a postgres:// URL, or embedded-postgres\\[:port\\]\\.$`));
});
