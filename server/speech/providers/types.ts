// Shapes shared by every provider and the public index.

/** 4.5 step 4: a falsy `success` carries a client-facing `error` (503 when it says "unavailable" or
 *  "not configured", else 400). */
export interface TranscribeResult {
  success: boolean;
  transcript?: string;
  error?: string;
}

/** "Transcription tool missing": the handler answers 503 `Speech-to-text is unavailable on this server`. */
export class SttUnavailableError extends Error {
  constructor(message = 'Speech-to-text is unavailable on this server') {
    super(message);
    this.name = 'SttUnavailableError';
  }
}

export interface ProviderRunOptions {
  signal?: AbortSignal;
  /** The client's (sanitized) file name: hosted APIs pick the decoder from its extension. */
  filename?: string;
}
