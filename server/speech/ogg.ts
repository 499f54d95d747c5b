// A minimal Ogg demuxer (RFC 3533): reassemble the packets of the first logical stream. Enough for Ogg/Opus
// (Firefox's MediaRecorder, voice notes); page CRCs are not checked because Opus itself rejects garbage.
import { AudioFormatError } from './audio-error.js';

const PAGE_HEADER_BYTES = 27;
const CAPTURE_PATTERN = 'OggS';

export function isOgg(head: Uint8Array): boolean {
  return head.length >= 4 && String.fromCharCode(...head.subarray(0, 4)) === CAPTURE_PATTERN;
}

/** Packets of the first logical stream, in order. A truncated last page is dropped, not an error. */
export function demuxOgg(bytes: Uint8Array): Uint8Array[] {
  if (!isOgg(bytes)) throw new AudioFormatError('Invalid Ogg file: no OggS header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const packets: Uint8Array[] = [];
  let serial: number | undefined;
  let partial: Uint8Array[] = [];
  let pos = 0;
  while (pos + PAGE_HEADER_BYTES <= bytes.length) {
    if (String.fromCharCode(...bytes.subarray(pos, pos + 4)) !== CAPTURE_PATTERN) {
      throw new AudioFormatError('Invalid Ogg file: lost page sync');
    }
    const pageSerial = view.getUint32(pos + 14, true);
    const segments = bytes[pos + 26] as number;
    const tableEnd = pos + PAGE_HEADER_BYTES + segments;
    if (tableEnd > bytes.length) break;
    const lacing = bytes.subarray(pos + PAGE_HEADER_BYTES, tableEnd);
    const bodySize = lacing.reduce((a, b) => a + b, 0);
    if (tableEnd + bodySize > bytes.length) break;
    serial ??= pageSerial;
    if (pageSerial === serial) {
      let offset = tableEnd;
      for (const size of lacing) {
        partial.push(bytes.subarray(offset, offset + size));
        offset += size;
        // A lacing value below 255 ends a packet; 255 means it continues in the next segment or page.
        if (size < 255) {
          packets.push(partial.length === 1 ? (partial[0] as Uint8Array) : Buffer.concat(partial));
          partial = [];
        }
      }
    }
    pos = tableEnd + bodySize;
  }
  return packets;
}
