// The server's only logger. Every line passes through the redactor, so a secret that reaches an error
// message never reaches the log either. Levels come from SATCHEL_LOG_LEVEL (debug, info, warn, error, silent).
import { redact } from './redact.js';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

type Sink = (line: string) => void;
let sink: Sink = (line) => process.stderr.write(line + '\n');

function threshold(): number {
  const name = (process.env.SATCHEL_LOG_LEVEL ?? 'info').toLowerCase();
  return LEVELS[name as LogLevel] ?? LEVELS.info;
}

function format(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function emit(level: LogLevel, parts: unknown[]): void {
  if (LEVELS[level] < threshold()) return;
  const text = parts.map(format).join(' ');
  sink(`${new Date().toISOString()} ${level.toUpperCase()} ${redact(text)}`);
}

export const log = {
  debug: (...parts: unknown[]) => emit('debug', parts),
  info: (...parts: unknown[]) => emit('info', parts),
  warn: (...parts: unknown[]) => emit('warn', parts),
  error: (...parts: unknown[]) => emit('error', parts),
};

/** Tests capture log lines here; returns a function that restores the previous sink. */
export function setLogSink(next: Sink): () => void {
  const previous = sink;
  sink = next;
  return () => {
    sink = previous;
  };
}
