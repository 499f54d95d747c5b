// A server in a process of its own, for tests that watch one from outside (its /health while it works, its
// resident memory, a kill -9): imported with SATCHEL_CHILD_STATE_DIR and SATCHEL_CHILD_WORKSPACE set, it prints
// `{"origin": …}` once it listens. Bundled by the test (esbuild; node_modules left external) and imported from
// `node --input-type=module -e`, as the benchmarks start a server (flags a worker must not inherit).
import { startServer } from '../../index.js';
import { TEST_TOKEN } from '../../testing/harness.js';

const stateDir = process.env.SATCHEL_CHILD_STATE_DIR;
const workspace = process.env.SATCHEL_CHILD_WORKSPACE;
if (!stateDir || !workspace) throw new Error('server-child: set SATCHEL_CHILD_STATE_DIR and SATCHEL_CHILD_WORKSPACE');
const server = await startServer({ host: '127.0.0.1', port: 0, stateDir, token: TEST_TOKEN, maxUploadBytes: 100 * 1024 * 1024, defaultWorkspace: workspace });
process.stdout.write(`${JSON.stringify({ origin: server.origin })}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
