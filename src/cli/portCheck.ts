// Before `flora start` creates or opens anything: can it listen where it was told? A port in use is
// then said once, with the flag that changes it, and no data directory is left behind; in a tier the
// supervisor says it, not each worker. (Another program can still take the port in between: the
// listen itself reports that, as before.)

import { createServer } from 'node:net';
import type { FloraConfig } from '../fql/api';

interface Listen {
  host: string;
  port: number;
  /** The flag and variable that set the port, and the flag that sets the host. */
  flag: string;
  env: string;
  hostFlag: string;
}

/** The message for the first address of `config` that cannot be listened on, or undefined. */
export async function unlistenable(config: FloraConfig): Promise<string | undefined> {
  const wanted: Listen[] = [{ host: config.host, port: config.port, flag: '--port', env: 'FLORA_PORT', hostFlag: '--host' }];
  if (config.graphqlPort !== undefined) wanted.push({ host: config.host, port: config.graphqlPort, flag: '--graphql-port', env: 'FLORA_GRAPHQL_PORT', hostFlag: '--host' });
  if (config.metricsListen) wanted.push({ ...config.metricsListen, flag: '--metrics-listen', env: 'FLORA_METRICS_LISTEN', hostFlag: '--metrics-listen' });
  for (const w of wanted) {
    if (w.port === 0) continue; // any free port
    const err = await listenError(w.host, w.port);
    if (err === undefined) continue;
    const { code } = err;
    const where = `cannot listen on ${w.host}:${w.port}`;
    const change = `choose another with ${w.flag} (or ${w.env})`;
    if (code === 'EADDRINUSE') return `${where}: the port is in use (another Flora, or another program); ${change}.`;
    if (code === 'EACCES') return `${where}: permission denied (ports below 1024 need privileges); ${change}.`;
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `${where}: ${w.host} is not an address of this machine; change it with ${w.hostFlag}.`;
    return `${where}: ${err.message}`;
  }
  return undefined;
}

/** The error of listening on host:port, or undefined when it can be listened on. */
function listenError(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', resolve);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}
