// The `flora` command. `flora start` runs the server until SIGTERM/SIGINT.

import { ConfigError, configHelp, loadConfig } from '../config';
import { startServer, type RunningServer } from '../server/server';
import { buildGraphqlRouter } from '../server/routes';

const USAGE = `Usage: flora <command> [options]

Commands:
  start        Start the server (HTTP/1.1 and HTTP/2 on one port)
  export-logs  Export the query log of a time range (see 'flora export-logs --help')

Options for start (flags win over environment variables):
${configHelp()}

  -h, --help                Show this help
`;

/** Runs the CLI; resolves with the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (command === 'export-logs') return (await import('./exportLogs')).exportLogs(rest); // query-log export client
  if (command !== 'start') {
    process.stderr.write(command === undefined ? USAGE : `Unknown command '${command}'.\n\n${USAGE}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  return start(rest);
}

async function start(args: readonly string[]): Promise<number> {
  let config;
  try {
    config = loadConfig(args, process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`flora: ${err.message}\n\nRun 'flora --help' for the options.\n`);
      return err.exitCode;
    }
    throw err;
  }

  // Loaded here so that `flora --help` and config errors never open the storage stack.
  const { createFlora } = await import('../flora');
  const { FormatError } = await import('../storage/format');
  const { StorageUnavailable, StoreInUse } = await import('../storage/engine');
  let service;
  try {
    service = await createFlora(config);
  } catch (err) {
    if (err instanceof FormatError) {
      process.stderr.write(`flora: ${err.message}\n`);
      return 1;
    }
    if (err instanceof StorageUnavailable || err instanceof StoreInUse) {
      process.stderr.write(`flora: cannot open the store: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  let server;
  // With a GraphQL-only port, the log system and the service are closed once both listeners have drained.
  const ownsService = config.graphqlPort === undefined;
  const { LogSystem } = await import('../logs/index'); // query log + log-export API
  let logs;
  try {
    logs = await LogSystem.open(config, service);
  } catch (err) {
    await service.close().catch(() => undefined);
    process.stderr.write(`flora: cannot open the query log: ${(err as Error).message}\n`);
    return 1;
  }
  try {
    server = await startServer(service, config, { logs, ownsService });
  } catch (err) {
    await logs.close().catch(() => undefined);
    await service.close().catch(() => undefined);
    process.stderr.write(`flora: cannot listen on ${config.host}:${config.port}: ${(err as Error).message}\n`);
    return 1;
  }
  // GraphQL-only port (DECISIONS #6), when configured.
  let graphqlServer: RunningServer | undefined;
  if (config.graphqlPort !== undefined) {
    try {
      graphqlServer = await startServer(service, { ...config, port: config.graphqlPort }, { router: buildGraphqlRouter(service), ownsService: false, logs });
    } catch (err) {
      await server.close().catch(() => undefined);
      await logs.close().catch(() => undefined);
      await service.close().catch(() => undefined);
      process.stderr.write(`flora: cannot listen on ${config.host}:${config.graphqlPort}: ${(err as Error).message}\n`);
      return 1;
    }
    process.stdout.write(`Flora GraphQL listening on ${graphqlServer.address}\n`);
  }
  // Tests and scripts wait for exactly this line.
  process.stdout.write(`Flora listening on ${server.address}\n`);

  const main = server;
  const running = {
    close: async () => {
      await Promise.all([graphqlServer?.close(), main.close()]);
      if (!ownsService) {
        await logs.close();
        await service.close();
      }
    },
    forceClose: () => {
      graphqlServer?.forceClose();
      main.forceClose();
    },
  };
  return new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = () => {
      if (stopping) {
        // Second signal: stop waiting for in-flight requests.
        running.forceClose();
        return;
      }
      stopping = true;
      const closed = running.close();
      // The listening socket is closed by now; tests wait for this line before finishing in-flight requests.
      process.stderr.write('Flora stopping: finishing in-flight requests\n');
      closed.then(
        () => resolve(0),
        (err: unknown) => {
          process.stderr.write(`flora: error during shutdown: ${(err as Error).message}\n`);
          resolve(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`flora: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
