// Watches /ping while an attack runs: every ping slower than the limit is a client the attack made
// wait. A probe pings every 50 ms and never overlaps itself, so a held event loop shows as one long
// ping. The probe runs on a thread of its own: the attack's client, busy on this thread, must not
// delay the pings it is judged by.

import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { PingProbe } from '../probes';
import type { TargetedOptions } from './attack';

/** A ping answered later than this while an attack runs counts as a violation: another client waited. */
const PROMPT_PING_MS = 500;

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

interface ProbeData {
  url: string;
  limitMs: number;
}

/** Runs `work` while pinging `url` from a probe thread; resolves with the work's value and what the pings saw. */
export async function whilePinging<T>(url: string, work: () => Promise<T>, size?: TargetedOptions['size']): Promise<{ value: T; ping: PingReport }> {
  const probe = new Worker(__filename, { workerData: { url, limitMs: promptPingMs(size) } satisfies ProbeData });
  const reported = new Promise<PingReport>((resolve, reject) => {
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
  const ping = await reported;
  await probe.terminate();
  return { value, ping };
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
if (!isMainThread && parentPort && (workerData as Partial<ProbeData>)?.url) {
  const port = parentPort;
  const { url, limitMs } = workerData as ProbeData;
  const probe = new PingProbe(url);
  probe.start();
  port.once('message', async () => {
    // A ping the work held up is answered only now: wait for the next answer so that it is counted.
    const seen = probe.latencies.length + probe.failures;
    const until = Date.now() + 30_000;
    while (probe.latencies.length + probe.failures === seen && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    probe.stop();
    const slow = probe.latencies.filter((ms) => ms > limitMs).length + probe.failures;
    port.postMessage({ pings: probe.latencies.length, maxMs: probe.percentile(100), p99Ms: probe.percentile(99), slow, limitMs } satisfies PingReport);
  });
}
