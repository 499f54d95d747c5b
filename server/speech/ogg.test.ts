import { describe, expect, it } from 'vitest';
import { AudioFormatError } from './audio-error.js';
import { demuxOgg } from './ogg.js';

/** One Ogg page holding `segments` (lacing values computed by the caller) of `body`. */
function page(serial: number, lacing: number[], body: Buffer): Buffer {
  const header = Buffer.alloc(27);
  header.write('OggS', 0, 'ascii');
  header.writeUInt32LE(serial, 14);
  header[26] = lacing.length;
  return Buffer.concat([header, Buffer.from(lacing), body]);
}
const bytes = (value: number, length: number) => Buffer.alloc(length, value);

describe('demuxOgg', () => {
  it('reassembles packets that span segments and pages, and ignores other streams', () => {
    const file = Buffer.concat([
      page(7, [3, 255], Buffer.concat([bytes(1, 3), bytes(2, 255)])), // packet 2 continues on the next page
      page(9, [4], bytes(9, 4)), // another logical stream, interleaved
      page(7, [45, 0], bytes(2, 45)), // ...ends here at 300 bytes; then an empty packet
      page(7, [10], bytes(3, 10)),
    ]);
    const packets = demuxOgg(file);
    expect(packets.map((p) => [p[0], p.length])).toEqual([
      [1, 3],
      [2, 300],
      [undefined, 0],
      [3, 10],
    ]);
  });

  it('drops a truncated last page', () => {
    const file = Buffer.concat([page(1, [5], bytes(1, 5)), page(1, [50], bytes(2, 50))]);
    expect(demuxOgg(file.subarray(0, file.length - 10)).map((p) => p.length)).toEqual([5]);
  });

  it('rejects data that is not Ogg, or loses page sync', () => {
    expect(() => demuxOgg(Buffer.from('RIFF0000WAVE'))).toThrow(new AudioFormatError('Invalid Ogg file: no OggS header'));
    const file = Buffer.concat([page(1, [5], bytes(1, 5)), Buffer.from('garbage-garbage-garbage-garbage')]);
    expect(() => demuxOgg(file)).toThrow('Invalid Ogg file: lost page sync');
  });
});
