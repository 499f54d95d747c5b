// Opus packets → 16 kHz mono PCM with the `opus-decoder` WASM build of libopus. libopus decodes natively at
// 16 kHz, so no resampling is needed for browser recordings.
import type { OpusDecoder as OpusDecoderClass } from 'opus-decoder';
import { AudioFormatError, AudioTooLongError } from './audio-error.js';

const OUTPUT_RATE = 16000;
/** Opus timestamps (pre-skip) are always counted at 48 kHz, whatever rate is decoded. */
const OPUS_CLOCK = 48000;
const HEAD_MAGIC = 'OpusHead';
/** opus-decoder's input buffer holds 120 ms at 256 kbit/s per channel; longer packets are not valid Opus. */
const MAX_PACKET_BYTES_PER_CHANNEL = 32000 * 0.12;
/** More than this many undecodable packets means the stream is not Opus at all. */
const MAX_BAD_PACKET_RATIO = 0.5;

export interface OpusHead {
  channels: number;
  preSkip: number;
  /** Output gain in dB. */
  gainDb: number;
  mappingFamily: number;
  streamCount?: number;
  coupledStreamCount?: number;
  channelMapping?: number[];
}

export function isOpusHead(packet: Uint8Array | undefined): boolean {
  return !!packet && packet.length >= 19 && String.fromCharCode(...packet.subarray(0, 8)) === HEAD_MAGIC;
}

/** Parse the Opus identification header (RFC 7845 section 5.1). */
export function parseOpusHead(packet: Uint8Array): OpusHead {
  if (!isOpusHead(packet)) throw new AudioFormatError('Invalid Opus stream: no OpusHead header');
  const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
  const head: OpusHead = {
    channels: packet[9] as number,
    preSkip: view.getUint16(10, true),
    gainDb: view.getInt16(16, true) / 256,
    mappingFamily: packet[18] as number,
  };
  if (head.channels < 1) throw new AudioFormatError('Invalid Opus stream: zero channels');
  if (head.mappingFamily !== 0) {
    if (packet.length < 21 + head.channels) throw new AudioFormatError('Invalid Opus stream: short channel mapping');
    head.streamCount = packet[19] as number;
    head.coupledStreamCount = packet[20] as number;
    head.channelMapping = [...packet.subarray(21, 21 + head.channels)];
  } else if (head.channels > 2) {
    throw new AudioFormatError('Invalid Opus stream: more than two channels without a channel mapping');
  }
  return head;
}

let decoderModule: Promise<typeof OpusDecoderClass> | undefined;

/** opus-decoder (its WASM inlined in JavaScript) loads with the first recording or the speech preload, not
 *  with the server. Loaded once; a failed load is tried again. */
function loadOpusDecoder(): Promise<typeof OpusDecoderClass> {
  decoderModule ??= import('opus-decoder').then(
    (mod) => mod.OpusDecoder,
    (err: unknown) => {
      decoderModule = undefined;
      throw err;
    },
  );
  return decoderModule;
}

/** Compile the WASM decoder ahead of the first recording (about 0.1 s once per process). */
export async function warmUpOpus(): Promise<void> {
  const OpusDecoder = await loadOpusDecoder();
  const decoder = new OpusDecoder({ sampleRate: OUTPUT_RATE, channels: 1 });
  await decoder.ready;
  decoder.free();
}

/** Decode Opus packets to 16 kHz mono, dropping the encoder's pre-skip and applying the header's gain. */
export async function decodeOpus(packets: Uint8Array[], head: OpusHead, maxSamples = Infinity): Promise<Float32Array> {
  const OpusDecoder = await loadOpusDecoder();
  const decoder = new OpusDecoder({
    sampleRate: OUTPUT_RATE,
    channels: head.channels,
    streamCount: head.streamCount,
    coupledStreamCount: head.coupledStreamCount,
    channelMappingTable: head.channelMapping,
    // Pre-skip is trimmed below, in our own arithmetic, so it does not depend on the WASM build's scaling.
    preSkip: 0,
  });
  await decoder.ready;
  try {
    const maxBytes = MAX_PACKET_BYTES_PER_CHANNEL * head.channels;
    const pieces: Float32Array[] = [];
    let total = 0;
    let bad = 0;
    for (const packet of packets) {
      if (packet.length === 0 || packet.length > maxBytes) {
        bad++;
        continue;
      }
      const { channelData, samplesDecoded, errors } = decoder.decodeFrame(packet);
      if (errors.length > 0 || samplesDecoded === 0) {
        bad++;
        continue;
      }
      pieces.push(mixToMono(channelData, samplesDecoded));
      total += samplesDecoded;
      if (total > maxSamples) throw new AudioTooLongError(maxSamples / OUTPUT_RATE);
    }
    if (packets.length > 0 && bad > packets.length * MAX_BAD_PACKET_RATIO) {
      throw new AudioFormatError('Invalid Opus stream: most packets could not be decoded');
    }
    const skip = Math.min(total, Math.round((head.preSkip * OUTPUT_RATE) / OPUS_CLOCK));
    const gain = 10 ** (head.gainDb / 20);
    const out = new Float32Array(total - skip);
    let written = -skip;
    for (const piece of pieces) {
      for (let i = 0; i < piece.length; i++, written++) {
        if (written >= 0) out[written] = Math.max(-1, Math.min(1, (piece[i] as number) * gain));
      }
    }
    return out;
  } finally {
    decoder.free();
  }
}

function mixToMono(channels: Float32Array[], length: number): Float32Array {
  if (channels.length === 1) return (channels[0] as Float32Array).slice(0, length);
  const out = new Float32Array(length);
  for (const channel of channels) for (let i = 0; i < length; i++) out[i] = (out[i] as number) + (channel[i] as number);
  for (let i = 0; i < length; i++) out[i] = (out[i] as number) / channels.length;
  return out;
}
