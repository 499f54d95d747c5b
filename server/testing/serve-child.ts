// A child process running the real server on a state folder (for tests that kill it: chat-queued-kill.test.ts).
// Prints `listening <port>` once it answers; token TEST_TOKEN; killed, it stores nothing more.
import { startServer } from '../index.js';
import { TEST_TOKEN } from './harness.js';

const [stateDir, workspace] = process.argv.slice(2);
if (!stateDir || !workspace) throw new Error('usage: serve-child <state folder> <workspace>');
const server = await startServer({ host: '127.0.0.1', port: 0, stateDir, token: TEST_TOKEN, maxUploadBytes: 1024 * 1024, defaultWorkspace: workspace });
process.stdout.write(`listening ${server.port}\n`);
