// Watches /ping while an attack runs: every ping slower than PROMPT_PING_MS is a client the attack
// made wait. A probe pings every 50 ms and never overlaps itself, so a held event loop shows as one
// long ping.

import { PingProbe } from '../probes';
import { PROMPT_PING_MS } from './attack';

export interface PingReport {
  pings: number;
  maxMs: number;
  p99Ms: number;
  /** Pings over PROMPT_PING_MS, plus pings that failed. */
  slow: number;
}

/** Runs `work` while pinging `url`; resolves with the work's value and what the pings saw. */
export async function whilePinging<T>(url: string, work: () => Promise<T>): Promise<{ value: T; ping: PingReport }> {
  const probe = new PingProbe(url);
  probe.start();
  try {
    const value = await work();
    // A ping the work held up is answered only now: wait for the next answer so that it is counted.
    const seen = probe.latencies.length + probe.failures;
    const until = Date.now() + 30_000;
    while (probe.latencies.length + probe.failures === seen && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    return { value, ping: report(probe) };
  } finally {
    probe.stop();
  }
}

function report(probe: PingProbe): PingReport {
  const slow = probe.latencies.filter((ms) => ms > PROMPT_PING_MS).length + probe.failures;
  return { pings: probe.latencies.length, maxMs: probe.percentile(100), p99Ms: probe.percentile(99), slow };
}

/** The figures a ping report adds to a result. */
export function pingFigures(p: PingReport): Record<string, string> {
  return { 'ping max ms': p.maxMs.toFixed(0), 'pings > 500 ms': String(p.slow) };
}
