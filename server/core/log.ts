// The server's only logger. Every line passes through the redactor, so a secret that reaches an error
// message never reaches the log either (and, stricter than the redactor is elsewhere, a key glued to a word in a
// file name or path: redact/glued.ts), and then through escapeControls, so a name chosen by a stranger (a tar
// member called `x\n<timestamp> ERROR …`) cannot start a line of its own. Levels come from SATCHEL_LOG_LEVEL
// (debug, info, warn, error, silent).
import { CONTROL_CHARS } from './names.js';
import { maskGluedKeys, redact } from '../redact/index.js';
import { DEFAULT_LOG_LEVEL, readSetting } from '../settings/table.js';

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

type Sink = (line: string) => void;
let sink: Sink = (line) => process.stderr.write(line + '\n');

function threshold(): number {
  const name = readSetting('logLevel') ?? DEFAULT_LOG_LEVEL;
  return LEVELS[name as LogLevel] ?? LEVELS.info;
}

/** Causes followed from a logged error: enough for a wrapped errno, bounded against a cycle. */
const MAX_CAUSE_DEPTH = 4;

/** An error as `Name: message`, then each cause's (`caused by …`): an errno's path is in its message. */
function formatError(error: Error): string {
  const parts = [`${error.name}: ${error.message}`];
  let cause: unknown = error.cause;
  for (let depth = 0; cause !== undefined && cause !== null && depth < MAX_CAUSE_DEPTH; depth++) {
    parts.push(cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return parts.join('; caused by ');
}

function format(value: unknown): string {
  if (value instanceof Error) return formatError(value);
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

// CONTROL_CHARS (C0, DEL, C1, U+2028/2029) is the set names.ts keeps out of file names: each can end a line
// or rewrite a terminal.
const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Every control character as a visible escape: `\n`, `\r`, `\t`, else `\xHH` (up to U+00FF) or `\uHHHH`.
 * Backslashes are left alone so Windows paths stay readable; a literal `\n` in a name is then ambiguous to a
 * reader, but it can never break a line.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROL_CHARS, (c) => {
    const code = c.charCodeAt(0);
    return NAMED_ESCAPES[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}

/**
 * Any text bound for a log or the console made safe as log lines are: redacted (glued keys too) and its control
 * characters escaped. Redaction first: its patterns may span lines (a PEM block), which escaping would hide.
 */
export function safeLogText(text: string): string {
  return escapeControls(maskGluedKeys(redact(text)));
}

function emit(level: LogLevel, parts: unknown[]): void {
  if (LEVELS[level] < threshold()) return;
  // The one newline that ends the line is the sink's.
  sink(`${new Date().toISOString()} ${level.toUpperCase()} ${safeLogText(parts.map(format).join(' '))}`);
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
