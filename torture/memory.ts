// A process's memory as /proc tells it: all resident pages (VmRSS), and the anonymous ones alone
// (RssAnon: the heap and buffers). LMDB maps its data file, so the pages of documents read or written
// count in VmRSS though they are the kernel's cache: whether memory "came back down" after a load is
// judged on the anonymous part, which the process's own allocations make up.

import { readFileSync } from 'node:fs';

export interface Memory {
  rss: number;
  anon: number;
}

export function memoryOf(pid: number): Memory {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), anon: kb('RssAnon') };
  } catch {
    return { rss: 0, anon: 0 };
  }
}

/** Samples a process's memory every `everyMs`, keeping the peaks. */
export class MemorySampler {
  private timer: NodeJS.Timeout | undefined;
  peak: Memory = { rss: 0, anon: 0 };
  last: Memory = { rss: 0, anon: 0 };

  constructor(private readonly pid: () => number) {}

  start(everyMs = 250): void {
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  sample(): Memory {
    this.last = memoryOf(this.pid());
    this.peak = { rss: Math.max(this.peak.rss, this.last.rss), anon: Math.max(this.peak.anon, this.last.anon) };
    return this.last;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * Memory once the anonymous part is down to `target` bytes, or after `maxMs`. V8 gives its heap back
 * in steps, a minute or more after a load, so a single plateau is not the end of it.
 */
export async function settledMemory(pid: number, target: number, maxMs: number): Promise<Memory> {
  const until = Date.now() + maxMs;
  let now = memoryOf(pid);
  while (now.anon > target && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    now = memoryOf(pid);
  }
  return now;
}
