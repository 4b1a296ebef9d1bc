// The container image, compose file and systemd unit (Dockerfile, compose.yaml, deploy/) name Flora's
// flags and FLORA_* variables in text no compiler reads: these tests read them back through the
// config table, so a setting renamed or removed fails here rather than in someone's deployment.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, SETTINGS } from '../../src/config';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

const ENVS = new Set(SETTINGS.map((s) => s.env));
const FLAGS = new Set(SETTINGS.map((s) => s.flag));
/** Read by bin/flora.js before the config is: not a setting. */
const SHIM_ENV = 'FLORA_NO_BUILD_CHECK';

function assertKnownEnv(names: Iterable<string>, where: string): void {
  for (const name of names) {
    if (name === SHIM_ENV) assert.match(read('bin/flora.js'), new RegExp(`process\\.env\\.${SHIM_ENV}\\b`), where);
    else assert.ok(ENVS.has(name), `${where} sets ${name}, which no setting reads`);
  }
}

/** The arguments after `start` in a command line. */
function startArgs(command: readonly string[], where: string): string[] {
  const i = command.indexOf('start');
  assert.ok(i > 0, `${where} runs flora start`);
  const args = command.slice(i + 1);
  for (const a of args) if (a.startsWith('--')) assert.ok(FLAGS.has(a.split('=')[0]), `${where} passes ${a}, which is no flag of flora start`);
  return args;
}

/** The Dockerfile's JSON-form instruction `name` (the last one, as the builder takes it). */
function dockerJson(text: string, name: string): string[] {
  const lines = [...text.matchAll(new RegExp(`^${name} .*?(\\[.*\\])\\s*$`, 'gm'))];
  assert.ok(lines.length > 0, `the Dockerfile has a JSON-form ${name}`);
  return JSON.parse(lines[lines.length - 1][1]) as string[];
}

/** The runtime stage's `ENV a=b c=d` pairs. */
function dockerEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [, line] of text.matchAll(/^ENV (.*)$/gm)) for (const [, k, v] of line.matchAll(/(\w+)=(\S+)/g)) env[k] = v;
  return env;
}

/** Compose's `${NAME:?message}` and `${NAME:-default}` as a shell would expand them with `given`. */
function interpolate(value: string, given: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) => given[name] ?? (kind === '-' ? rest ?? '' : ''));
}

/** The `FLORA_*: value` lines of compose.yaml's environment maps (the file has only flat maps of them). */
function composeFloraEnv(text: string, given: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [, k, v] of text.matchAll(/^\s+(FLORA_[A-Z0-9_]+):\s*(.*)$/gm)) env[k] = interpolate(v.trim(), given);
  return env;
}

const dockerfile = read('Dockerfile');
const compose = read('compose.yaml');

test('Dockerfile: the entrypoint starts flora on every interface and the volume, with a secret from the environment', () => {
  const entry = dockerJson(dockerfile, 'ENTRYPOINT');
  const env = dockerEnv(dockerfile);
  assertKnownEnv(Object.keys(env).filter((k) => k.startsWith('FLORA_')), 'the Dockerfile');
  const args = startArgs(entry, 'the ENTRYPOINT');
  assert.match(dockerfile, /^VOLUME \/data$/m);
  assert.throws(() => loadConfig(args, env), /Refusing to listen on 0\.0\.0\.0 with the default root secret/);
  const c = loadConfig(args, { ...env, FLORA_ROOT_SECRET: 'a-secret-of-our-own' });
  assert.deepEqual([c.host, c.dataDir, c.port, c.rootSecret], ['0.0.0.0', '/data', 8443, 'a-secret-of-our-own']);
  assert.match(dockerfile, new RegExp(`^EXPOSE ${c.port}$`, 'm'));
});

test('Dockerfile: the healthcheck script is in the image and probes the port the server listens on', () => {
  const check = dockerJson(dockerfile, 'HEALTHCHECK');
  const script = check.find((a) => a.startsWith('/app/'));
  assert.ok(script !== undefined && existsSync(path.join(ROOT, script.slice('/app/'.length))), `${script} is a file of the repository`);
  assert.match(dockerfile, new RegExp(`^COPY ${path.dirname(script!).slice('/app/'.length)}/?\\S* `, 'm'));
  const source = read(script!.slice('/app/'.length));
  const names = [...source.matchAll(/process\.env\.(FLORA_[A-Z0-9_]+)/g)].map((m) => m[1]);
  assert.deepEqual(names.sort(), ['FLORA_PORT', 'FLORA_TLS_CERT']);
  assertKnownEnv(names, 'the healthcheck');
  assert.match(source, new RegExp(`\\|\\| ${SETTINGS.find((s) => s.env === 'FLORA_PORT')!.defaultValue}\\)`), 'its default port is the server\'s');
  assert.match(source, /path: '\/healthz'/);
});

test('compose.yaml: the Flora services run on PostgreSQL behind haproxy, their settings known to the config', () => {
  const given = { FLORA_ROOT_SECRET: 'a-secret-of-our-own', POSTGRES_PASSWORD: 'pw' };
  const env = composeFloraEnv(compose, given);
  assertKnownEnv(Object.keys(env), 'compose.yaml');
  const c = loadConfig(startArgs(dockerJson(dockerfile, 'ENTRYPOINT'), 'the ENTRYPOINT'), { ...dockerEnv(dockerfile), ...env });
  assert.equal(c.storage, 'postgres://flora:pw@postgres:5432/flora');
  assert.equal(c.rootSecret, 'a-secret-of-our-own');
  assert.ok(c.workers >= 1 && (c.drainMs ?? 0) > 0);
  // Compose states the image's healthcheck again (it holds in either image format).
  assert.ok(compose.includes(`test: ${JSON.stringify(['CMD', ...dockerJson(dockerfile, 'HEALTHCHECK')]).replace(/,/g, ', ')}`));
  // Every Flora service is a backend of haproxy, on the server's port, probed on /readyz.
  const services = [...compose.matchAll(/^ {2}(\w+):\n {4}<<: \*flora$/gm)].map((m) => m[1]);
  assert.ok(services.length >= 2, 'two or more Flora services');
  const haproxy = read('deploy/haproxy/haproxy.cfg');
  const servers = [...haproxy.matchAll(/^\s+server (\S+) (\S+):(\d+)$/gm)];
  assert.deepEqual(servers.map((m) => [m[1], m[2], Number(m[3])]), services.map((s) => [s, s, c.port]));
  assert.match(haproxy, /option httpchk GET \/readyz/);
});

test('deploy/systemd/flora.service: its environment and flags are known, the secret comes from the environment file', () => {
  const unit = read('deploy/systemd/flora.service');
  const env: Record<string, string> = {};
  for (const [, line] of unit.matchAll(/^Environment=(.*)$/gm)) for (const [, k, v] of line.matchAll(/(\w+)=(\S+)/g)) env[k] = v;
  assertKnownEnv(Object.keys(env).filter((k) => k.startsWith('FLORA_')), 'flora.service');
  const exec = /^ExecStart=(.*)$/m.exec(unit)![1].split(/\s+/);
  assert.match(unit, /^EnvironmentFile=\/etc\/flora\/flora\.env$/m);
  const state = /^StateDirectory=(\S+)$/m.exec(unit)![1];
  const c = loadConfig(startArgs(exec, 'ExecStart'), { ...env, FLORA_ROOT_SECRET: 'from-the-file' });
  assert.equal(c.dataDir, `/var/lib/${state}`);
  assert.equal(c.rootSecret, 'from-the-file');
  assert.match(unit, /^KillMode=mixed$/m);
});
