// `npm run serve` / `--server-only`: the headless server. Prints the tokened URL once, stops cleanly on
// SIGINT/SIGTERM (in-flight uploads finish or are cleaned up).
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { startServer } from './index.js';
import { log } from './log.js';

export const USAGE = 'Usage: satchel-serve [--port N] [--host H] [--state-dir DIR]';

export async function runCli(argv: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'state-dir': { type: 'string' },
        'server-only': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let config;
  try {
    config = loadConfig(process.env, { port: values.port, host: values.host, stateDir: values['state-dir'] });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  // Signal handlers go in before the ready line: a caller may signal the moment it reads it.
  let stopping = false;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal} received, shutting down`);
    void (server ? server.close() : Promise.resolve()).then(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  server = await startServer(config);
  process.stdout.write(`Satchel is running at ${server.tokenUrl}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runCli(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`Satchel could not start: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
