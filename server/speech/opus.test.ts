import { describe, expect, it } from 'vitest';
import { AudioFormatError } from './audio-error.js';
import { decodeOpus, parseOpusHead } from './opus.js';

function head(channels: number, preSkip: number, family = 0, mapping: number[] = []): Buffer {
  const b = Buffer.alloc(19 + (family ? 2 + channels : 0));
  b.write('OpusHead', 0, 'ascii');
  b[8] = 1;
  b[9] = channels;
  b.writeUInt16LE(preSkip, 10);
  b.writeUInt32LE(48000, 12);
  b.writeInt16LE(-256 * 6, 16); // -6 dB
  b[18] = family;
  if (family) {
    b[19] = mapping.length ? Math.max(...mapping) + 1 : 0;
    b[20] = 0;
    Buffer.from(mapping).copy(b, 21);
  }
  return b;
}

describe('parseOpusHead', () => {
  it('reads channels, pre-skip, gain and the mapping family', () => {
    expect(parseOpusHead(head(2, 312))).toEqual({ channels: 2, preSkip: 312, gainDb: -6, mappingFamily: 0 });
    expect(parseOpusHead(head(3, 0, 1, [0, 1, 2]))).toMatchObject({ streamCount: 3, coupledStreamCount: 0, channelMapping: [0, 1, 2] });
  });

  it('rejects what is not an OpusHead or is inconsistent', () => {
    expect(() => parseOpusHead(Buffer.from('OpusTags-and-more-bytes'))).toThrow(new AudioFormatError('Invalid Opus stream: no OpusHead header'));
    expect(() => parseOpusHead(head(0, 0))).toThrow('Invalid Opus stream: zero channels');
    expect(() => parseOpusHead(head(3, 0))).toThrow('Invalid Opus stream: more than two channels without a channel mapping');
  });
});

describe('decodeOpus', () => {
  it('decodes silence frames (TOC only) to 16 kHz and trims the pre-skip', async () => {
    // 0xF8 = CELT fullband 20 ms, one frame; a one-byte packet is a valid "no data" frame (silence).
    const packets = Array.from({ length: 10 }, () => Uint8Array.from([0xf8]));
    const pcm = await decodeOpus(packets, parseOpusHead(head(1, 312)));
    expect(pcm.length).toBe(10 * 320 - 104); // 312 samples at 48 kHz = 104 at 16 kHz
    expect(pcm.every((v) => v === 0)).toBe(true);
  });

  it('refuses a stream whose packets mostly fail to decode', async () => {
    const packets = Array.from({ length: 10 }, () => new Uint8Array(0));
    await expect(decodeOpus(packets, parseOpusHead(head(1, 0)))).rejects.toThrow('Invalid Opus stream: most packets could not be decoded');
  });

  it('stops at the length limit', async () => {
    const packets = Array.from({ length: 100 }, () => Uint8Array.from([0xf8]));
    await expect(decodeOpus(packets, parseOpusHead(head(1, 0)), 16000)).rejects.toThrow('Audio is too long to transcribe');
  });
});
