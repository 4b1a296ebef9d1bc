// `npm run bench -- --v10 [--seconds 4] [--rounds 5] [--docs 10000] [--concurrency 32] [--wrk 0|1]
//   [--cpu-prof DIR]` (or `node dist/bench/v10.js …`)
// Issue 32: a point read in FQL v10 beside the same read in FQL v4, on one Flora process (LMDB) with
// `--docs` documents in a collection made through v4. (1) Through the drivers, both HTTP/2, `--concurrency`
// in flight: v4 `Get(Ref(Collection("bench"), id))` through `faunadb`, v10 fql`bench.byId(${id})` (the
// whole document) through `fauna`; (2) the same two requests over HTTP/1.1 keep-alive from wrk (C,
// little CPU), which leaves the drivers' own cost out. Each part interleaves its two scenarios in
// `--rounds` rounds with a rotating first (the machine is shared and noisy); around every slice the
// server's CPU is read from /proc (bench/procCpu.ts). Reports the rate, server CPU µs per request,
// and v10/v4 per round and as the median. `--cpu-prof DIR` writes a V8 CPU profile of the server for
// every measured slice (bench/probe.ts), named in the output.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client as V10Client, fql } from 'fauna';
import { Client as V4Client, query as q } from 'faunadb';
import { startFlora, type FloraProcess } from '../test/helpers/server';
import { DOCUMENT_DATA } from './ceiling';
import { numberArg, printTable, runMain } from './harness';
import { Measurement } from './load';
import { cpuWindow } from './procCpu';
import { runWrk, wrkScript } from './wrk';

const TARGET_RATIO = 0.9;
const PROBE = path.join(__dirname, 'probe.js');

interface Opts {
  seconds: number;
  rounds: number;
  docs: number;
  concurrency: number;
  wrk: boolean;
  profileDir?: string;
}

/** One measured slice: requests/s, and the server's and this process's CPU µs per request. */
interface SliceFigures {
  rps: number;
  serverUs: number;
  clientUs: number;
  p50Ms: number;
  machine: number;
}

interface Scenario {
  name: string;
  /** Requests completed, and the generator's own measure of the time when it has one. */
  run(seconds: number, m?: Measurement): Promise<{ ops: number; seconds?: number }>;
  slices: SliceFigures[];
}

function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}

const randomId = (docs: number) => String(1 + Math.floor(Math.random() * docs));

async function populate(client: V4Client, docs: number): Promise<void> {
  await client.query(q.CreateCollection({ name: 'bench' }));
  for (let start = 1; start <= docs; start += 1000) {
    const creates = [];
    for (let id = start; id < Math.min(docs + 1, start + 1000); id++) creates.push(q.Create(q.Ref(q.Collection('bench'), String(id)), { data: { ...DOCUMENT_DATA, n: id } }));
    await client.query(q.Do(...creates), { queryTimeout: 600_000 });
  }
}

/** `concurrency` callers repeating `op` for `seconds`; returns how many completed (a failure aborts). */
async function loop(op: () => Promise<unknown>, seconds: number, concurrency: number, m?: Measurement): Promise<{ ops: number }> {
  const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  let ops = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (process.hrtime.bigint() < deadline) {
        const t0 = process.hrtime.bigint();
        await op();
        m?.latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        ops++;
      }
    }),
  );
  return { ops };
}

/** Signals the server, whose bench/probe.ts starts or (stop) stops its profiler; returns the file written. */
async function toggleProfile(flora: FloraProcess, dir: string, stop: boolean): Promise<string | undefined> {
  const pid = flora.proc.pid!;
  const profiles = () => readdirSync(dir).filter((f) => f.startsWith(`${pid}-`) && f.endsWith('.cpuprofile'));
  const before = profiles().length;
  process.kill(pid, 'SIGWINCH');
  if (!stop) return undefined;
  for (let i = 0; i < 300 && profiles().length === before; i++) await sleep(100);
  return path.join(dir, `${pid}-${before + 1}.cpuprofile`);
}

/** Interleaved rounds over the scenarios (rotating which goes first), a line per slice. */
async function rounds(part: string, scenarios: Scenario[], opts: Opts, flora: FloraProcess, warmup: (round: number) => number): Promise<void> {
  for (let round = 0; round < opts.rounds; round++) {
    for (let i = 0; i < scenarios.length; i++) {
      const s = scenarios[(i + round) % scenarios.length];
      const w = warmup(round);
      if (w > 0) await s.run(w);
      const profiling = opts.profileDir !== undefined;
      if (profiling) await toggleProfile(flora, opts.profileDir!, false);
      const m = new Measurement();
      const end = cpuWindow({ server: flora.proc.pid! });
      const t0 = process.hrtime.bigint();
      const r = await s.run(opts.seconds, m);
      const ops = r.ops;
      const secs = r.seconds ?? Number(process.hrtime.bigint() - t0) / 1e9;
      const c = end();
      const profile = profiling ? await toggleProfile(flora, opts.profileDir!, true) : undefined;
      m.seconds = secs;
      const f: SliceFigures = {
        rps: ops / secs,
        serverUs: (c.trees.server / ops) * 1e6,
        clientUs: (c.self / ops) * 1e6,
        p50Ms: m.latencies.length > 0 ? m.result().p50Ms : NaN,
        machine: c.machine / c.wall,
      };
      s.slices.push(f);
      console.log(
        `round ${round + 1} ${part}: ${s.name.padEnd(28)} ${f.rps.toFixed(0).padStart(6)} req/s, server ${f.serverUs.toFixed(0)} µs/req, ` +
          `${part === 'driver' ? `driver ${f.clientUs.toFixed(0)} µs/req, p50 ${f.p50Ms.toFixed(2)} ms, ` : ''}machine ${f.machine.toFixed(2)} busy, load ${loadavg()[0].toFixed(2)}` +
          (profile ? `, profile ${profile}` : ''),
      );
    }
  }
}

function report(title: string, v4: Scenario, v10: Scenario): void {
  const ratios = v4.slices.map((s, i) => v10.slices[i].rps / s.rps);
  const cpuRatios = v4.slices.map((s, i) => v10.slices[i].serverUs / s.serverUs);
  const ratio = median(ratios);
  console.log(`\n### ${title}`);
  printTable(
    ['scenario', 'req/s (median)', 'per round', 'server µs/req (median)', 'per round'],
    [v4, v10].map((s) => [
      s.name,
      median(s.slices.map((x) => x.rps)).toFixed(0),
      s.slices.map((x) => x.rps.toFixed(0)).join(' / '),
      median(s.slices.map((x) => x.serverUs)).toFixed(0),
      s.slices.map((x) => x.serverUs.toFixed(0)).join(' / '),
    ]),
  );
  console.log(
    `v10/v4 rate: **${ratio.toFixed(2)}** (${ratios.map((r) => r.toFixed(2)).join(' / ')}), target >= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'}; ` +
      `v10/v4 server CPU per request: ${median(cpuRatios).toFixed(2)} (${cpuRatios.map((r) => r.toFixed(2)).join(' / ')})`,
  );
}

async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const prof = stringArg('--cpu-prof');
  const opts: Opts = {
    seconds: numberArg('--seconds', 4),
    rounds: numberArg('--rounds', 5),
    docs: numberArg('--docs', 10_000),
    concurrency: numberArg('--concurrency', 32),
    wrk: (argv.includes('--wrk') ? Number(stringArg('--wrk')) : 1) !== 0,
    profileDir: prof ? path.resolve(prof) : undefined,
  };
  if (opts.wrk) {
    try {
      execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    } catch (e) {
      // wrk prints its version and exits 1; only a missing binary means no wrk part.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        console.log('v10: wrk is not installed (Debian: apt-get install -y wrk): no HTTP/1.1 part');
        opts.wrk = false;
      }
    }
  }
  process.env.FLORA_NO_BUILD_CHECK = '1';
  delete process.env.FLORA_TEST_PG_URL;
  console.log(
    `v10: node ${process.version}, nproc ${execFileSync('nproc', { encoding: 'utf8' }).trim()}, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ` +
      `${opts.rounds} interleaved rounds of ${opts.seconds}s, ${opts.concurrency} in flight, ${opts.docs} documents`,
  );
  if (opts.profileDir) mkdirSync(opts.profileDir, { recursive: true });
  const env = opts.profileDir ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${PROBE}`.trim(), FLORA_BENCH_CPU_PROFILE: opts.profileDir } : undefined;
  const tmp = mkdtempSync(path.join(tmpdir(), 'flora-v10-'));
  const flora = await startFlora({ env });
  const url = new URL(flora.url);
  const v4 = new V4Client({ secret: flora.secret, domain: url.hostname, port: Number(url.port), scheme: 'http' });
  const v10 = new V10Client({ secret: flora.secret, endpoint: url, max_attempts: 1, http2_max_streams: opts.concurrency });
  try {
    const t0 = Date.now();
    await populate(v4, opts.docs);
    console.log(`v10: created ${opts.docs} documents in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
    // Both answers checked once: the same document, whole.
    const one = (await v10.query(fql`bench.byId("1")`)).data as { id: string; n: number };
    const oneV4 = (await v4.query(q.Get(q.Ref(q.Collection('bench'), '1')))) as { data: { n: number } };
    if (one.id !== '1' || one.n !== 1 || oneV4.data.n !== 1) throw new Error(`unexpected answers: ${JSON.stringify(one)} ${JSON.stringify(oneV4)}`);

    const driver: Scenario[] = [
      { name: 'v4 Get (faunadb)', run: (s, m) => loop(() => v4.query(q.Get(q.Ref(q.Collection('bench'), randomId(opts.docs)))), s, opts.concurrency, m), slices: [] },
      { name: 'v10 bench.byId (fauna)', run: (s, m) => loop(() => v10.query(fql`bench.byId(${randomId(opts.docs)})`), s, opts.concurrency, m), slices: [] },
    ];
    console.log('\n## Through the drivers (HTTP/2)');
    await rounds('driver', driver, opts, flora, (round) => (round === 0 ? 3 : 0.3));
    report(`Through the drivers, ${opts.concurrency} in flight`, driver[0], driver[1]);

    if (opts.wrk) {
      const wrkTargets: Scenario[] = (['get', 'v10-get'] as const).map((kind) => {
        const script = path.join(tmp, `${kind}.lua`);
        writeFileSync(script, wrkScript(kind));
        return {
          name: kind === 'get' ? 'v4 Get (wrk)' : 'v10 bench.byId (wrk)',
          run: async (s) => {
            const r = await runWrk(flora.url, script, opts.docs, Math.max(1, Math.round(s)), opts.concurrency, 1);
            if (r.bad > 0) throw new Error(`${kind}: ${r.bad} bad answers`);
            return { ops: r.requests, seconds: r.seconds };
          },
          slices: [],
        };
      });
      console.log('\n## HTTP/1.1 keep-alive, wrk');
      await rounds('wrk', wrkTargets, opts, flora, (round) => (round === 0 ? 2 : 0));
      report(`HTTP/1.1 keep-alive from wrk, ${opts.concurrency} connections`, wrkTargets[0], wrkTargets[1]);
    }
    console.log(`\nload average at the end: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  } finally {
    v10.close();
    await v4.close({ force: true });
    await flora.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) runMain(() => main());
export { main };
