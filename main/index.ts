// Entry point for both runtimes. Electron is imported only on the Electron path: under plain Node the name
// resolves to the npm package, whose index.js would try to download a binary.
import { chooseRuntime, cliArgv, NODE_USAGE } from './args.js';

const runtime = chooseRuntime(process.versions, process.argv.slice(2));

if (runtime === 'electron') {
  // Awaited at top level on purpose: Electron emits 'ready' only after the entry module has settled, and the
  // pre-ready switches (sandbox, headless) must be in place by then.
  const { startElectron } = await import('./electron-main.js');
  startElectron(process.argv.slice(1));
} else if (runtime === 'node-server') {
  try {
    const { runCli } = await import('../server/cli.js');
    await runCli(cliArgv(process.argv.slice(2)));
  } catch (err) {
    // A start failure (port taken, state folder unwritable) is the operator's to fix: a message, no stack,
    // made safe as log lines are (a path in it may hold a key).
    const { safeLogText } = await import('../server/core/log.js');
    process.stderr.write(`Satchel could not start: ${safeLogText(err instanceof Error ? err.message : String(err))}\n`);
    process.exit(1);
  }
} else {
  process.stderr.write(NODE_USAGE + '\n');
  process.exitCode = 2;
}
