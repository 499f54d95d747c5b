// `npm run serve`, and `node dist/main/index.js --server-only` under plain Node: the headless server. The
// flags are parsed by the parser the desktop app's `--server-only` uses (settings/args.ts), and the server
// runs, prints its URL and stops exactly as there (headless.ts).
import { pathToFileURL } from 'node:url';
import { loadConfig, type ServerConfig } from './config.js';
import { runHeadless } from './headless.js';
import { startServer } from './index.js';
import { log } from './log.js';
import { parseServerArgs, USAGE } from './settings/args.js';

export { USAGE } from './settings/args.js';
export const EXIT_USAGE = 2;
export const EXIT_START_FAILED = 1;

export async function runCli(argv: string[]): Promise<void> {
  let config: ServerConfig;
  try {
    const args = parseServerArgs(argv, 'reject');
    if (args.help) {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    config = loadConfig(process.env, args.flags);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  await runHeadless({
    start: () => startServer(config),
    print: (line) => process.stdout.write(`${line}\n`),
    signals: process,
    exit: (code) => process.exit(code),
    onError: (err) => log.error('Closing the server failed:', err),
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runCli(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`Satchel could not start: ${(err as Error).message}\n`);
    process.exit(EXIT_START_FAILED);
  });
}
