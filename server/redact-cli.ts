// `npm run redact`: redact stdin (or files) to stdout with the same rules as API responses.
//   text mode (default): streams line by line, each line redacted as one string (a log writes one string per
//     line); a private-key block spanning lines is still cut out whole. No rule crosses a line break except a
//     private-key block and a token split by invisible characters, which here is joined only within a line.
//   --jsonl: one JSON object per line, `{"id"?, "input": "..."}` → `{"id"?, "output": "..."}`, in order, each
//     written as soon as it is ready; a bad line gives `{"id"?, "error": "..."}` and the run goes on.
//   --check: writes nothing redacted; prints `line N: <rule>` (`<file>: line N: <rule>` for files) for each
//     line that holds something the redactor would mask, never the secret itself, and exits 1 if there was any.
// Exit code 0 for any input (bad lines included) and a clean --check; 1 when --check found something; 2 for an
// unknown argument or a file that cannot be read.
import fs from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { pathToFileURL } from 'node:url';
import { findPrivateKeyBegin, findPrivateKeyEnd, PRIVATE_KEY_RULE, redact, REDACTED_PRIVATE_KEY, redactionFindings } from './redact/index.js';

export const USAGE = 'Usage: redact-cli [--jsonl] [--check] [file ...]   (no file: stdin)\n';
export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
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

  /** --check: the names of the rules that would mask something in this line (each once, in order). */
  findings(line: string): string[] {
    const rules: string[] = [];
    let pos = 0;
    while (pos <= line.length) {
      if (this.inPrivateKey) {
        const end = findPrivateKeyEnd(line, pos);
        if (end === null) break;
        this.inPrivateKey = false;
        pos = end.end;
        continue;
      }
      const begin = findPrivateKeyBegin(line, pos);
      for (const f of redactionFindings(line.slice(pos, begin === null ? line.length : begin.start))) rules.push(f.rule);
      if (begin === null) break;
      rules.push(PRIVATE_KEY_RULE);
      this.inPrivateKey = true;
      pos = begin.end;
    }
    return [...new Set(rules)];
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** --check over JSONL: the rules that would mask something in the line's `input` (a bad line has none). */
export function jsonLineFindings(line: string): string[] {
  if (line.trim() === '') return [];
  try {
    const parsed: unknown = JSON.parse(line);
    if (!isPlainObject(parsed) || typeof parsed.input !== 'string') return [];
    return [...new Set(redactionFindings(parsed.input).map((f) => f.rule))];
  } catch {
    return [];
  }
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

interface Mode {
  jsonl: boolean;
  check: boolean;
  /** Printed before `line N:` in --check output (`<file>: `), empty for stdin. */
  label: string;
}

/**
 * One input through the CLI, writing to `output`; resolves with the number of findings (--check) and whether the
 * reader went away. Holds at most one line of input in memory (plus the current chunk).
 */
async function runOne(input: Readable, output: Writable, mode: Mode): Promise<{ findings: number; gone: boolean }> {
  let gone = false;
  let findings = 0;
  let lineNumber = 0;
  const lines = new LineRedactor();
  const decoder = new StringDecoder('utf8');
  const handle = (line: string, hasNewline: boolean): string => {
    lineNumber++;
    if (!mode.check) return mode.jsonl ? redactJsonLine(line) : lines.line(line, hasNewline);
    const rules = mode.jsonl ? jsonLineFindings(line) : lines.findings(line);
    findings += rules.length;
    return rules.map((rule) => `${mode.label}line ${lineNumber}: ${rule}\n`).join('');
  };
  let pending = '';
  for await (const chunk of input) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    let start = 0;
    let batch = '';
    for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n', start)) {
      const line = pending.slice(start, nl);
      start = nl + 1;
      if (mode.jsonl && !mode.check) {
        if (!(await write(output, handle(line, true)))) gone = true;
        if (gone) break;
      } else batch += handle(line, true);
    }
    pending = pending.slice(start);
    if (!(await write(output, batch))) gone = true;
    if (gone) break;
  }
  if (!gone) {
    pending += decoder.end();
    if (pending !== '') await write(output, handle(pending, false));
  }
  return { findings, gone };
}

/**
 * Run the CLI over `input` (or the files named in `args`), writing to `output`; resolves with the exit code.
 * `output` is not ended (it may be process.stdout).
 */
export async function runRedactCli(input: Readable, output: Writable, args: string[], errors: Writable = process.stderr): Promise<number> {
  let jsonl = false;
  let check = false;
  const files: string[] = [];
  for (const arg of args) {
    if (arg === '--jsonl') jsonl = true;
    else if (arg === '--check') check = true;
    else if (arg === '--help' || arg === '-h') {
      await write(output, USAGE);
      return EXIT_OK;
    } else if (arg.startsWith('-') && arg !== '-') {
      errors.write(`Unknown argument: ${arg}\n${USAGE}`);
      return EXIT_USAGE;
    } else files.push(arg);
  }

  // A reader that goes away (`npm run redact | head`) is not an error: stop reading and exit 0.
  const onError = () => {};
  output.on('error', onError);
  let findings = 0;
  try {
    if (files.length === 0) findings += (await runOne(input, output, { jsonl, check, label: '' })).findings;
    for (const file of files) {
      const stream = file === '-' ? input : fs.createReadStream(file);
      try {
        const result = await runOne(stream, output, { jsonl, check, label: files.length > 1 || file !== '-' ? `${file}: ` : '' });
        findings += result.findings;
        if (result.gone) break;
      } catch (err) {
        // Only the reason (ENOENT, EISDIR, …): never file content.
        const code = typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : 'unreadable';
        errors.write(`Cannot read ${file}: ${code}\n`);
        return EXIT_USAGE;
      }
    }
  } finally {
    output.off('error', onError);
  }
  return check && findings > 0 ? EXIT_FINDINGS : EXIT_OK;
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
