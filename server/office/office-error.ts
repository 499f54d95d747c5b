// One error class for every way an Office file can be refused or fail to convert. Its text is meant for the
// log; the upload handler replaces it with the fixed `Office sidecar extraction failed` for the client, so
// nothing here (paths, parser internals, stacks) can reach a response.

/** An Office file that is unsafe, malformed, encrypted or otherwise unconvertible. */
export class OfficeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OfficeError';
  }
}

// Part and member names come from the file: keep them to one short line in messages that reach the log.
const NAME_IN_MESSAGE_MAX = 200;

/** A name from an Office file, safe to embed in an error message. */
export function printable(name: string): string {
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > NAME_IN_MESSAGE_MAX ? `${clean.slice(0, NAME_IN_MESSAGE_MAX)}…` : clean;
}
