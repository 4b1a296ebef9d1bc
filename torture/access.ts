// The torture suite's access-control part: one server holding a secret of every kind, and every cell
// of the matrix in accessMatrix.ts checked against it — FQL cells through the official driver and as
// raw HTTP, the other endpoints as raw HTTP — by `clients` workers in a seeded order, pass after pass
// for `seconds` (at least one). Then the leak checks: the answers, the query log, a log export, the
// server's output, and the fields of keys, tokens and credentials.

import faunadb, { query as q } from 'faunadb';
import { ClientPool, startFlora, type FloraProcess } from '../test/helpers/server';
import { exportLogs, storedLog } from '../test/helpers/logs';
import { prng } from '../test/helpers/prng';
import { COLUMNS, SUBJECTS, expected, verdict, type Operation, type Outcome, type Verdict } from './accessMatrix';
import { setUpAccess, type AccessSetup, type World } from './accessWorld';
import { viaDriver, viaEndpoint, viaHttp, type CellInput, type Exchange } from './accessOps';
import { answerLeaks, found, shapeLeaks, storedHashes, type Needles } from './accessLeaks';
import { runRevocations, type RevocationCase } from './accessRevocation';
import type { Part, PartOptions, PartResult } from './part';
import { runTargeted, withTargeted } from './targeted/run';

type Ref = faunadb.values.Ref;

export interface Mismatch {
  subject: string;
  op: string;
  transport: string;
  want: Outcome;
  got: Outcome;
  verdict: Verdict;
  /** The request, without its secret: with the seed, the shortest reproduction there is. */
  request: string;
}

export interface AccessReport {
  seed: number;
  passes: number;
  cells: number;
  mismatches: Mismatch[];
  leaks: string[];
  /** Secrets revoked after use, on a tier of processes (accessRevocation.ts). */
  revocations: RevocationCase[];
  revocationProblems: string[];
}

interface Cell {
  op: Operation;
  subject: string;
  transport: 'driver' | 'http';
}

/** Every cell of the matrix: FQL ones over both transports, the others once. */
function allCells(last: boolean): Cell[] {
  const out: Cell[] = [];
  for (const op of COLUMNS.filter((c) => Boolean(c.last) === last))
    for (const s of SUBJECTS) {
      out.push({ op, subject: s.id, transport: op.via === 'fql' ? 'driver' : 'http' });
      if (op.via === 'fql' && !op.last) out.push({ op, subject: s.id, transport: 'http' });
    }
  return out;
}

function shuffle<T>(items: T[], rand: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** A fixed, distinctive root secret, so that the leak checks can look for it. */
const rootSecretFor = (seed: number) => `Flora-Root-${seed}-k7Qz`;
const PASSWORD = 'Pa55-w0rd-x9Vb';

export async function runAccess(opts: PartOptions): Promise<AccessReport> {
  const srv: FloraProcess = await startFlora({ env: { FLORA_ROOT_SECRET: rootSecretFor(opts.seed), FLORA_LOG_FLUSH_MS: '20' } });
  const pool = new ClientPool(srv.url);
  const report: AccessReport = { seed: opts.seed, passes: 0, cells: 0, mismatches: [], leaks: [], revocations: [], revocationProblems: [] };
  const started = new Date(Date.now() - 1000).toISOString();
  try {
    const setup = await setUpAccess(srv, pool, PASSWORD);
    opts.log(`server ${srv.url} (pid ${srv.proc.pid}); ${SUBJECTS.length} kinds of secret × ${COLUMNS.length} operations, ${opts.clients} clients, seed ${opts.seed}`);
    const drivers = new Map<string, faunadb.Client>();
    for (const [id, secret] of setup.secrets) drivers.set(id, pool.client(secret ?? ''));
    const admins = new Map<World, faunadb.Client>([[setup.top, pool.client(srv.secret)], [setup.child, pool.client(setup.secrets.get('child-admin')!)]]);
    const exchanges: Exchange[] = [];
    const rand = prng(opts.seed);
    let names = 0;

    const runCells = async (cells: Cell[]) => {
      // A document of M for each cell that deletes one, made by its database's admin.
      const doomed = new Map<Cell, Ref>();
      for (const [world, admin] of admins) {
        const mine = cells.filter((c) => c.op.id === 'delete' && (setup.worldOf.get(c.subject) ?? setup.top) === world);
        const docs = (await admin.query(mine.map(() => q.Create(q.Collection('things'), { data: { owner: world.M } })))) as { ref: Ref }[];
        mine.forEach((c, i) => doomed.set(c, docs[i].ref));
      }
      const queue = shuffle([...cells], rand);
      const worker = async () => {
        for (let cell = queue.pop(); cell; cell = queue.pop()) {
          const input: CellInput = {
            op: cell.op,
            subject: cell.subject,
            secret: setup.secrets.get(cell.subject),
            world: setup.worldOf.get(cell.subject) ?? setup.top,
            setup,
            fresh: `acc_${opts.seed}_${++names}`,
            doomed: doomed.get(cell) ?? setup.top.mine.ref,
          };
          const r =
            cell.op.via === 'http' ? await viaEndpoint(input, srv.url) : cell.transport === 'driver' ? await viaDriver(input, drivers.get(cell.subject)!) : await viaHttp(input, srv.url);
          // The answers of two passes and the last cells are scanned for leaks: memory stays bounded on long runs.
          if (report.passes < 2 || cell.op.last) exchanges.push(r.exchange);
          report.cells++;
          const want = expected(cell.subject, cell.op.id);
          const v = verdict(want, r.outcome);
          if (v !== 'match') report.mismatches.push({ subject: cell.subject, op: cell.op.id, transport: cell.transport, want, got: r.outcome, verdict: v, request: r.exchange.request });
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, opts.clients) }, worker));
    };

    const until = Date.now() + opts.seconds * 1000;
    do {
      await runCells(allCells(false));
      report.passes++;
      opts.log(`  pass ${report.passes}: ${report.cells} cells, ${report.mismatches.length} differ`);
    } while (Date.now() < until && report.mismatches.length === 0);
    // Cells that end their secret (Logout) run once, at the end.
    await runCells(allCells(true));

    report.leaks.push(...(await leakChecks(srv, setup, pool, exchanges, report.cells, started)));
  } finally {
    await pool.close();
    await srv.stop('SIGKILL');
  }
  const revoked = await runRevocations(REVOCATION_WORKERS, PASSWORD);
  report.revocations = revoked.cases;
  report.revocationProblems = revoked.problems;
  opts.log(`  revocations on ${REVOCATION_WORKERS} processes: ${revoked.cases.length} kinds, ${revoked.problems.length} problems`);
  return report;
}

/** Processes of the tier the revocation checks run on: every one must refuse a revoked secret. */
const REVOCATION_WORKERS = 2;

async function leakChecks(srv: FloraProcess, setup: AccessSetup, pool: ClientPool, exchanges: Exchange[], cells: number, started: string): Promise<string[]> {
  const root = pool.client(srv.secret);
  const leaks: string[] = [];
  // A fresh token of M: the matrix's own tokens are logged out by now.
  const fresh = (await root.query(q.Login(setup.top.M, { password: setup.password }))) as { secret: string };
  leaks.push(...(await shapeLeaks(srv.url, setup, root, pool.client(fresh.secret), fresh.secret)));
  const top = await storedHashes(root);
  const child = await storedHashes(pool.client(setup.secrets.get('child-admin')!));
  const needles: Needles = {
    secrets: [...setup.allSecrets, fresh.secret],
    password: setup.password,
    hashedPasswords: [...top.hashedPasswords, ...child.hashedPasswords],
    hashedSecrets: [...top.hashedSecrets, ...child.hashedSecrets],
  };
  leaks.push(...answerLeaks(exchanges, needles));
  // Stored and exported text must not hold a secret in any form a request carried it: Basic auth too.
  const stored: Needles = { ...needles, secrets: needles.secrets.flatMap((s) => [s, Buffer.from(`${s}:`).toString('base64')]) };
  // The export covers everything so far, the leak checks' own requests included.
  const { text } = await exportLogs(srv, srv.secret, { region_group: 'us-std', time_start: started, time_end: new Date(Date.now() + 200).toISOString() });
  // Every request of the matrix is in the export, or the scan of it proves nothing.
  const records = text.split('\n').filter((l) => l !== '').length;
  if (records < cells) leaks.push(`the log export holds ${records} records for ${cells} requests`);
  for (const f of found(text, stored)) leaks.push(`log export download holds ${f}`);
  const logs = await storedLog(srv);
  if (!logs.some((l) => l.text.length > 0)) leaks.push('no query log to check');
  for (const log of logs) for (const f of found(log.text, stored)) leaks.push(`query log ${log.where} holds ${f}`);
  for (const f of found(srv.stderr(), stored)) leaks.push(`server output holds ${f}`);
  return leaks;
}

export function summarize(r: AccessReport): { row: Record<string, string>; details: string[] } {
  const count = (v: Verdict) => r.mismatches.filter((m) => m.verdict === v).length;
  const row = {
    seed: String(r.seed),
    passes: String(r.passes),
    'cells checked': String(r.cells),
    'beyond the table': String(count('beyond')),
    'denied against the table': String(count('denied')),
    'other answer': String(count('differs')),
    leaks: String(r.leaks.length),
    'revoked yet answered': `${r.revocations.reduce((n, c) => n + c.accepted, 0)} of ${r.revocations.reduce((n, c) => n + c.requests, 0)}`,
  };
  const details: string[] = [];
  // The same cell over several transports and passes is one finding.
  const seen = new Set<string>();
  for (const m of r.mismatches) {
    const key = `${m.subject}|${m.op}|${m.got}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push(`access ${m.verdict.toUpperCase()} (seed ${r.seed}): ${m.subject} × ${m.op} over ${m.transport}: expected ${m.want}, got ${m.got}`);
    details.push(`  request (with the ${m.subject} secret of torture/accessWorld.ts): ${m.request.slice(0, 600)}`);
  }
  for (const l of r.leaks) details.push(`access LEAK (seed ${r.seed}): ${l}`);
  for (const p of r.revocationProblems) details.push(`access REVOCATION (seed ${r.seed}): ${p}`);
  details.push(`access revocations checked: ${r.revocations.map((c) => c.name).join('; ')}`);
  return { row, details };
}

export function accessProblems(r: AccessReport): string[] {
  const problems: string[] = [];
  const { row } = summarize(r);
  if (row['beyond the table'] !== '0') problems.push(`${row['beyond the table']} cells gave access beyond the table`);
  if (row['denied against the table'] !== '0') problems.push(`${row['denied against the table']} cells were denied against the table`);
  if (row['other answer'] !== '0') problems.push(`${row['other answer']} cells answered otherwise than the table`);
  if (r.leaks.length) problems.push(`${r.leaks.length} leaks of secrets or hashes`);
  problems.push(...r.revocationProblems);
  return problems;
}

export const accessPart: Part = {
  name: 'access',
  about: 'every kind of secret × every operation against the table in accessMatrix.ts; no secret leaks',
  async run(opts): Promise<PartResult> {
    const report = await runAccess(opts);
    const { row, details } = summarize(report);
    const problems = accessProblems(report);
    if (problems.length) details.push(`access: reproduce with npm run torture -- --part access --seed ${report.seed} --seconds 1 --clients 1 (the table is in torture/accessMatrix.ts)`);
    return withTargeted({ row, details, problems }, await runTargeted('access', { size: 'torture', log: opts.log }));
  },
};
