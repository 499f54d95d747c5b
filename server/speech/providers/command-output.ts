// Turning a finished speech command into a TranscribeResult: a non-zero exit is a crash (the handler's
// 500), and whatever the command says about the audio is reduced to short, path-free, redacted text.
import path from 'node:path';
import { sanitizeErrorText } from '../../core/errors.js';
import { log } from '../../core/log.js';
import { redact } from '../../redact/index.js';
import { CommandExitError, type CommandResult } from '../run-command.js';
import type { TranscribeResult } from './types.js';

/** A command's own failure text is shown to the user: one short line. */
export const MAX_COMMAND_ERROR_LENGTH = 200;
/** Only this much of stderr reaches the log when a command fails. */
const LOGGED_STDERR_CHARS = 500;
const DEFAULT_FAILURE = 'Transcription failed';

export function clientSafe(text: string): string {
  const clean = sanitizeErrorText(redact(text)).replace(/\s+/g, ' ').trim();
  return clean.length > MAX_COMMAND_ERROR_LENGTH ? clean.slice(0, MAX_COMMAND_ERROR_LENGTH - 1) + '…' : clean;
}

/** Throw CommandExitError (→ 500) unless the command exited 0; its stderr goes to the log, not the client. */
export function assertSucceeded(program: string, result: CommandResult): void {
  if (result.exitCode === 0) return;
  const name = path.basename(program);
  const how = result.signal ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
  const tail = sanitizeErrorText(result.stderr.slice(-LOGGED_STDERR_CHARS)).trim();
  log.warn(`speech: ${name} ${how}${tail ? `: ${tail}` : ''}`);
  throw new CommandExitError(`${name} ${how}`, result.stderr, result.exitCode, result.signal);
}

/**
 * The custom command's stdout: either the transcript as plain text, or a JSON object with a `success`
 * key: `{"success": true, "transcript": "..."}` / `{"success": false, "error": "..."}` (4.5 step 4).
 */
export function parseCommandOutput(stdout: string): TranscribeResult {
  const text = stdout.trim();
  if (text.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && 'success' in parsed) {
      const reply = parsed as { success?: unknown; transcript?: unknown; error?: unknown };
      if (reply.success) {
        return { success: true, transcript: typeof reply.transcript === 'string' ? reply.transcript.trim() : '' };
      }
      const error = typeof reply.error === 'string' ? clientSafe(reply.error) : '';
      return { success: false, error: error || DEFAULT_FAILURE };
    }
  }
  return { success: true, transcript: text };
}
