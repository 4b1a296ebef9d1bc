// `node dist/bench/identity.js --baseline <older tree>/dist [--seconds 3] [--rounds 3]`
// Issue 13's check that references by identity cost nothing measurable: the in-process query
// service of this build and of a baseline build (the tree before the change, compiled), measured
// alternately in fresh processes (point Get, Create, Paginate(Match) of 64 over documents that each
// hold a ref), and the ratio current/baseline per operation (medians of the rounds).
//
//   git worktree add /tmp/flora-base dd32241 && ln -s "$PWD/node_modules" /tmp/flora-base/node_modules
//   (cd /tmp/flora-base && npx tsc -p tsconfig.json) && node dist/bench/identity.js --baseline /tmp/flora-base/dist

import { execFileSync } from 'node:child_process';
import path from 'node:path';

type Rates = { get: number; create: number; match: number };

function arg(name: string, fallback?: string): string {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? process.argv[i + 1] : fallback;
  if (v === undefined) throw new Error(`usage: identity.js --baseline <older tree>/dist [--seconds N] [--rounds N]`);
  return v;
}

function measure(root: string, seconds: string): Rates {
  const out = execFileSync(process.execPath, [path.join(__dirname, 'identityWorker.js'), '--root', root, '--seconds', seconds], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as Rates;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function main(): void {
  const baseline = path.resolve(arg('--baseline'));
  const current = path.resolve(__dirname, '..');
  const seconds = arg('--seconds', '3');
  const rounds = Number(arg('--rounds', '3'));
  const runs: { base: Rates[]; cur: Rates[] } = { base: [], cur: [] };
  for (let r = 0; r < rounds; r++) {
    // Alternate which side goes first, so drift hits both alike.
    const order = r % 2 === 0 ? (['base', 'cur'] as const) : (['cur', 'base'] as const);
    for (const side of order) runs[side].push(measure(side === 'base' ? baseline : current, seconds));
    const last = (side: 'base' | 'cur') => runs[side][runs[side].length - 1];
    console.log(`round ${r + 1}: baseline ${fmt(last('base'))} | current ${fmt(last('cur'))}`);
  }
  for (const op of ['get', 'create', 'match'] as const) {
    const b = median(runs.base.map((x) => x[op]));
    const c = median(runs.cur.map((x) => x[op]));
    console.log(`${op.padEnd(6)} baseline ${b.toFixed(0)}/s  current ${c.toFixed(0)}/s  ratio ${(c / b).toFixed(2)}`);
  }
}

function fmt(r: Rates): string {
  return `Get ${r.get.toFixed(0)}/s, Create ${r.create.toFixed(0)}/s, Match ${r.match.toFixed(0)}/s`;
}

main();
