// Reading an open file by position without handing its descriptor to a stream: Node's fs read streams close
// the descriptor when they are destroyed, even with autoClose off, and the zip reader destroys every stream
// it is done with while the file must stay open for the next member.
import type fsp from 'node:fs/promises';
import { EXTRACT_CHUNK_BYTES } from './limits.js';

/** The bytes of `handle` from `start` up to `end` (exclusive; the end of the file when omitted). */
export async function* fileChunks(handle: fsp.FileHandle, start = 0, end = Number.POSITIVE_INFINITY): AsyncGenerator<Buffer> {
  for (let position = start; position < end; ) {
    const length = Math.min(EXTRACT_CHUNK_BYTES, end - position);
    const buffer = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    if (bytesRead === 0) {
      if (end !== Number.POSITIVE_INFINITY) throw new Error('Unexpected end of file');
      return;
    }
    position += bytesRead;
    yield buffer.subarray(0, bytesRead);
  }
}
