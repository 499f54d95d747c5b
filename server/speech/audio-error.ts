// Kept in its own module so the demuxers and decoders can throw it without importing audio.ts (no cycles).

/** The audio cannot be decoded: unknown or malformed format, or a missing decoder. The text is client-safe. */
export class AudioFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AudioFormatError';
  }
}

/** The decoded audio would exceed the length we agree to hold in memory and transcribe. */
export class AudioTooLongError extends AudioFormatError {
  constructor(limitSeconds: number) {
    super(`Audio is too long to transcribe (the limit is ${Math.round(limitSeconds / 60)} minutes)`);
    this.name = 'AudioTooLongError';
  }
}
