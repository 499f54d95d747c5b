// Images for an agent: bounded in edge length and bytes, so a 24-megapixel photo dropped by a person reaches a
// model as something it accepts (vision models downscale past ~1.5 kpx anyway, and many refuse images over a few
// MiB), without the whole file in a JSON-RPC message. sharp (libvips) does the work off the event loop, in
// libuv's thread pool.
//
// sharp is loaded at first use, like ONNX Runtime: its native binding ships per platform and architecture
// (`@img/sharp-<os>-<arch>`), and a build that lacks it must still start. Without it, callers fall back to the
// original bytes within their own size cap and say so.
import type { Sharp, SharpOptions } from 'sharp';

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
const SECOND_ATTEMPT_SCALE = 0.6;
/** libvips' reason in an ImageError: its first line, cut so a long one stays a message, not a dump. */
const MAX_REASON_CHARS = 200;

/** The formats agents accept as image content; anything else (AVIF, TIFF, …) is converted. */
const AGENT_FORMATS = new Map([
  ['png', 'image/png'],
  ['jpeg', 'image/jpeg'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
]);

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

type SharpFactory = (input: Buffer, options?: SharpOptions) => Sharp;
let loaded: Promise<SharpFactory | undefined> | undefined;

/** sharp, or undefined when this build has no binding for the machine (checked once). */
export function loadSharp(): Promise<SharpFactory | undefined> {
  loaded ??= import('sharp').then(
    (mod) => {
      const sharp = mod.default;
      // Satchel resizes a few images on demand: libvips' operation cache would only hold memory.
      sharp.cache(false);
      return sharp as unknown as SharpFactory;
    },
    () => undefined,
  );
  return loaded;
}

/**
 * `bytes` as an image an agent can take: within AGENT_IMAGE_MAX_EDGE and AGENT_IMAGE_MAX_BYTES, in an accepted
 * format, EXIF orientation applied and metadata (location included) dropped. Returns undefined when no image
 * library is available here. Throws ImageError for a file that is not a readable image or is too large to
 * decode safely.
 */
export async function imageForAgent(bytes: Buffer): Promise<AgentImage | undefined> {
  const sharp = await loadSharp();
  if (!sharp) return undefined;
  const open = () => sharp(bytes, { limitInputPixels: MAX_IMAGE_INPUT_PIXELS, failOn: 'error', animated: false }).timeout({ seconds: IMAGE_RESIZE_TIMEOUT_SECONDS });
  let meta;
  try {
    // Reading the header decodes no pixels, so it runs without the pixel limit; the limit is checked here to
    // name the numbers, and again by libvips when decoding.
    meta = await sharp(bytes, { limitInputPixels: false, failOn: 'error' }).metadata();
  } catch (err) {
    throw new ImageError(`not a readable image (${describe(err)})`);
  }
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (!width || !height) throw new ImageError('not a readable image (no dimensions)');
  if (width * height > MAX_IMAGE_INPUT_PIXELS) {
    throw new ImageError(`too large to decode safely (${width}×${height} pixels; the limit is ${MAX_IMAGE_INPUT_PIXELS.toLocaleString('en-US')})`);
  }
  const mime = meta.format ? AGENT_FORMATS.get(meta.format) : undefined;
  const oriented = (meta.orientation ?? 1) === 1;
  // Already fine: keep the person's bytes exactly (no generation loss) when nothing would change.
  if (mime && oriented && Math.max(width, height) <= AGENT_IMAGE_MAX_EDGE && bytes.length <= AGENT_IMAGE_MAX_BYTES) {
    return { data: bytes, mime, width, height, originalWidth: width, originalHeight: height, resized: false };
  }
  // Transparency needs PNG; everything else is a photo or a screenshot, and JPEG keeps either small.
  const alpha = meta.hasAlpha === true;
  const attempt = async (edge: number, quality: number) => {
    const pipeline = open().rotate().resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true });
    const out = alpha ? pipeline.png({ compressionLevel: 9, palette: true }) : pipeline.jpeg({ quality, mozjpeg: true });
    return out.toBuffer({ resolveWithObject: true });
  };
  try {
    let result = await attempt(AGENT_IMAGE_MAX_EDGE, JPEG_QUALITY);
    if (result.data.length > AGENT_IMAGE_MAX_BYTES) {
      result = await attempt(Math.round(AGENT_IMAGE_MAX_EDGE * SECOND_ATTEMPT_SCALE), JPEG_QUALITY_FALLBACK);
    }
    if (result.data.length > AGENT_IMAGE_MAX_BYTES) throw new ImageError(`still over ${AGENT_IMAGE_MAX_BYTES} bytes after downscaling`);
    return {
      data: result.data,
      mime: alpha ? 'image/png' : 'image/jpeg',
      width: result.info.width,
      height: result.info.height,
      originalWidth: width,
      originalHeight: height,
      resized: true,
    };
  } catch (err) {
    if (err instanceof ImageError) throw err;
    throw new ImageError(`could not be converted (${describe(err)})`);
  }
}

/** libvips' first line, without file paths or addresses (it reports on a buffer, so there are none to hide). */
function describe(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]!.replace(/^Input buffer /, '').slice(0, MAX_REASON_CHARS);
}
