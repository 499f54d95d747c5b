// One error class for every way an Office file can be refused or fail to convert. Its text is meant for the
// log; the upload handler replaces it with the fixed `Office sidecar extraction failed` for the client, so
// nothing here (paths, parser internals, stacks) can reach a response. What does reach the client is the
// error's `reason`: one of a few fixed phrases (SIDECAR_REASONS), never text taken from the file.

/** The cause of a failed sidecar, in plain words for the user (`sidecar_reason`). */
export const SIDECAR_REASONS = {
  'too-many-parts': 'too many parts in the file',
  'too-large': 'too large to preview',
  bomb: 'compressed suspiciously well (possible zip bomb)',
  'not-zip': 'not a readable zip file',
  encrypted: 'encrypted or saved in the old binary format',
  malformed: 'damaged or not a valid Office document',
  timeout: 'took too long to convert',
  'time-budget': "this upload's time for text previews ran out",
  'size-budget': "this upload's size allowance for text previews ran out",
  exists: 'a file with the preview name already exists',
  failed: 'could not be converted',
} as const;
export type SidecarReasonCode = keyof typeof SIDECAR_REASONS;

/** An Office file that is unsafe, malformed, encrypted or otherwise unconvertible. */
export class OfficeError extends Error {
  readonly reason: SidecarReasonCode;
  constructor(message: string, options?: { cause?: unknown; reason?: SidecarReasonCode }) {
    super(message, options);
    this.name = 'OfficeError';
    // Most refusals are documents that do not parse; the zip guard and the budgets say otherwise.
    this.reason = options?.reason ?? 'malformed';
  }
}

/** The plain-words cause of a sidecar failure, for `sidecar_reason`. */
export function sidecarReason(err: unknown): string {
  if (err instanceof OfficeError) return SIDECAR_REASONS[err.reason];
  if ((err as NodeJS.ErrnoException | null)?.code === 'EEXIST') return SIDECAR_REASONS.exists;
  return SIDECAR_REASONS.failed;
}

// Part and member names come from the file: keep them to one short line in messages that reach the log.
const NAME_IN_MESSAGE_MAX = 200;

/** A name from an Office file, safe to embed in an error message. */
export function printable(name: string): string {
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > NAME_IN_MESSAGE_MAX ? `${clean.slice(0, NAME_IN_MESSAGE_MAX)}…` : clean;
}
