// `--server-only` inside Electron runs the same headless server as `npm run serve` under plain Node: one
// start, one ready line, one shutdown path (server/headless.ts); electron-main.ts passes app.exit as `exit`.
// The same port rule too: the last port, kept in the state folder, unless --port or SATCHEL_WEBUI_PORT fixes one.
export {
  READY_PREFIX,
  readyLine,
  runHeadless,
  type HeadlessDeps,
  type HeadlessServer,
} from '../server/headless.js';
export { remembersPort, startHeadless } from '../server/cli.js';
