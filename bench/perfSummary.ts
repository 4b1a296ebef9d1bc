// `perf script -F comm,pid,tid,ip,sym,dso -i perf.data | node dist/bench/perfSummary.js [--top 30]`
// Where a Flora process's CPU goes, from a Linux `perf record -g` of it (Node run with
// `--perf-basic-prof-only-functions`, so JIT frames carry JS names). Unlike V8's own profiler,
// perf samples CPU time, not wall time: a process waiting for a core shows nothing, which is what
// makes shares comparable on a shared machine. Prints:
// - the share of samples per area: the innermost JS frame's folder (src/server, src/storage, …,
//   Node's own modules by name), with native code below it counted there; samples with no JS
//   frame on the main thread (the HTTP parser, libuv, GC on the main thread); other threads
//   (V8's parallel GC and compiler, libuv's pool);
// - the top functions by that measure.
// How bench/RESULTS.md's profile tables were made:
//   node --perf-basic-prof-only-functions bin/flora.js start --workers 1 … &   (load it, e.g. wrk)
//   perf record -F 1999 -g -p <pid> -o perf.data -- sleep 6

import { createInterface } from 'node:readline';

interface Sample {
  mainThread: boolean;
  /** Symbols, innermost first. */
  frames: string[];
}

async function* samples(): AsyncGenerator<Sample> {
  let current: Sample | undefined;
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === '') {
      if (current) yield current;
      current = undefined;
      continue;
    }
    if (!line.startsWith('\t') && !line.startsWith(' ')) {
      const ids = /\s(\d+)\/(\d+)\s*$/.exec(line) ?? /\s(\d+)\/(\d+)\s/.exec(line);
      current = { mainThread: ids !== null && ids[1] === ids[2], frames: [] };
      continue;
    }
    // "\t<addr> <symbol> (<dso>)"
    const m = /^\s*[0-9a-f]+\s+(.*?)\s+\(([^)]*)\)\s*$/.exec(line);
    if (current && m) current.frames.push(m[1]);
  }
  if (current) yield current;
}

/** `JS:*name file:line:col` → { name, where }, for JIT frames only. */
function jsFrame(sym: string): { name: string; where: string } | undefined {
  if (!sym.startsWith('JS:')) return undefined;
  const m = /^JS:[*~^]?(\S*)\s+(\S+)$/.exec(sym);
  if (!m) return { name: sym.slice(3), where: '' };
  return { name: m[1] || '(anonymous)', where: m[2].includes('/node_modules/') ? m[2].replace(/^.*\/node_modules\//, '') : m[2].replace(/^.*\/dist\//, '') };
}

function area(where: string): string {
  const src = /^(src\/[a-z]+|bench|test|torture)\//.exec(where);
  if (src) return src[1];
  const node = /^node:(?:internal\/)?(?:[a-z_]+\/)*([a-z_]+)/.exec(where);
  if (node) return `node:${node[1]}`;
  const pkg = /^(@[^/]+\/[^/]+|[^/:]+)\//.exec(where);
  return pkg ? `package ${pkg[1]}` : 'other JS';
}

async function main(): Promise<void> {
  const topIndex = process.argv.indexOf('--top');
  const top = topIndex >= 0 ? Number(process.argv[topIndex + 1]) : 30;
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for await (const s of samples()) {
    total++;
    if (!s.mainThread) {
      add(areas, 'other threads (V8 GC and compiler, libuv)');
      continue;
    }
    const js = s.frames.map(jsFrame).find((f) => f !== undefined);
    if (!js) {
      const gc = s.frames.some((f) => /Scaveng|MarkCompact|Heap::CollectGarbage/.test(f));
      add(areas, gc ? 'main thread, no JS frame: GC' : 'main thread, no JS frame: native (HTTP parser, libuv, …)');
      continue;
    }
    add(areas, area(js.where));
    add(functions, `${js.name} ${js.where}`);
  }
  if (total === 0) throw new Error('no samples on stdin (perf script -F comm,pid,tid,ip,sym,dso)');
  const print = (title: string, m: Map<string, number>, n: number) => {
    console.log(`\n${title}`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`);
  };
  console.log(`${total} samples`);
  print('by area (innermost JS frame; native code below it counts there)', areas, 40);
  print(`top ${top} functions (same measure)`, functions, top);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
