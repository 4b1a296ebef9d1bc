// `npm run bench [-- --seconds 10 --rounds 5 --docs 100000 --concurrency 32]`
// (`npm run bench -- --requests …`: per-request cost in process and over HTTP/1.1, bench/requests.ts)
// `npm run bench -- --scale [--help]`: the scale benchmark (bench/scale.ts) instead.
// `npm run bench -- --import [--docs N]`: `flora import` of a generated Fauna export (bench/bulkImport.ts).
// `npm run bench -- --deletes`: pages as documents are deleted past them (bench/deletes.ts).
// `npm run bench -- --dashboard [--loads N]`: the dashboard's first screen in Chromium (bench/dashboard.ts).
// `npm run bench -- --v10 [--seconds 4 --rounds 5 …]`: FQL v10 point reads beside v4's (bench/v10.ts).
// `npm run bench -- --soak [--minutes 60 …]`: the soak benchmark instead (bench/soak.ts says how).
// (a) the ceiling: the official driver's HTTP/2 client against a bare Node http2 server with a fixed
//     document-sized answer; (b) Flora (a real process on a temp dir) with a populated collection:
//     point Get by random ref, and Create. Prints ops/s, p50/p99 and Flora's share of the ceiling.
// This machine is shared and noisy, so the scenarios are interleaved: `--rounds` rounds of
// ceiling → Get → Create, each slice seconds/rounds long, so that drift hits all three alike.

import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { Client, query as q } from 'faunadb';
import { startFlora, type FloraProcess } from '../test/helpers/server';
import { DOCUMENT_DATA } from './ceiling';
import { measure, Measurement, type LoadOptions, type LoadResult } from './load';
import { printTable } from './harness';

interface Options extends LoadOptions {
  docs: number;
  batch: number;
  rounds: number;
}

const TARGET_GET_RATIO = 0.8; // issue 17 (was 0.5)
const TARGET_CREATE_OPS = 3000;

function parseArgs(argv: string[]): Options {
  const opts: Options = { seconds: 10, warmupSeconds: 2, concurrency: 32, docs: 100_000, batch: 1000, rounds: 5 };
  const names: Record<string, keyof Options> = {
    '--seconds': 'seconds', '--warmup': 'warmupSeconds', '--concurrency': 'concurrency', '--docs': 'docs', '--batch': 'batch',
    '--rounds': 'rounds',
  };
  for (let i = 0; i < argv.length; i++) {
    const key = names[argv[i]];
    const value = Number(argv[i + 1]);
    if (!key || !Number.isFinite(value) || value < 0) {
      throw new Error(`usage: run.js [--seconds N] [--rounds N] [--warmup N] [--concurrency N] [--docs N] [--batch N] (bad '${argv[i]}')`);
    }
    opts[key] = value;
    i++;
  }
  return opts;
}

async function startCeiling(): Promise<{ url: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, [path.join(__dirname, 'ceiling.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.setEncoding('utf8');
    proc.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const m = /Ceiling listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.once('exit', (code) => reject(new Error(`ceiling server exited with ${code}`)));
  });
  return { url, proc };
}

async function populate(client: Client, collection: string, docs: number, batch: number): Promise<void> {
  await client.query(q.CreateCollection({ name: collection }));
  for (let start = 0; start < docs; start += batch) {
    const creates = [];
    for (let id = start; id < Math.min(docs, start + batch); id++) {
      creates.push(q.Create(q.Ref(q.Collection(collection), String(id + 1)), { data: { ...DOCUMENT_DATA, n: id } }));
    }
    await client.query(q.Do(...creates), { queryTimeout: 600_000 });
  }
}

const HEADER = ['scenario', 'ops/s', 'p50 ms', 'p99 ms', 'errors', 'vs ceiling', 'target'];

function row(name: string, r: LoadResult, ratio: string, target: string): string[] {
  return [name, r.opsPerSecond.toFixed(0), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2), String(r.errors), ratio, target];
}


async function main(): Promise<void> {
  if (process.argv.includes('--requests')) return (await import('./requests')).main(process.argv.slice(2).filter((a) => a !== '--requests'));
  if (process.argv.includes('--import')) return (await import('./bulkImport')).main();
  if (process.argv.includes('--dashboard')) return (await import('./dashboard')).main(process.argv.slice(2));
  if (process.argv.includes('--deletes')) return (await import('./deletes')).main(process.argv.slice(2));
  if (process.argv.includes('--scale')) return (await import('./scale')).main(process.argv.slice(2));
  if (process.argv.includes('--v10')) return (await import('./v10')).main(process.argv.slice(2).filter((a) => a !== '--v10'));
  if (process.argv.includes('--soak')) return (await import('./soak')).main(process.argv.slice(2).filter((a) => a !== '--soak'));
  const opts = parseArgs(process.argv.slice(2));
  console.log(
    `bench: ${opts.concurrency} in flight, ${opts.seconds}s measured after ${opts.warmupSeconds}s warm-up, ` +
      `${opts.docs} documents, node ${process.version}`,
  );

  const ceiling = await startCeiling();
  const bare = new Client({ secret: 'unused', endpoint: ceiling.url });
  let flora: FloraProcess | undefined;
  let client: Client | undefined;
  try {
    flora = await startFlora();
    client = new Client({ secret: flora.secret, endpoint: flora.url });
    const t0 = Date.now();
    await populate(client, 'bench', opts.docs, opts.batch);
    console.log(`bench: created ${opts.docs} documents in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
    await client.query(q.CreateCollection({ name: 'bench_create' }));

    const scenarios = [
      { m: new Measurement(), client: bare, next: () => q.Get(q.Ref(q.Collection('bench'), '12345')) },
      { m: new Measurement(), client, next: () => q.Get(q.Ref(q.Collection('bench'), String(1 + Math.floor(Math.random() * opts.docs)))) },
      { m: new Measurement(), client, next: () => q.Create(q.Collection('bench_create'), { data: DOCUMENT_DATA }) },
    ];
    const slice = { ...opts, seconds: opts.seconds / opts.rounds };
    for (let round = 0; round < opts.rounds; round++) {
      for (const s of scenarios) {
        // A full warm-up before a scenario's first slice, a short one (connection re-use) after.
        await measure(s.client, s.next, { ...slice, warmupSeconds: round === 0 ? opts.warmupSeconds : 0.2 }, s.m);
      }
    }
    const [ceilingResult, get, create] = scenarios.map((s) => s.m.result());
    const getRatio = get.opsPerSecond / ceilingResult.opsPerSecond;
    const createRatio = create.opsPerSecond / ceilingResult.opsPerSecond;
    const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
    printTable(HEADER, [
      row('ceiling: bare http2 server', ceilingResult, '1.000', ''),
      row('flora: point Get (random ref)', get, getRatio.toFixed(3),
        `>= ${TARGET_GET_RATIO} of ceiling: ${verdict(getRatio >= TARGET_GET_RATIO)}`),
      row('flora: Create', create, createRatio.toFixed(3),
        `>= ${TARGET_CREATE_OPS}/s: ${verdict(create.opsPerSecond >= TARGET_CREATE_OPS)}`),
    ]);
    for (const [name, r] of [['ceiling', ceilingResult], ['get', get], ['create', create]] as const) {
      if (r.firstError) console.log(`bench: first ${name} error: ${r.firstError}`);
    }
  } finally {
    await bare.close({ force: true });
    await client?.close({ force: true });
    ceiling.proc.kill('SIGTERM');
    if (flora) await flora.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
