// Layer 1 of the agent stream: bytes → lines. A line ends at CR, LF or CRLF (the SSE grammar), also when the CR
// and the LF come in different chunks; a line is decoded from UTF-8 only once it is whole, so a character split
// across chunks is never mangled. At most one line is held, and at most MAX_LINE_BYTES of it.
import { AgentError } from '../types.js';
import { TOO_LONG_ANSWER_HINT } from '../upstream-errors.js';

/** One SSE line longer than this is not a chat stream (a chunk is a few hundred bytes). */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

export class LineDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The last chunk ended in CR: an LF starting the next one belongs to that line end. */
  private afterCr = false;

  constructor(private readonly maxLineBytes = MAX_LINE_BYTES) {}

  *push(chunk: Buffer): Generator<string> {
    let start = 0;
    if (this.afterCr && chunk.length > 0 && chunk[0] === LF) start = 1;
    this.afterCr = false;
    for (let i = start; i < chunk.length; i++) {
      const c = chunk[i];
      if (c !== LF && c !== CR) continue;
      this.take(chunk.subarray(start, i));
      yield this.line();
      if (c === CR) {
        if (i + 1 === chunk.length) this.afterCr = true;
        else if (chunk[i + 1] === LF) i++;
      }
      start = i + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  /** What is left after the last line end (a stream whose last line has none), or undefined. */
  end(): string | undefined {
    return this.pendingBytes === 0 ? undefined : this.line();
  }

  private line(): string {
    const text = Buffer.concat(this.pending, this.pendingBytes).toString('utf8');
    this.pending = [];
    this.pendingBytes = 0;
    return text;
  }

  private take(part: Buffer): void {
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxLineBytes) {
      throw new AgentError('upstream_error', `The agent sent a line longer than ${this.maxLineBytes / (1024 * 1024)} MiB.`, TOO_LONG_ANSWER_HINT);
    }
    // A copy: the chunk's memory belongs to the socket's pool.
    if (part.length > 0) this.pending.push(Buffer.from(part));
  }
}
