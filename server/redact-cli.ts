// `npm run redact`: redact stdin to stdout with the same rules as API responses.
//   text mode (default): streams line by line; a private-key block spanning lines is still cut out whole,
//     and the output is exactly redact(<all of stdin>), because no other rule crosses a line break.
//   --jsonl: one JSON object per line, `{"id"?, "input": "..."}` → `{"id"?, "output": "..."}`, in order, each
//     written as soon as it is ready; a bad line gives `{"id"?, "error": "..."}` and the run goes on.
// Exit code 0 for any input (bad lines included); 2 for an unknown argument.
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { pathToFileURL } from 'node:url';
import { findPrivateKeyBegin, findPrivateKeyEnd, redact, REDACTED_PRIVATE_KEY } from './redact.js';

export const USAGE = 'Usage: redact-cli [--jsonl] < input > output\n';
export const EXIT_OK = 0;
export const EXIT_USAGE = 2;

// Fixed texts: a JSON.parse message quotes the offending input, which may hold the very secret.
export const ERROR_INVALID_JSON = 'Invalid JSON';
export const ERROR_NOT_OBJECT = 'Each line must be a JSON object';
export const ERROR_INPUT_NOT_STRING = 'Field "input" must be a string';

/** Text mode: redacts line by line, remembering across lines whether it is inside a private-key block. */
export class LineRedactor {
  private inPrivateKey = false;

  /** The redacted form of one line (given without its "\n"); the newline is kept unless a key block swallows it. */
  line(line: string, hasNewline: boolean): string {
    let out = '';
    let pos = 0;
    while (pos <= line.length) {
      if (this.inPrivateKey) {
        const end = findPrivateKeyEnd(line, pos);
        if (end === null) break; // the whole rest of the line belongs to the block
        this.inPrivateKey = false;
        pos = end.end;
        continue;
      }
      const begin = findPrivateKeyBegin(line, pos);
      if (begin === null) {
        out += redact(line.slice(pos));
        break;
      }
      out += redact(line.slice(pos, begin.start)) + REDACTED_PRIVATE_KEY;
      this.inPrivateKey = true;
      pos = begin.end;
    }
    return hasNewline && !this.inPrivateKey ? out + '\n' : out;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSONL mode: the output line (with "\n") for one input line; blank lines produce nothing. */
export function redactJsonLine(line: string): string {
  if (line.trim() === '') return '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return JSON.stringify({ error: ERROR_INVALID_JSON }) + '\n';
  }
  if (!isPlainObject(parsed)) return JSON.stringify({ error: ERROR_NOT_OBJECT }) + '\n';
  const id = Object.hasOwn(parsed, 'id') ? { id: parsed.id } : {};
  if (typeof parsed.input !== 'string') return JSON.stringify({ ...id, error: ERROR_INPUT_NOT_STRING }) + '\n';
  return JSON.stringify({ ...id, output: redact(parsed.input) }) + '\n';
}

/** Write with backpressure; false once the reader has gone away (EPIPE, destroyed stream). */
function write(output: Writable, data: string): Promise<boolean> {
  if (data === '') return Promise.resolve(true);
  if (output.destroyed || output.writableEnded) return Promise.resolve(false);
  if (output.write(data)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const finish = (ok: boolean) => {
      output.off('drain', onDrain);
      output.off('error', onGone);
      output.off('close', onGone);
      resolve(ok);
    };
    const onDrain = () => finish(true);
    const onGone = () => finish(false);
    output.on('drain', onDrain);
    output.on('error', onGone);
    output.on('close', onGone);
  });
}

/**
 * Run the CLI over `input`, writing to `output`; resolves with the exit code. `output` is not ended (it may be
 * process.stdout). Holds at most one line of input in memory (plus the current chunk).
 */
export async function runRedactCli(input: Readable, output: Writable, args: string[]): Promise<number> {
  let jsonl = false;
  for (const arg of args) {
    if (arg === '--jsonl') jsonl = true;
    else if (arg === '--help' || arg === '-h') {
      await write(output, USAGE);
      return EXIT_OK;
    } else {
      process.stderr.write(`Unknown argument: ${arg}\n${USAGE}`);
      return EXIT_USAGE;
    }
  }

  // A reader that goes away (`npm run redact | head`) is not an error: stop reading and exit 0.
  let gone = false;
  const onError = () => {
    gone = true;
  };
  output.on('error', onError);
  try {
    const lines = new LineRedactor();
    const decoder = new StringDecoder('utf8');
    let pending = '';
    for await (const chunk of input) {
      pending += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
      let start = 0;
      let batch = '';
      for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n', start)) {
        const line = pending.slice(start, nl);
        start = nl + 1;
        if (jsonl) {
          if (!(await write(output, redactJsonLine(line)))) gone = true;
          if (gone) break;
        } else batch += lines.line(line, true);
      }
      pending = pending.slice(start);
      if (!jsonl && !(await write(output, batch))) gone = true;
      if (gone) break;
    }
    if (!gone) {
      pending += decoder.end();
      if (pending !== '') await write(output, jsonl ? redactJsonLine(pending) : lines.line(pending, false));
    }
  } finally {
    output.off('error', onError);
  }
  return EXIT_OK;
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  process.stdout.on('error', () => {}); // EPIPE after the run: nothing left to report
  runRedactCli(process.stdin, process.stdout, process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`redact-cli: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
