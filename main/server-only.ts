// `--server-only` inside Electron runs the same headless server as `npm run serve` under plain Node: one
// start, one ready line, one shutdown path (server/headless.ts); electron-main.ts passes app.exit as `exit`.
export {
  READY_PREFIX,
  readyLine,
  runHeadless,
  type HeadlessDeps,
  type HeadlessServer,
} from '../server/headless.js';
