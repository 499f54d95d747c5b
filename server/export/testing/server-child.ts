// A server in a process of its own, for tests that watch one from outside (its /health while it works, its
// resident memory, a kill -9): `node server-child.mjs <state folder> <workspace>` prints `{"origin": …}` once it
// listens. Bundled by the test (esbuild; node_modules left external), run with the test's token.
import { startServer } from '../../index.js';
import { TEST_TOKEN } from '../../testing/harness.js';

const [stateDir, workspace] = process.argv.slice(2);
if (!stateDir || !workspace) throw new Error('usage: server-child <state folder> <workspace>');
const server = await startServer({ host: '127.0.0.1', port: 0, stateDir, token: TEST_TOKEN, maxUploadBytes: 100 * 1024 * 1024, defaultWorkspace: workspace });
process.stdout.write(`${JSON.stringify({ origin: server.origin })}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
