// The server's log lines captured for a test file: each test starts with none, at the level asked, and the log's
// sink and SATCHEL_LOG_LEVEL are as they were after it. For tests of what is (or is never) logged.
import { afterEach, beforeEach } from 'vitest';
import { setLogSink, type LogLevel } from '../core/log.js';

/** Registers the capture around every test of the file; returns the lines logged so far in the running test. */
export function captureLogLines(level: LogLevel): () => string[] {
  let lines: string[] = [];
  let restoreSink: () => void = () => {};
  let savedLevel: string | undefined;
  beforeEach(() => {
    lines = [];
    restoreSink = setLogSink((line) => lines.push(line));
    savedLevel = process.env.SATCHEL_LOG_LEVEL;
    process.env.SATCHEL_LOG_LEVEL = level;
  });
  afterEach(() => {
    restoreSink();
    if (savedLevel === undefined) delete process.env.SATCHEL_LOG_LEVEL;
    else process.env.SATCHEL_LOG_LEVEL = savedLevel;
  });
  return () => lines;
}
