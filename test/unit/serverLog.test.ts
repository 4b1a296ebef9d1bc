// The server's log lines (src/diag): the text form the server has always written, the JSON form a
// log shipper parses, and the redaction that keeps every secret out of both.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonLine, textLine } from '../../src/diag/logLine';
import { isSecretField, redact, REDACTED } from '../../src/diag/redact';

const KEY_SECRET = 'fnAAAAAAAAAAAAA4Kq9pZ1Hx0kXzC2oT7bVbTQyWwmUa';
const TOKEN_SECRET = 'fnEAAAAAAAAAAAE2AAAAAAAAAAGVrPLwmKZ3s4oD3b6n8Y1qA_x-';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLXBhcnQ';
const TIME = new Date('2024-05-06T07:08:09.010Z');

test('secrets of keys and tokens, scoped or not, JWTs, credentials of a header and URL passwords are redacted', () => {
  assert.equal(redact(`cannot resolve ${KEY_SECRET}`), `cannot resolve ${REDACTED}`);
  assert.equal(redact(`${TOKEN_SECRET}:app/child:admin`), `${REDACTED}:app/child:admin`);
  assert.equal(redact(`"${KEY_SECRET}"`), `"${REDACTED}"`);
  assert.equal(redact(`token ${JWT} expired`), `token ${REDACTED} expired`);
  assert.equal(redact(`authorization: Bearer ${KEY_SECRET}`), `authorization: Bearer ${REDACTED}`);
  assert.equal(redact('Authorization: Basic Zm5BQUE6'), `Authorization: Basic ${REDACTED}`);
  assert.equal(
    redact('PostgreSQL is unavailable: postgres://flora:pa55w0rd@db.internal:5432/flora (ECONNREFUSED)'),
    `PostgreSQL is unavailable: postgres://flora:${REDACTED}@db.internal:5432/flora (ECONNREFUSED)`,
  );
  // Names that only start like a secret stay.
  assert.equal(redact('function fnord failed; index fn_by_name built'), 'function fnord failed; index fn_by_name built');
});

test('the root secret is redacted as a whole word, scoped forms too, and leaves words that contain it', () => {
  const secrets = ['r00t-Pass'];
  assert.equal(redact('secret r00t-Pass:app:server refused', secrets), `secret ${REDACTED}:app:server refused`);
  assert.equal(redact('xr00t-Passy stays', secrets), 'xr00t-Passy stays');
  assert.equal(redact('a+b (r00t-Pass)', ['a+b', 'r00t-Pass']), `${REDACTED} (${REDACTED})`);
});

test('field names that hold credentials are secret whatever their value', () => {
  for (const name of ['authorization', 'Authorization', 'secret', 'rootSecret', 'password', 'cookie', 'token']) assert.ok(isSecretField(name), name);
  for (const name of ['requestId', 'path', 'method', 'streamId', 'index']) assert.ok(!isSecretField(name), name);
});

test('a JSON line: level, time, msg, worker, pid, requestId, the fields, then the error with its stack on one line', () => {
  const err = new Error(`no key for ${KEY_SECRET}`);
  (err as NodeJS.ErrnoException).code = 'EKEY';
  const line = jsonLine(
    {
      level: 'error',
      time: TIME,
      msg: 'internal error [request 0123456789abcdef] in POST /',
      worker: '2',
      pid: 4242,
      fields: { requestId: '0123456789abcdef', method: 'POST', path: '/', err, authorization: `Bearer ${KEY_SECRET}`, ts: 17n, skipped: undefined, headers: { Authorization: 'x', accept: '*/*' } },
    },
    [],
  );
  assert.doesNotMatch(line, /\n/);
  const parsed = JSON.parse(line) as Record<string, any>;
  assert.deepEqual(Object.keys(parsed), ['level', 'time', 'msg', 'worker', 'pid', 'requestId', 'method', 'path', 'authorization', 'ts', 'headers', 'err']);
  assert.equal(parsed.time, '2024-05-06T07:08:09.010Z');
  assert.deepEqual([parsed.level, parsed.worker, parsed.pid, parsed.requestId, parsed.ts], ['error', '2', 4242, '0123456789abcdef', '17']);
  assert.equal(parsed.authorization, REDACTED);
  assert.deepEqual(parsed.headers, { Authorization: REDACTED, accept: '*/*' });
  assert.deepEqual([parsed.err.name, parsed.err.message, parsed.err.code], ['Error', `no key for ${REDACTED}`, 'EKEY']);
  assert.match(parsed.err.stack, /^Error: no key for \[redacted\]\n\s+at /);
  assert.ok(!line.includes(KEY_SECRET));
});

test('fields the event does not set are left out; the message cannot be overwritten by a field; a thrown non-Error is kept', () => {
  const parsed = JSON.parse(jsonLine({ level: 'info', time: TIME, msg: 'listening', worker: 'main', pid: 1, fields: { msg: 'other', level: 'error', err: 'plain words' } }, [])) as Record<string, unknown>;
  assert.deepEqual(parsed, { level: 'info', time: TIME.toISOString(), msg: 'listening', worker: 'main', pid: 1, err: { message: 'plain words' } });
  assert.deepEqual(Object.keys(JSON.parse(jsonLine({ level: 'warn', time: TIME, msg: 'm', worker: 'supervisor', pid: 1 }, [])) as object), ['level', 'time', 'msg', 'worker', 'pid']);
});

test('a deep or circular field value is written as text, not followed', () => {
  const loop: Record<string, unknown> = { name: 'a' };
  loop.self = loop;
  const parsed = JSON.parse(jsonLine({ level: 'info', time: TIME, msg: 'm', worker: 'main', pid: 1, fields: { loop } }, [])) as { loop: Record<string, any> };
  assert.equal(parsed.loop.name, 'a');
  assert.equal(typeof parsed.loop.self.self.self.self, 'string');
});

test("the text line is what the server always wrote: 'flora: ' and the message, then the error as Node prints it", () => {
  assert.equal(textLine('cannot open the store: locked', undefined, []), 'flora: cannot open the store: locked');
  const err = new Error('failpoint query.evaluate');
  const line = textLine('internal error [request 00ff] in POST /', { requestId: '00ff', method: 'POST', err }, []);
  assert.match(line, /^flora: internal error \[request 00ff\] in POST \/: Error: failpoint query\.evaluate\n\s+at /);
  assert.equal(textLine(`secret ${KEY_SECRET} and r00t`, undefined, ['r00t']), `flora: secret ${REDACTED} and ${REDACTED}`);
});
