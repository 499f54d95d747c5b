// One server for the whole run; the returned function is Playwright's teardown.
import { startServer } from './helpers/server.js';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const server = await startServer();
  const { stop, ...info } = server;
  process.env.SATCHEL_E2E_SERVER = JSON.stringify(info);
  return stop;
}
