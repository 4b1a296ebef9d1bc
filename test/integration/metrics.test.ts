// GET /metrics (issue 34): Prometheus' text format, parsed here line by line as a scraper would; every
// family present; counters that move with FQL v4 (HTTP/1.1 and HTTP/2) and v10 requests; on the main
// port only for the root secret or an admin key of the top database; on --metrics-listen without a
// secret; no secret and no database name in the output. In the runner's tier pass the server is a
// tier of two workers: every request goes on its own connection (the workers take them in turn), and
// the counts must still add up exactly, so the scrape answers for the whole tier; a worker that does
// not answer makes the scrape a 503.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { httpRequest, makeKey, ROOT, startFlora, workerPids, type FloraProcess } from '../helpers/server';
import { freePort } from '../helpers/ports';

const ROOT_SECRET = 'metrics-root-Zq81xv';
const DATABASE = 'shop_metrics_7c1';

let flora: FloraProcess;
let metricsUrl: string;

before(async () => {
  const port = await freePort();
  metricsUrl = `http://127.0.0.1:${port}`;
  flora = await startFlora({ args: ['--metrics-listen', `127.0.0.1:${port}`], env: { FLORA_ROOT_SECRET: ROOT_SECRET } });
});

after(async () => {
  await flora?.stop('SIGKILL');
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Scrape {
  types: Map<string, string>;
  samples: Sample[];
  text: string;
}

/** The text format (exposition format 0.0.4): `# HELP`/`# TYPE` lines and `name{l="v",…} value` samples. */
function parse(text: string): Scrape {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') types.set(meta[2], meta[3]);
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    // Prometheus reads values with Go's ParseFloat: NaN and Inf in any case (prom-client writes `Nan`
    // for a histogram of the event loop that has no sample yet).
    const raw = m[3].toLowerCase();
    const value = raw === '+inf' || raw === 'inf' ? Infinity : raw === '-inf' ? -Infinity : raw === 'nan' ? NaN : Number(m[3]);
    assert.ok(!Number.isNaN(value) || raw === 'nan', `not a value: ${line}`);
    const family = m[1].replace(/_(bucket|sum|count)$/, '');
    assert.ok(types.has(m[1]) || types.has(family), `a sample before its family's TYPE: ${line}`);
    samples.push({ name: m[1], labels, value });
  }
  return { types, samples, text };
}

async function scrape(): Promise<Scrape> {
  const r = await httpRequest(metricsUrl, { path: '/metrics' });
  assert.equal(r.status, 200, r.body);
  assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  return parse(r.body);
}

/** The value of the sample `name` with exactly these labels (0 when absent: a counter not moved yet). */
function value(s: Scrape, name: string, labels: Record<string, string> = {}): number {
  const want = JSON.stringify(Object.entries(labels).sort());
  return s.samples.find((x) => x.name === name && JSON.stringify(Object.entries(x.labels).sort()) === want)?.value ?? 0;
}

const FAMILIES: [string, string][] = [
  ['flora_workers', 'gauge'],
  ['flora_http_requests_total', 'counter'],
  ['flora_http_request_duration_seconds', 'histogram'],
  ['flora_query_compute_ops_total', 'counter'],
  ['flora_query_read_ops_total', 'counter'],
  ['flora_query_write_ops_total', 'counter'],
  ['flora_query_storage_read_bytes_total', 'counter'],
  ['flora_query_storage_written_bytes_total', 'counter'],
  ['flora_transaction_retries_total', 'counter'],
  ['flora_transaction_conflicts_total', 'counter'],
  ['flora_admission_running', 'gauge'],
  ['flora_admission_queued', 'gauge'],
  ['flora_memory_pool_used_bytes', 'gauge'],
  ['flora_memory_pool_capacity_bytes', 'gauge'],
  ['flora_open_streams', 'gauge'],
  ['flora_index_builds_pending', 'gauge'],
  ['flora_query_log_records_total', 'counter'],
  ['flora_query_log_buffered_bytes', 'gauge'],
  ['flora_store_size_bytes', 'gauge'],
  ['flora_commit_duration_seconds', 'histogram'],
  ['process_resident_memory_bytes', 'gauge'],
  ['process_cpu_seconds_total', 'counter'],
  ['nodejs_eventloop_lag_seconds', 'gauge'],
  ['nodejs_heap_size_used_bytes', 'gauge'],
];

const v4 = (http2 = false) =>
  httpRequest(flora.url, { method: 'POST', headers: { authorization: `Bearer ${ROOT_SECRET}` }, body: '{"add":[1,2]}', http2 });
const v10 = () =>
  httpRequest(flora.url, { method: 'POST', path: '/query/1', headers: { authorization: `Bearer ${ROOT_SECRET}`, 'content-type': 'application/json' }, body: '{"query":"1 + 1"}' });

test('the --metrics-listen address serves every family without a secret, and only /metrics and /healthz', async () => {
  const s = await scrape();
  for (const [name, type] of FAMILIES) assert.equal(s.types.get(name), type, `family ${name}`);
  assert.equal(value(s, 'flora_workers'), Number(process.env.FLORA_TEST_WORKERS ?? 1));
  assert.ok(value(s, 'flora_store_size_bytes') > 0);
  assert.ok(value(s, 'flora_memory_pool_capacity_bytes') > 0);
  assert.equal(value(s, 'flora_open_streams', { protocol: 'v4' }), 0);
  assert.equal(value(s, 'flora_index_builds_pending'), 0);
  assert.equal((await httpRequest(metricsUrl, { path: '/healthz' })).status, 200);
  const q = await httpRequest(metricsUrl, { method: 'POST', headers: { authorization: `Bearer ${ROOT_SECRET}` }, body: '{"add":[1,2]}' });
  assert.equal(q.status, 404);
});

test('requests move the counters and histograms of their route, on both protocols and both HTTP versions, added up over the tier', async () => {
  const before = await scrape();
  const n = 6;
  for (let i = 0; i < n; i++) {
    assert.equal((await v4(false)).status, 200);
    assert.equal((await v4(true)).status, 200);
    assert.equal((await v10()).status, 200);
  }
  assert.equal((await httpRequest(flora.url, { path: '/no/such/path/42' })).status, 404);
  const after = await scrape();
  const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
  assert.equal(delta('flora_http_requests_total', { route: '/', status: '200' }), 2 * n);
  assert.equal(delta('flora_http_requests_total', { route: '/query/1', status: '200' }), n);
  // A path no route takes is counted under one name, never its own.
  assert.equal(delta('flora_http_requests_total', { route: 'unmatched', status: '404' }), 1);
  assert.ok(!after.text.includes('/no/such/path'));
  assert.equal(delta('flora_http_request_duration_seconds_count', { route: '/' }), 2 * n);
  assert.equal(delta('flora_http_request_duration_seconds_bucket', { route: '/query/1', le: '+Inf' }), n);
  assert.ok(delta('flora_http_request_duration_seconds_sum', { route: '/' }) > 0);
  assert.ok(delta('flora_query_compute_ops_total', { route: '/' }) >= 2 * n);
  assert.ok(delta('flora_query_compute_ops_total', { route: '/query/1' }) >= n);
  // The scrapes themselves are requests too.
  assert.ok(delta('flora_http_requests_total', { route: '/metrics', status: '200' }) >= 1);
});

test('writes show as write ops and commits', async () => {
  const before = await scrape();
  const r = await httpRequest(flora.url, { method: 'POST', headers: { authorization: `Bearer ${ROOT_SECRET}` }, body: JSON.stringify({ create_database: { object: { name: DATABASE } } }) });
  assert.equal(r.status, 201, r.body);
  const after = await scrape();
  assert.ok(value(after, 'flora_query_write_ops_total', { route: '/' }) > value(before, 'flora_query_write_ops_total', { route: '/' }));
  assert.ok(value(after, 'flora_commit_duration_seconds_count') > value(before, 'flora_commit_duration_seconds_count'));
});

test('on the main port: the root secret or an admin key of the top database; no one else', async () => {
  const get = (secret?: string) => httpRequest(flora.url, { path: '/metrics', headers: secret ? { authorization: `Bearer ${secret}` } : {} });
  const none = await get();
  assert.equal(none.status, 401);
  assert.match(none.headers['www-authenticate'] ?? '', /^Bearer/);
  assert.equal((await get('not-a-secret')).status, 401);
  assert.equal((await get(await makeKey(flora, 'server'))).status, 403);
  assert.equal((await get(await makeKey(flora, 'admin', DATABASE))).status, 403);
  for (const secret of [ROOT_SECRET, await makeKey(flora, 'admin')]) {
    const r = await get(secret);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    assert.ok(parse(r.body).types.has('flora_http_requests_total'));
  }
});

test('no secret and no database name in the output', async () => {
  const key = await makeKey(flora, 'server', DATABASE);
  assert.equal((await httpRequest(flora.url, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: '{"add":[1,2]}' })).status, 200);
  const { text } = await scrape();
  for (const word of [ROOT_SECRET, key, DATABASE]) assert.ok(!text.includes(word), `${word} in the metrics`);
  // Route names are the only request-derived label values.
  for (const m of text.matchAll(/route="([^"]*)"/g)) assert.match(m[1], /^(\/[a-z0-9/_*.-]*|unmatched)$/);
});

test('the Grafana dashboard (deploy/grafana/flora.json) reads families the server serves', async () => {
  const dashboard = JSON.parse(readFileSync(path.join(ROOT, 'deploy', 'grafana', 'flora.json'), 'utf8')) as { panels: { targets: { expr: string }[] }[] };
  const { types } = await scrape();
  const used = new Set<string>();
  for (const p of dashboard.panels) for (const t of p.targets) for (const [name] of t.expr.matchAll(/\b(?:flora|process|nodejs)_[a-z0-9_]+/g)) used.add(name);
  assert.ok(used.size >= 15);
  for (const name of used) assert.ok(types.has(name) || types.has(name.replace(/_bucket$/, '')), `the dashboard reads ${name}, which the server does not serve`);
});

test('a tier whose worker does not answer: the scrape fails with 503 rather than count part of the tier as the whole', async () => {
  // The second worker never answers the supervisor's metrics requests (a test switch; a worker
  // that is stopped would also hold up the store's writer lock whenever it was stopped in a commit).
  const tier = await startFlora({ args: ['--workers', '2'], env: { FLORA_TEST_METRICS_SILENT_WORKER: '2' } });
  try {
    assert.equal(workerPids(tier).length, 2, tier.stderr());
    // Whichever worker takes the scrape, the supervisor waits for both (prom-client: 5 s).
    const r = await httpRequest(tier.url, { path: '/metrics', headers: { authorization: `Bearer ${tier.secret}` } });
    assert.equal(r.status, 503, r.body);
    assert.equal(r.headers['retry-after'], '1');
    // prom-client's 5 s in the supervisor, or on a machine slow enough the worker's own 7 s.
    assert.match(r.body, /"The metrics could not be gathered: (Operation timed out\.|the tier did not answer in time)"/);
    // The rest of the server serves meanwhile.
    assert.equal((await httpRequest(tier.url, { path: '/ping' })).status, 200);
  } finally {
    await tier.stop();
  }
});
