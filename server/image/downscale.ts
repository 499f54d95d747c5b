// Images for an agent: bounded in edge length and bytes, so a 24-megapixel photo dropped by a person reaches a
// model as something it accepts (vision models downscale past ~1.5 kpx anyway, and many refuse images over a few
// MiB), without the whole file in a JSON-RPC message.
//
// sharp (libvips) does the work in the OCR engine's worker (agent-image-source.ts), not in the server: under Node
// that worker is a child process that ends when idle, so the native memory libvips takes for a photo's pixels, and
// its threads' allocator arenas, leave with it (docs/benchmarks.md, issue 37 finding 8). The image reader warms the
// same worker for the OCR that follows, so the two share one start. sharp is loaded there at first use: a build
// that lacks its native binding still starts, and callers fall back to the original bytes within their own size
// cap and say so.
import { isRefusal, OcrError, ocrEngine, type OcrEngine } from '../ocr/engine.js';

export {
  AGENT_IMAGE_MAX_BYTES,
  AGENT_IMAGE_MAX_EDGE,
  IMAGE_RESIZE_TIMEOUT_SECONDS,
  JPEG_QUALITY,
  JPEG_QUALITY_FALLBACK,
  MAX_IMAGE_INPUT_BYTES,
  MAX_IMAGE_INPUT_PIXELS,
} from './limits.js';

export interface AgentImage {
  data: Buffer;
  mime: string;
  width: number;
  height: number;
  /** The file's own dimensions, to tell the agent what it is looking at. */
  originalWidth: number;
  originalHeight: number;
  /** False when the original bytes were good as they were. */
  resized: boolean;
}

/** Why an image could not be prepared, in words an agent or a person can act on. */
export class ImageError extends Error {}

/**
 * `bytes` as an image an agent can take: within AGENT_IMAGE_MAX_EDGE and AGENT_IMAGE_MAX_BYTES, in an accepted
 * format, EXIF orientation applied and metadata (location included) dropped. Returns undefined when no image
 * library is available here. Throws ImageError for a file that is not a readable image or is too large to
 * decode safely, and when the worker failed (`could not be converted (…)`). `engine`: the worker's owner (tests).
 */
export async function imageForAgent(bytes: Buffer, engine: OcrEngine = ocrEngine()): Promise<AgentImage | undefined> {
  let made;
  try {
    made = await engine.agentImage(bytes);
  } catch (err) {
    if (!(err instanceof OcrError)) throw err;
    throw new ImageError(isRefusal(err) ? err.message : `could not be converted (${err.message})`);
  }
  if ('none' in made) return undefined;
  if ('keep' in made) return { data: bytes, mime: made.mime, width: made.width, height: made.height, originalWidth: made.width, originalHeight: made.height, resized: false };
  return {
    data: Buffer.from(made.image.buffer, made.image.byteOffset, made.image.byteLength),
    mime: made.mime,
    width: made.width,
    height: made.height,
    originalWidth: made.originalWidth,
    originalHeight: made.originalHeight,
    resized: true,
  };
}
