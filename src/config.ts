// Server configuration from command-line flags and environment variables.
// Flags win over the environment, which wins over the defaults. Each setting is declared once in
// SETTINGS so that adding one (log retention, GraphQL port, …) is a single table entry.

import type { FloraConfig } from './fql/api';

/** Invalid configuration: the CLI prints the message and exits with code 2. */
export class ConfigError extends Error {
  readonly exitCode = 2;
}

interface Setting<K extends keyof FloraConfig> {
  key: K;
  flag: string;
  env: string;
  defaultValue: FloraConfig[K];
  help: string;
  parse(raw: string, source: string): FloraConfig[K];
}

function setting<K extends keyof FloraConfig>(s: Setting<K>): Setting<K> {
  return s;
}

function parsePort(raw: string, source: string): number {
  // Strict digits only: Number('') and Number(' 1e3') would otherwise slip through.
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError(`Invalid port '${raw}' (from ${source}): expected an integer from 0 to 65535.`);
  }
  return Number(raw);
}

function nonEmpty(what: string) {
  return (raw: string, source: string): string => {
    if (raw.trim() === '') throw new ConfigError(`Invalid ${what} (from ${source}): must not be empty.`);
    return raw;
  };
}

function nonNegativeInteger(what: string, min = 0) {
  return (raw: string, source: string): number => {
    if (!/^\d{1,15}$/.test(raw) || Number(raw) < min)
      throw new ConfigError(`Invalid ${what} '${raw}' (from ${source}): expected an integer of at least ${min}.`);
    return Number(raw);
  };
}

export const SETTINGS = [
  setting({
    key: 'port', flag: '--port', env: 'FLORA_PORT', defaultValue: 8443,
    help: 'TCP port for HTTP/1.1 and HTTP/2 (0 = any free port)', parse: parsePort,
  }),
  setting({
    key: 'host', flag: '--host', env: 'FLORA_HOST', defaultValue: '127.0.0.1',
    help: 'Interface to listen on', parse: nonEmpty('host'),
  }),
  setting({
    key: 'dataDir', flag: '--data-dir', env: 'FLORA_DATA_DIR', defaultValue: './data',
    help: 'Directory holding the database files', parse: nonEmpty('data directory'),
  }),
  setting({
    key: 'rootSecret', flag: '--root-secret', env: 'FLORA_ROOT_SECRET', defaultValue: 'secret',
    help: 'Secret of the root key', parse: nonEmpty('root secret'),
  }),
  setting({
    key: 'collectIntervalMs', flag: '--collect-interval-ms', env: 'FLORA_COLLECT_INTERVAL_MS', defaultValue: 300_000,
    help: 'Milliseconds between passes of the history and ttl collector', parse: nonNegativeInteger('collector interval', 1),
  }),
  setting({
    key: 'historyGraceSeconds', flag: '--history-grace-seconds', env: 'FLORA_HISTORY_GRACE_SECONDS', defaultValue: 900,
    help: 'Grace period kept below history_days before history is collected', parse: nonNegativeInteger('history grace'),
  }),
  setting({
    key: 'graphqlPort', flag: '--graphql-port', env: 'FLORA_GRAPHQL_PORT', defaultValue: undefined,
    help: 'Extra port serving only the GraphQL API (/graphql, /import, /ping), e.g. 8084', parse: parsePort,
  }),
] as const;

export function defaultConfig(): FloraConfig {
  const config: Partial<FloraConfig> = {};
  for (const s of SETTINGS) Object.assign(config, { [s.key]: s.defaultValue });
  return config as FloraConfig;
}

/**
 * Builds the configuration from flags (`--port 1234` or `--port=1234`) and the environment.
 * Throws ConfigError on unknown flags, missing flag values and invalid values.
 */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): FloraConfig {
  const config = defaultConfig() as unknown as Record<string, unknown>;
  const fromFlags = new Map<string, string>();

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    const s = SETTINGS.find((x) => x.flag === name);
    if (!s) throw new ConfigError(`Unknown option '${arg}'.`);
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined) throw new ConfigError(`Option '${name}' needs a value.`);
    fromFlags.set(s.key, value);
  }

  for (const s of SETTINGS) {
    const flagValue = fromFlags.get(s.key);
    const envValue = env[s.env];
    if (flagValue !== undefined) config[s.key] = s.parse(flagValue, s.flag);
    else if (envValue !== undefined && envValue !== '') config[s.key] = s.parse(envValue, s.env);
  }
  return config as unknown as FloraConfig;
}

/** The options table shown by `flora --help`. */
export function configHelp(): string {
  const rows = SETTINGS.map((s) => {
    const left = `  ${s.flag} <value>`.padEnd(26);
    return `${left}${s.help} (env ${s.env}, default ${s.defaultValue === undefined ? 'off' : JSON.stringify(s.defaultValue)})`;
  });
  return rows.join('\n');
}
