// A child process for the Inbox's kill test (inbox/crash.kill.test.ts): a real server on the state folder given,
// watching with short timings, that prints `url <origin>` once it listens. The test kills it with SIGKILL.
import { startServer } from '../../index.js';

const [stateDir, workspace, token] = process.argv.slice(2);
if (!stateDir || !workspace || !token) throw new Error('usage: crash-child <state folder> <workspace> <token>');
process.env.SATCHEL_LOG_LEVEL ??= 'warn';
const server = await startServer({
  host: '127.0.0.1',
  port: 0,
  stateDir,
  token,
  defaultWorkspace: workspace,
  maxUploadBytes: 1024 * 1024,
}, { inbox: { settleMs: 200, pollMs: 50, rescanMs: 300 } });
process.stdout.write(`url ${server.origin}\n`);
