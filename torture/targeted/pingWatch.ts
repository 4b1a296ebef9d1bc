// Watches /ping while an attack runs: every ping slower than the limit is a client the attack made
// wait. A probe pings every 50 ms and never overlaps itself, so a held event loop shows as one long
// ping. The probe runs on a thread of its own: the attack's client, busy on this thread, must not
// delay the pings it is judged by.

import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { PingProbe } from '../probes';
import { PROMPT_PING_MS, type TargetedOptions } from './attack';

export interface PingReport {
  pings: number;
  maxMs: number;
  p99Ms: number;
  /** Pings over the limit, plus pings that failed. */
  slow: number;
  /** The limit they were judged by (ms). */
  limitMs: number;
}

/**
 * How slow a ping may be: PROMPT_PING_MS in the torture suite; twice that in npm test, whose files run
 * two at a time on a machine that may have two cores (still far below the seconds an attack held).
 */
export function promptPingMs(size: TargetedOptions['size'] = 'torture'): number {
  return size === 'test' ? 2 * PROMPT_PING_MS : PROMPT_PING_MS;
}

interface Probed {
  latencies: number[];
  failures: number;
}

/** Runs `work` while pinging `url` from a probe thread; resolves with the work's value and what the pings saw. */
export async function whilePinging<T>(url: string, work: () => Promise<T>, size?: TargetedOptions['size']): Promise<{ value: T; ping: PingReport }> {
  const probe = new Worker(__filename, { workerData: { url } });
  const probed = new Promise<Probed>((resolve, reject) => {
    probe.once('message', resolve);
    probe.once('error', reject);
  });
  await new Promise<void>((resolve, reject) => {
    probe.once('online', resolve);
    probe.once('error', reject);
  });
  let value: T;
  try {
    value = await work();
  } finally {
    probe.postMessage('stop');
  }
  const seen = await probed;
  await probe.terminate();
  return { value, ping: report(seen, promptPingMs(size)) };
}

function report({ latencies, failures }: Probed, limitMs: number): PingReport {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0);
  const slow = sorted.filter((ms) => ms > limitMs).length + failures;
  return { pings: sorted.length, maxMs: at(100), p99Ms: at(99), slow, limitMs };
}

/** The figures a ping report adds to a result. */
export function pingFigures(p: PingReport): Record<string, string> {
  return { 'ping max ms': p.maxMs.toFixed(0), 'slow pings': String(p.slow), 'slow ping ms': `> ${p.limitMs}` };
}

/** One line for a report's details when pings were slow. */
export function slowPings(p: PingReport, during = ''): string {
  return `${p.slow} ping(s) slower than ${p.limitMs} ms or failed${during ? ` ${during}` : ''} (max ${p.maxMs.toFixed(0)} ms)`;
}

// The probe thread: pings until told to stop, then sends what it saw.
if (!isMainThread && parentPort && (workerData as { url?: string })?.url) {
  const port = parentPort;
  const probe = new PingProbe((workerData as { url: string }).url);
  probe.start();
  port.once('message', async () => {
    // A ping the work held up is answered only now: wait for the next answer so that it is counted.
    const seen = probe.latencies.length + probe.failures;
    const until = Date.now() + 30_000;
    while (probe.latencies.length + probe.failures === seen && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    probe.stop();
    port.postMessage({ latencies: probe.latencies, failures: probe.failures } satisfies Probed);
  });
}
