// The torture suite's crash part: writers create, update and delete documents (three indexes, one
// unique; history on) and note every acknowledged write; the server is killed with SIGKILL at a
// random moment — during an index build, a GraphQL import, a log export, history collection, or
// with the query log's last write torn — and restarted on the same directory. Then every
// acknowledged write must be there with its history, every unanswered transaction all there or not
// at all, every index equal to a scan of its source (now and at a past ts), and the interrupted
// work must finish. Every third trial runs a tier (`--workers 2`) and kills all its processes.
// Last, a store of `restartGb` GB is killed under writes and its restart timed.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { query as q, type Client } from 'faunadb';
import { clients, startFlora, workerPids, type FloraProcess } from '../test/helpers/server';
import { prng } from '../test/helpers/prng';
import { running } from '../test/helpers/procs';
import { startPostgres, type Postgres } from '../test/helpers/postgres';
import type { Part } from './part';
import { percentile } from './load';
import { CrashModel, type Data, type Effect } from './crash/model';
import { COLLECTION, docRef, observe } from './crash/observe';
import { checkAll, checkByKey, checkByOwner, createIndexes } from './crash/indexes';
import { runWriter, type WriterCounts } from './crash/writers';
import * as bg from './crash/background';
import { fillAndRestart } from './crash/bigRestart';

export interface CrashOptions {
  seconds: number;
  clients: number;
  seed: number;
  trials: number;
  /** Kill a tier's supervisor alone in about half of the tier kills (default true). */
  supervisorAlone?: boolean;
  /** Documents written before the first trial (default 1500). */
  preload?: number;
  /** Size of the store whose restart after a kill is timed (GB); 0 skips it. */
  restartGb: number;
  /** Runs on this PostgreSQL instead of LMDB (and crashes it too, in turn). */
  postgres?: Postgres;
  log: (line: string) => void;
}

export interface CrashReport {
  /** The command that runs these trials again (the kill moments are drawn from the seed). */
  rerun: string;
  trials: number;
  tierTrials: number;
  /** Tier kills that took the supervisor alone, leaving its workers to stop by themselves. */
  supervisorKills: number;
  /** How long those workers took to stop (ms). */
  orphansMs: number[];
  acknowledged: number;
  refused: number;
  pendingApplied: number;
  pendingDropped: number;
  lost: string[];
  torn: string[];
  phantom: string[];
  indexMismatches: string[];
  background: Map<bg.Background, number>;
  /** Index builds the kill left half-way, finished after the restart. */
  buildsResumed: number;
  backgroundProblems: string[];
  serverErrors: string[];
  restartMs: number[];
  big?: { gb: number; restartMs: number; firstQueryMs: number; problems: string[] };
}

const ENV = {
  FLORA_LOG_QUERIES: 'true',
  FLORA_LOG_FLUSH_MS: '50',
  // The collector runs all the time, over a collection that keeps no history.
  FLORA_COLLECT_INTERVAL_MS: '200',
  FLORA_HISTORY_GRACE_SECONDS: '0',
  // Index builds pause between batches of 256 documents, so a kill can land half-way.
  FLORA_TEST_BUILD_DELAY_MS: '40',
};

/** Documents written before the first trial by default, so that an index build takes several batches. */
const PRELOAD = 1500;

/** Owners are writer numbers; ids are numeric, in a range of their own per run. */
const ID_BASE = 100_000_000_000n;

export async function runCrash(opts: CrashOptions): Promise<CrashReport> {
  const rand = prng(opts.seed);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'flora-crash-'));
  const model = new CrashModel();
  let nextId = ID_BASE;
  const report: CrashReport = {
    rerun: `npm run torture -- --part ${opts.postgres ? 'crash-pg' : 'crash'} --seed ${opts.seed} --clients ${opts.clients} --seconds ${opts.seconds} --trials ${opts.trials}`,
    trials: 0, tierTrials: 0, supervisorKills: 0, orphansMs: [], acknowledged: 0, refused: 0, pendingApplied: 0, pendingDropped: 0, lost: [], torn: [], phantom: [], indexMismatches: [],
    background: new Map(), buildsResumed: 0, backgroundProblems: [], serverErrors: [], restartMs: [],
  };
  const churn: bg.Churn = { acked: 0, pending: undefined };
  const deadKeys: string[] = [];
  // Writers 0 … clients-1, and the preloaded documents' owner.
  const owners = Array.from({ length: opts.clients + 1 }, (_, i) => i);
  const loadMs = (opts.seconds * 1000) / opts.trials;

  const storage = opts.postgres ? ['--storage', await opts.postgres.newDatabase(`crash_${opts.seed}`)] : [];
  const kinds = opts.postgres ? bg.BACKGROUND_PG : bg.BACKGROUND;
  let srv = await startFlora({ dataDir, env: ENV, args: storage });
  /** Whether `srv` is a tier, whose workers are killed with it. */
  let srvTier = false;
  let drivers = clients(srv.url, srv.secret);
  try {
    await drivers.h1.query(q.Do(q.CreateCollection({ name: COLLECTION, history_days: 30 }), q.CreateCollection({ name: bg.CHURN, history_days: 0 })));
    await drivers.h1.query(createIndexes());
    await preload(drivers.h1, model, opts.clients, opts.preload ?? PRELOAD, () => String(nextId++));

    for (let trial = 0; trial < opts.trials; trial++) {
      const tier = trial % 3 === 2;
      const background = kinds[trial % kinds.length];
      report.background.set(background, (report.background.get(background) ?? 0) + 1);
      const server = (c: Client): bg.Server => ({ url: srv.url, secret: srv.secret, client: c, dataDir });

      const trialStart = Date.now();
      let kill!: () => void;
      const killed = new Promise<void>((r) => (kill = r));
      const counts: WriterCounts = { sent: 0, acknowledged: 0, refused: 0, serverErrors: [] };
      const writers = owners.slice(0, opts.clients).map((owner) =>
        runWriter({
          client: owner % 2 ? drivers.h1 : drivers.h2, model, owner, rand: prng(Math.floor(rand() * 2 ** 31)),
          nextId: () => String(nextId++), txPrefix: `t${trial}`, killed, counts,
        }),
      );
      const churning = bg.runChurn(server(drivers.h1), churn, killed);

      // The background work starts part-way and the kill lands soon after, while it runs.
      const before = loadMs * (0.3 + 0.7 * rand());
      await delay(before);
      let exportId: Promise<string | undefined> = Promise.resolve(undefined);
      // The build's batches are slowed so that the kill lands between them.
      if (background === 'index-build') await bg.startIndexBuild(server(drivers.h1), trial);
      if (background === 'graphql-import') void bg.startGraphqlImport(server(drivers.h1));
      if (background === 'log-export') exportId = bg.startLogExport(server(drivers.h1));
      await delay(background === 'log-export' ? 0 : rand() * (background === 'index-build' ? 400 : 150));
      if (background === 'log-export') await exportId;

      kill();
      const supervisorOnly = srvTier && rand() < 0.5 && opts.supervisorAlone !== false;
      if (supervisorOnly) report.supervisorKills++;
      const [orphansMs] = await Promise.all([killAll(srv, srvTier, supervisorOnly), background === 'postgres-crash' && opts.postgres!.crash()]);
      if (orphansMs !== undefined) {
        report.orphansMs.push(orphansMs);
        if (orphansMs >= ORPHANS_MS) report.serverErrors.push(`trial ${trial}: workers of the killed supervisor still ran after ${ORPHANS_MS / 1000} s`);
      }
      if (background === 'postgres-crash') await opts.postgres!.resume();
      await Promise.all([...writers, churning]);
      await drivers.close();
      report.acknowledged += counts.acknowledged;
      report.refused += counts.refused;
      report.serverErrors.push(...counts.serverErrors.map((e) => `trial ${trial}: ${e}`));
      if (background === 'torn-log') bg.tearQueryLog(dataDir, rand);

      const started = Date.now();
      const loaded = started - trialStart;
      srv = await startFlora({ dataDir, env: ENV, args: [...storage, ...(tier ? ['--workers', '2'] : [])] });
      srvTier = tier;
      report.restartMs.push(Date.now() - started);
      report.trials++;
      if (tier) report.tierTrials++;
      drivers = clients(srv.url, srv.secret);
      const c = drivers.h1;

      // Settle the unanswered transactions and compare everything acknowledged.
      const withEvents = new Set([...model.touched, ...sample(rand, model.ids(), 100)]);
      const observed = await observe(c, [...withEvents, ...model.pendingIds()]);
      const verdict = model.settle(observed, withEvents);
      const tag = (xs: string[]) => xs.map((x) => `trial ${trial} (${background}${tier ? ', tier' : ''}): ${x}`);
      report.lost.push(...tag(verdict.lost));
      report.torn.push(...tag(verdict.torn));
      report.phantom.push(...tag(verdict.phantom));
      report.pendingApplied += verdict.appliedPending;
      report.pendingDropped += verdict.droppedPending;

      const docs = new Map<string, Data>();
      for (const [id, o] of observed) if (o.data) docs.set(id, o.data);
      for (const id of withEvents) {
        const events = observed.get(id)?.events ?? [];
        if (!docs.has(id) && events.length) deadKeys.push(`k${id}`);
      }
      const touchedDocs = new Map([...docs].filter(([id]) => withEvents.has(id)));
      const tss = model.timestamps();
      const past = tss.length ? tss[Math.floor(rand() * tss.length)] : undefined;
      report.indexMismatches.push(
        ...tag([
          ...(await checkAll(c, docs)),
          ...(await checkByOwner(c, docs, owners)),
          ...(await checkByKey(c, touchedDocs, deadKeys.slice(-200))),
          ...(past === undefined ? [] : await checkAll(c, model.stateAt(past), past)),
        ]),
      );

      const s = server(c);
      const problems: string[] = [...(await bg.finishChurn(s, churn))];
      if (background === 'index-build') {
        const build = await bg.finishIndexBuild(s, trial, docs);
        problems.push(...build.problems);
        if (build.resumed) report.buildsResumed++;
      }
      if (background === 'graphql-import') problems.push(...(await bg.finishGraphqlImport(s)));
      if (background === 'log-export') problems.push(...(await bg.finishLogExport(s, await exportId)));
      if (background === 'torn-log') problems.push(...(await bg.checkTornLog(s)));
      report.backgroundProblems.push(...tag(problems));

      const bad = verdict.lost.length + verdict.torn.length + verdict.phantom.length + problems.length;
      opts.log(`  trial ${trial + 1}/${opts.trials} (${background}${tier ? ', 2 workers' : ''}): ${counts.acknowledged} acknowledged, ${docs.size} documents, load ${loaded} ms, restart ${report.restartMs.at(-1)} ms, checks ${Date.now() - started - report.restartMs.at(-1)!} ms${bad ? `, ${bad} PROBLEMS` : ''}`);
    }

    // Last, everything at once: every document's history and every key of the unique index.
    const c = drivers.h1;
    const all = model.ids();
    const observed = await observe(c, all);
    const verdict = model.settle(observed, new Set(all));
    report.lost.push(...verdict.lost.map((x) => `final: ${x}`));
    report.phantom.push(...verdict.phantom.map((x) => `final: ${x}`));
    const docs = new Map<string, Data>();
    for (const [id, o] of observed) if (o.data) docs.set(id, o.data);
    report.indexMismatches.push(...(await checkByKey(c, docs, deadKeys)).map((x) => `final: ${x}`));
  } finally {
    await drivers.close();
    await killAll(srv, srvTier);
    await rm(dataDir, { recursive: true, force: true });
  }

  if (opts.restartGb > 0)
    report.big = await fillAndRestart(opts.restartGb, opts.seed, opts.log).catch((e: unknown) => ({
      gb: opts.restartGb, restartMs: 0, firstQueryMs: 0, problems: [`the ${opts.restartGb} GB restart failed: ${String(e).slice(0, 300)}`],
    }));
  return report;
}

/** `count` documents of an owner no writer has (`owner`), acknowledged like any write. */
async function preload(c: Client, model: CrashModel, owner: number, count: number, nextId: () => string): Promise<void> {
  for (let i = 0; i < count; i += 250) {
    const tx = `preload${i}`;
    const effects: Effect[] = Array.from({ length: Math.min(250, count - i) }, (_, j) => {
      const id = nextId();
      return { id, action: 'create', before: null, after: { key: `k${id}`, owner, n: j, tx } };
    });
    model.begin(tx, effects);
    let ts = '';
    await c.query(q.Do(...effects.map((e) => q.Create(docRef(e.id), { data: e.after }))), { observer: (r) => void (ts = String((r.responseHeaders as Record<string, string>)['x-txn-time'])) });
    model.ack(tx, BigInt(ts));
  }
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sample<T>(rand: () => number, xs: T[], n: number): T[] {
  if (xs.length <= n) return xs;
  return Array.from({ length: n }, () => xs[Math.floor(rand() * xs.length)]);
}

/**
 * SIGKILL of the server, and of a tier's workers first unless `supervisorOnly` (as the OOM killer
 * would pick the supervisor alone: its workers must stop by themselves, before a new server starts).
 */
async function killAll(srv: FloraProcess, tier: boolean, supervisorOnly = false): Promise<number | undefined> {
  const workers = tier ? workerPids(srv) : [];
  if (!supervisorOnly)
    for (const pid of workers) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  await srv.stop('SIGKILL');
  if (!supervisorOnly || workers.length === 0) return undefined;
  // The orphaned workers stop by themselves; how long they take is a figure (a restart waits for them).
  const started = Date.now();
  while (workers.some(running) && Date.now() - started < ORPHANS_MS) await delay(20);
  return Date.now() - started;
}

/** Longest the workers of a killed supervisor may take to stop. */
const ORPHANS_MS = 60_000;


export function summarize(r: CrashReport): { row: Record<string, string>; details: string[]; problems: string[] } {
  const row = {
    trials: `${r.trials} (${r.tierTrials} tier, ${r.supervisorKills} supervisor alone)`,
    acknowledged: String(r.acknowledged),
    'unanswered applied/dropped': `${r.pendingApplied}/${r.pendingDropped}`,
    lost: String(r.lost.length),
    torn: String(r.torn.length),
    phantom: String(r.phantom.length),
    'index mismatches': String(r.indexMismatches.length),
    'background problems': String(r.backgroundProblems.length),
    'builds resumed': String(r.buildsResumed),
    'restart p50/max ms': `${percentile(r.restartMs, 50)}/${percentile(r.restartMs, 100)}`,
    'orphaned workers stop max ms': r.orphansMs.length ? String(percentile(r.orphansMs, 100)) : '-',
    ...(r.big ? { [`restart ${r.big.gb} GB ms`]: `${r.big.restartMs} (first query ${r.big.firstQueryMs})` } : {}),
  };
  const details = [`crash: background work interrupted: ${[...r.background].map(([k, n]) => `${k} ${n}`).join(', ')}; ${r.refused} transactions refused as designed (unique key)`];
  const problems: string[] = [];
  const add = (what: string, xs: string[]) => {
    if (xs.length) problems.push(`${xs.length} ${what}`);
    details.push(...xs.slice(0, 10).map((x) => `${what}: ${x}`));
  };
  add('lost', r.lost);
  add('torn', r.torn);
  add('phantom', r.phantom);
  add('index mismatches', r.indexMismatches);
  add('background problems', r.backgroundProblems);
  add('server errors', r.serverErrors);
  if (r.big) add(`${r.big.gb} GB restart problems`, r.big.problems);
  // A kill lands at a moment drawn from the seed, but what is in flight then depends on timing: the
  // same seed reruns the same trials, the first failing trial is the shortest reproduction known.
  if (problems.length) details.push(`crash: rerun with: ${r.rerun} (failures name their trial)`);
  return { row, details, problems };
}

export const crashPgPart: Part = {
  name: 'crash-pg',
  about: 'the crash part over PostgreSQL (embedded), a fifth of the trials (at least 5), PostgreSQL itself killed in turn',
  async run(opts) {
    const postgres = await startPostgres();
    try {
      const trials = Math.max(5, Math.ceil((opts.trials ?? 50) / 5));
      const r = await runCrash({ ...opts, seconds: Math.max(5, Math.ceil(opts.seconds / 5)), trials, restartGb: 0, postgres });
      return summarize(r);
    } finally {
      await postgres.stop();
    }
  },
};

export const crashPart: Part = {
  name: 'crash',
  about: 'SIGKILL under writes and background work, restart: nothing acknowledged lost, nothing half there, indexes = scans',
  async run(opts) {
    const r = await runCrash({ ...opts, trials: opts.trials ?? 50, restartGb: opts.restartGb ?? 1 });
    return summarize(r);
  },
};
