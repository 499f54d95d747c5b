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
