// `npm run torture`: evidence under hostile conditions, runnable by anyone. Each part starts real
// Flora processes on temporary data directories and prints one row of the table at the end;
// failures print the seed and the shortest reproduction found. Exit code 1 when any part failed.
//
//   npm run torture -- [--part hostile,crash] [--seconds 60] [--clients 16] [--seed N]

import type { Part } from './part';
import { PARTS } from './parts';

export interface TortureOptions {
  parts: Part[];
  seconds: number;
  clients: number;
  seed: number;
  trials?: number;
  restartGb?: number;
}

const USAGE = `npm run torture -- [--part NAME[,NAME…]] [--seconds 60] [--clients 16] [--seed N] [--trials 50] [--restart-gb 1]\n\nparts:\n${PARTS.map((p) => `  ${p.name.padEnd(10)} ${p.about}`).join('\n')}\n`;

export function parseArgs(argv: readonly string[]): TortureOptions {
  const opts: TortureOptions = { parts: [...PARTS], seconds: 60, clients: 16, seed: Date.now() % 1_000_000 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--help' || argv[i] === '-h') throw new Error(USAGE);
    const [flag, inline] = argv[i].split('=', 2);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--part') {
      opts.parts = value.split(',').map((name) => {
        const part = PARTS.find((p) => p.name === name);
        if (!part) throw new Error(`unknown part '${name}' (parts: ${PARTS.map((p) => p.name).join(', ')})`);
        return part;
      });
    } else if (flag === '--seconds' || flag === '--clients' || flag === '--seed' || flag === '--trials') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < (flag === '--seed' ? 0 : 1)) throw new Error(`${flag} must be a positive integer`);
      opts[flag.slice(2) as 'seconds' | 'clients' | 'seed' | 'trials'] = n;
    } else if (flag === '--restart-gb') {
      const n = Number(value);
      if (!Number.isFinite(n) || n < 0) throw new Error(`${flag} must be a number of GB (0 skips the measure)`);
      opts.restartGb = n;
    } else throw new Error(`unknown option '${flag}'`);
  }
  return opts;
}

function table(rows: Record<string, string>[]): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padEnd(width[i])).join(' | ') + ' |';
  return [line(cols), line(width.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => r[c] ?? '')))].join('\n');
}

async function main(): Promise<number> {
  let opts: TortureOptions;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    const message = (e as Error).message;
    if (message === USAGE) {
      process.stdout.write(USAGE);
      return 0;
    }
    process.stderr.write(`torture: ${message}\n`);
    return 2;
  }
  const rows: Record<string, string>[] = [];
  const details: string[] = [];
  let failed = false;
  for (const part of opts.parts) {
    process.stdout.write(`== ${part.name}\n`);
    const log = (l: string) => process.stdout.write(l + '\n');
    const r = await part.run({ seconds: opts.seconds, clients: opts.clients, seed: opts.seed, trials: opts.trials, restartGb: opts.restartGb, log });
    rows.push({ part: part.name, ...r.row, verdict: r.problems.length ? 'FAIL' : 'pass' });
    details.push(...r.details, ...r.problems.map((p) => `FAIL ${part.name} (seed ${opts.seed}): ${p}`));
    failed ||= r.problems.length > 0;
  }
  process.stdout.write('\n' + table(rows) + '\n\n' + details.join('\n') + '\n');
  return failed ? 1 : 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`torture: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
