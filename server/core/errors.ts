// Error classes and helpers shared by every handler. A handler throws; the router turns the throw into the
// specification's `{ "error": ... }` response, so no handler has to remember the status mapping.

/** An error with an exact HTTP status and client-facing text. */
/**
 * Fields a refusal carries beside `error` (the wire's, docs/API.md): 409's `active_stream_id` names the running
 * turn (the UI attaches to it), 503's `hint` and `action` say how to set an agent up.
 */
export interface RefusalDetails {
  active_stream_id?: string;
  hint?: string;
  action?: string;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: Readonly<RefusalDetails>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/**
 * The specification's ValueError: a client mistake, reported as 400 with its text. Path sanitizing (spec-notes 4.0) is
 * for the server's own exception texts; a text that quotes what the client sent (an archive member's name,
 * absolute or not) is `verbatim` and reaches the client as the client spelled it (redacted all the same).
 */
export class ValueError extends Error {
  constructor(
    message: string,
    readonly verbatim = false,
  ) {
    super(message);
    this.name = 'ValueError';
  }
}

// Unix absolute paths (at least two segments, so "/" alone or "a/b" prose survives) and Windows drive or
// UNC paths. A path ends at whitespace or a quote: that is how exception texts embed them.
const UNIX_PATH = /(?<![\w.~-])\/(?:[^\s/'"`:,;)]+\/)*[^\s/'"`:,;)]+/g;
const WINDOWS_PATH = /(?:\b[A-Za-z]:[\\/]|\\\\[^\s\\'"`]+\\)[^\s'"`:,;)]*/g;

/** Replace absolute paths in an error text with `<path>` before it reaches a client. */
export function sanitizeErrorText(text: string): string {
  return text.replace(WINDOWS_PATH, '<path>').replace(UNIX_PATH, '<path>');
}

/**
 * Python's truthiness, which the specification's check uses: `None`, `False`, `""`, `[]`, `{}` and zero are
 * falsy. JavaScript would call `[]` and `{}` truthy.
 */
export function isPythonFalsy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length === 0;
  return !value;
}

/** The specification's required-field check: missing = falsy (as Python judges it) and not the number 0. */
export function requireFields(body: Record<string, unknown>, names: readonly string[]): void {
  const missing = names.filter((name) => {
    const value = body[name];
    return isPythonFalsy(value) && value !== 0;
  });
  if (missing.length > 0) throw new ValueError(`Missing required field(s): ${missing.join(', ')}`);
}

/** The client went away mid-request: nothing to answer, only cleaning up (logged at debug, never ERROR). */
export class ClientGoneError extends Error {
  constructor() {
    super('client disconnected');
    this.name = 'ClientGoneError';
  }
}

/** errno codes that mean the disk (or the user's quota) is full: the server's problem, reported as 507. */
export function isDiskFull(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** Rethrow a full disk as 507 with `text`, anything else unchanged. */
export function diskFullAs(text: string): (err: unknown) => never {
  return (err) => {
    if (isDiskFull(err)) throw new HttpError(507, text);
    throw err;
  };
}

export const DISK_FULL_UPLOAD = 'Not enough disk space to store the upload';
export const DISK_FULL_EXTRACT = 'Not enough disk space to extract the archive';

/** Node's errno codes that mean the peer went away while we were writing (spec-notes 1, client disconnects). */
const DISCONNECT_CODES = new Set([
  'EPIPE',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
  'ERR_HTTP_REQUEST_TIMEOUT',
  'ERR_SSL_PROTOCOL_ERROR',
  'ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** True for the client-disconnect conditions of spec-notes 1: swallowed and logged at debug level only. */
export function isClientDisconnect(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  return DISCONNECT_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_');
}
