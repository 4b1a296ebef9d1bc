// The memory every request in flight shares. Requests reserve what they are charged (budget.ts) and
// give it back when they end; a reservation that does not fit is refused (429). Charges are
// estimates, so the pool also watches the heap itself: while the live heap (plus Buffers) is more
// than `capacity` above what the process used when idle, nothing new is reserved, and a full
// garbage collection is run (at most once a second) to find out how much of it is garbage. What
// survives a collection while nothing is reserved is the idle process's own: the new baseline.
// When the process goes idle after such a load, one more collection gives the memory back.

import * as v8 from 'node:v8';
import * as vm from 'node:vm';

/** The heap is looked at this often (ms). */
const WATCH_MS = 50;
/** Collections forced under pressure are at least this far apart (ms). */
const GC_EVERY_MS = 1000;
/** After a load, the process is idle for this long before memory is collected and returned (ms). */
const IDLE_GC_MS = 2000;

/** Node's garbage collector, exposed at run time (the process was not started with --expose-gc). */
const collect: (() => void) | undefined = (() => {
  try {
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
})();

function heapInUse(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/** What the pool watches with: the process's own heap, collector and clock unless a test gives its own. */
export interface HeapWatch {
  readHeap(): number;
  collect: (() => void) | undefined;
  now(): number;
}

const PROCESS: HeapWatch = { readHeap: heapInUse, collect, now: () => Date.now() };

export class MemoryPool {
  private used = 0;
  private heap = 0;
  private baseline = 0;
  private timer: NodeJS.Timeout | undefined;
  private watching: HeapWatch | undefined;
  private lastGc = 0;
  /** The last time the pool had reservations or pressure; an idle collection follows a load. */
  private lastBusy = 0;
  private loaded = false;

  constructor(readonly capacity: number) {}

  get inUse(): number {
    return this.used;
  }

  /** True while the live heap is past what the pool allows. */
  get pressure(): boolean {
    return this.watching !== undefined && this.heap > this.baseline + this.capacity;
  }

  /**
   * Starts watching the heap (the server's pool; pools of tools and tests only count). `every`: how
   * often to look, in ms; 0 = only when look() is called (tests).
   */
  watch(how: HeapWatch = PROCESS, every = WATCH_MS): this {
    if (this.watching) return this;
    this.watching = how;
    this.baseline = how.readHeap();
    this.heap = this.baseline;
    if (every > 0) {
      this.timer = setInterval(() => this.look(), every);
      this.timer.unref();
    }
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.watching = undefined;
  }

  /** One look at the heap: pressure starts or ends, and a collection runs if one is due. */
  look(): void {
    const how = this.watching;
    if (!how) return;
    this.heap = how.readHeap();
    const now = how.now();
    if (this.used > 0 || this.pressure) {
      this.lastBusy = now;
      this.loaded ||= this.heap > this.baseline + this.capacity / 4;
    }
    if (!how.collect) return;
    const idleAfterLoad = this.loaded && this.used === 0 && now - this.lastBusy >= IDLE_GC_MS;
    if ((this.pressure && now - this.lastGc >= GC_EVERY_MS) || idleAfterLoad) {
      how.collect();
      this.lastGc = now;
      this.loaded = false;
      this.heap = how.readHeap();
      // With nothing reserved, what survives a full collection is what the idle process now keeps
      // (a module loaded on first use, a cache): the new baseline, or it would be pressure forever.
      if (this.used === 0) this.baseline = this.heap;
    }
  }

  /** Takes `bytes` or nothing: false when they do not fit, or while the heap is under pressure. */
  tryReserve(bytes: number): boolean {
    if (this.used + bytes > this.capacity) return false;
    // The last look may be up to WATCH_MS old, and what it saw may since have been collected (a
    // refused large body is garbage at once): look again before refusing.
    if (this.pressure) this.look();
    if (this.pressure) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

/** The pool of a process that sets none (unit tests, tools): effectively unbounded. */
export const UNBOUNDED_POOL = new MemoryPool(Number.MAX_SAFE_INTEGER);
