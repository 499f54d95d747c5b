// A minimal Matroska/WebM demuxer: just enough to pull the first audio track's codec, its setup bytes and
// its frames out of what browsers' MediaRecorder writes. MediaRecorder streams, so its Segment and Clusters
// have "unknown" sizes; that is why containers are entered (their children read in line) instead of being
// parsed as sized trees.
import { AudioFormatError } from './audio-error.js';

const ID_EBML = 0x1a45dfa3;
const ID_DOCTYPE = 0x4282;
const ID_SEGMENT = 0x18538067;
const ID_TRACKS = 0x1654ae6b;
const ID_TRACK_ENTRY = 0xae;
const ID_TRACK_NUMBER = 0xd7;
const ID_TRACK_TYPE = 0x83;
const ID_CODEC_ID = 0x86;
const ID_CODEC_PRIVATE = 0x63a2;
const ID_AUDIO = 0xe1;
const ID_SAMPLING_FREQUENCY = 0xb5;
const ID_CHANNELS = 0x9f;
const ID_CLUSTER = 0x1f43b675;
const ID_BLOCK_GROUP = 0xa0;
const ID_BLOCK = 0xa1;
const ID_SIMPLE_BLOCK = 0xa3;

/** Containers whose children we need; everything else is skipped by its size. */
const ENTERED = new Set([ID_EBML, ID_SEGMENT, ID_TRACKS, ID_TRACK_ENTRY, ID_AUDIO, ID_CLUSTER, ID_BLOCK_GROUP]);
const TRACK_TYPE_AUDIO = 2;
/** Guard against absurd headers: no legitimate CodecID or DocType is this long. */
const MAX_STRING_BYTES = 256;

export interface WebmAudio {
  docType: string;
  codecId: string;
  codecPrivate?: Uint8Array;
  channels: number;
  sampleRate: number;
  frames: Uint8Array[];
}

interface Track {
  number?: number;
  type?: number;
  codecId?: string;
  codecPrivate?: Uint8Array;
  channels?: number;
  sampleRate?: number;
}

export function isWebm(head: Uint8Array): boolean {
  return head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3;
}

/** Variable-length integer: the count of leading zero bits of the first byte gives its length. */
function readVint(bytes: Uint8Array, offset: number, keepMarker: boolean): { value: number; length: number; unknown: boolean } | undefined {
  const first = bytes[offset];
  if (first === undefined || first === 0) return undefined;
  const length = Math.clz32(first) - 23; // clz32 of a byte is 24..31
  if (offset + length > bytes.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === (0xff >> length);
  for (let i = 1; i < length; i++) {
    const b = bytes[offset + i] as number;
    value = value * 256 + b;
    allOnes &&= b === 0xff;
  }
  return { value, length, unknown: !keepMarker && allOnes };
}

function readUint(bytes: Uint8Array): number {
  let value = 0;
  for (const b of bytes) value = value * 256 + b;
  return value;
}

function readFloat(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length === 4) return view.getFloat32(0);
  if (bytes.length === 8) return view.getFloat64(0);
  return 0;
}

function readString(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes.subarray(0, MAX_STRING_BYTES)).replace(/\0+$/, '');
}

/** Split a (Simple)Block payload into its frames, honouring the three lacing schemes. */
function blockFrames(block: Uint8Array): { track: number; frames: Uint8Array[] } {
  const track = readVint(block, 0, false);
  if (!track || block.length < track.length + 3) throw new AudioFormatError('Invalid WebM file: malformed block');
  const flags = block[track.length + 2] as number;
  let pos = track.length + 3;
  const lacing = (flags >> 1) & 3;
  if (lacing === 0) return { track: track.value, frames: [block.subarray(pos)] };

  const count = (block[pos++] ?? 0) + 1;
  const sizes: number[] = [];
  if (lacing === 1) {
    // Xiph lacing: each size is a run of 255s plus a final byte.
    for (let i = 0; i < count - 1; i++) {
      let size = 0;
      let b: number;
      do {
        b = block[pos++] ?? -1;
        if (b < 0) throw new AudioFormatError('Invalid WebM file: malformed lacing');
        size += b;
      } while (b === 255);
      sizes.push(size);
    }
  } else if (lacing === 3) {
    // EBML lacing: the first size is a vint, the others signed differences from the previous size.
    const firstSize = readVint(block, pos, false);
    if (!firstSize) throw new AudioFormatError('Invalid WebM file: malformed lacing');
    pos += firstSize.length;
    sizes.push(firstSize.value);
    for (let i = 1; i < count - 1; i++) {
      const diff = readVint(block, pos, false);
      if (!diff) throw new AudioFormatError('Invalid WebM file: malformed lacing');
      pos += diff.length;
      const bias = 2 ** (7 * diff.length - 1) - 1;
      sizes.push((sizes[i - 1] as number) + diff.value - bias);
    }
  }
  const remaining = block.length - pos - sizes.reduce((a, b) => a + b, 0);
  if (lacing === 2) {
    if (remaining % count !== 0) throw new AudioFormatError('Invalid WebM file: malformed lacing');
    sizes.length = 0;
    for (let i = 0; i < count; i++) sizes.push(remaining / count);
  } else {
    sizes.push(remaining);
  }
  const frames: Uint8Array[] = [];
  for (const size of sizes) {
    if (size < 0 || pos + size > block.length) throw new AudioFormatError('Invalid WebM file: malformed lacing');
    frames.push(block.subarray(pos, pos + size));
    pos += size;
  }
  return { track: track.value, frames };
}

/**
 * Demux the first audio track of a WebM/Matroska file. A file cut off mid-element (a recording whose upload
 * or writer stopped early) keeps the frames before the cut; a file with no audio track is an error.
 */
export function demuxWebm(bytes: Uint8Array): WebmAudio {
  if (!isWebm(bytes)) throw new AudioFormatError('Invalid WebM file: no EBML header');
  const tracks: Track[] = [];
  let current: Track | undefined;
  let audio: Track | undefined;
  let docType = '';
  const frames: Uint8Array[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const id = readVint(bytes, pos, true);
    const size = id && readVint(bytes, pos + id.length, false);
    if (!id || !size) break; // truncated tail
    const body = pos + id.length + size.length;
    if (ENTERED.has(id.value)) {
      if (id.value === ID_TRACK_ENTRY) tracks.push((current = {}));
      pos = body;
      continue;
    }
    if (size.unknown) throw new AudioFormatError('Invalid WebM file: an element of unknown size cannot be skipped');
    const end = body + size.value;
    if (end > bytes.length) break; // truncated tail
    const data = bytes.subarray(body, end);
    switch (id.value) {
      case ID_DOCTYPE:
        docType = readString(data);
        break;
      case ID_TRACK_NUMBER:
        if (current) current.number = readUint(data);
        break;
      case ID_TRACK_TYPE:
        if (current) current.type = readUint(data);
        break;
      case ID_CODEC_ID:
        if (current) current.codecId = readString(data);
        break;
      case ID_CODEC_PRIVATE:
        if (current) current.codecPrivate = data;
        break;
      case ID_SAMPLING_FREQUENCY:
        if (current) current.sampleRate = readFloat(data);
        break;
      case ID_CHANNELS:
        if (current) current.channels = readUint(data);
        break;
      case ID_SIMPLE_BLOCK:
      case ID_BLOCK: {
        audio ??= tracks.find((t) => t.type === TRACK_TYPE_AUDIO);
        if (!audio) throw new AudioFormatError('WebM file has no audio track');
        const block = blockFrames(data);
        if (block.track === audio.number) frames.push(...block.frames);
        break;
      }
      default:
        break;
    }
    pos = end;
  }
  if (docType !== 'webm' && docType !== 'matroska') {
    throw new AudioFormatError(`Invalid WebM file: document type "${docType}"`);
  }
  audio ??= tracks.find((t) => t.type === TRACK_TYPE_AUDIO);
  if (!audio) throw new AudioFormatError('WebM file has no audio track');
  return {
    docType,
    codecId: audio.codecId ?? '',
    codecPrivate: audio.codecPrivate,
    channels: audio.channels ?? 1,
    sampleRate: audio.sampleRate ?? 8000,
    frames,
  };
}
