// The bounds of an image handed to an agent (downscale.ts), apart from the code that applies them: the OCR engine,
// whose worker now makes the agent's image too (agent-image-source.ts), hands them to it, and reads images within
// the same pixel limit.

/** Longest edge, in pixels, of an image handed to an agent (Anthropic's and OpenAI's vision guidance: ~1.5 kpx). */
export const AGENT_IMAGE_MAX_EDGE = 1568;
/** Bytes of one encoded image handed to an agent; past it the image is re-encoded smaller. */
export const AGENT_IMAGE_MAX_BYTES = 1024 * 1024;
/** Decompression-bomb guard: images declaring more pixels than this are not decoded at all. */
export const MAX_IMAGE_INPUT_PIXELS = 50_000_000;
/** Bytes of an image file read for downscaling (a 50-megapixel JPEG is well under it). */
export const MAX_IMAGE_INPUT_BYTES = 48 * 1024 * 1024;
/** libvips stops a resize that takes longer than this (a hostile file crafted to be slow to decode). */
export const IMAGE_RESIZE_TIMEOUT_SECONDS = 10;
/** JPEG quality for photos; the second, smaller attempt when the first is still over the byte cap. */
export const JPEG_QUALITY = 82;
export const JPEG_QUALITY_FALLBACK = 65;
/** Edge of the second attempt, as a share of the first, when the first is still over the byte cap. */
export const SECOND_ATTEMPT_SCALE = 0.6;
/** libvips' reason in an ImageError: its first line, cut so a long one stays a message, not a dump. */
export const MAX_REASON_CHARS = 200;

/** What the worker is handed to make an agent's image (agent-image-source.ts `workerData.agentImage`). */
export const AGENT_IMAGE_WORKER_LIMITS = {
  maxEdge: AGENT_IMAGE_MAX_EDGE,
  maxBytes: AGENT_IMAGE_MAX_BYTES,
  maxInputPixels: MAX_IMAGE_INPUT_PIXELS,
  timeoutSeconds: IMAGE_RESIZE_TIMEOUT_SECONDS,
  jpegQuality: JPEG_QUALITY,
  jpegQualityFallback: JPEG_QUALITY_FALLBACK,
  secondAttemptScale: SECOND_ATTEMPT_SCALE,
  maxReasonChars: MAX_REASON_CHARS,
};
