// What the page asks first (configuration, profiles, whether speech-to-text is there) and every error's body.
// Apart from wire.d.ts (which re-exports it) so each topic of the API is one file under 400 lines.

/** GET /api/config */
export interface ConfigResponse {
  ok: true;
  version: string;
  max_upload_bytes: number;
  max_upload_mb: number;
  profile: string;
}

/** GET /api/profiles */
export interface ProfilesResponse {
  active: string;
  profiles: string[];
}

/** POST /api/transcribe */
export interface TranscribeResponse {
  ok: true;
  transcript: string;
}

/** GET /api/transcribe/capability */
export interface CapabilityResponse {
  ok: true;
  available: boolean;
  provider: string;
}

/** Every error answer. */
export interface ErrorResponse {
  error: string;
}
