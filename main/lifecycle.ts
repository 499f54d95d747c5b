// Shutdown helpers of the desktop window. They live in server/process/stop.ts, which the headless server (both entry
// points) uses too, so quitting the window and stopping `--server-only` close the server the same way.
export {
  closeWithDeadline,
  onStopSignal,
  SERVER_CLOSE_MARGIN_MS,
  SERVER_CLOSE_TIMEOUT_MS,
  STOP_SIGNALS,
  type SignalSource,
} from '../server/process/stop.js';
