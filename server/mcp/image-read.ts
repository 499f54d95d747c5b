// An image attachment or workspace file as MCP image content: downscaled to what an agent takes
// (server/image/downscale.ts), or, in a build without the image library, the original bytes when they are
// small enough and in a format agents accept. Never the whole of a huge file in one JSON-RPC message.
import { AGENT_IMAGE_MAX_BYTES, ImageError, imageForAgent, MAX_IMAGE_INPUT_BYTES } from '../image/downscale.js';
import { readWorkspaceBytes, type WorkspacePath } from '../store/anchored-browse.js';
import type { McpAttachmentContent as AttachmentContent } from '../projections/index.js';
import { MAX_IMAGE_BYTES } from './limits.js';
import { ocrHeader, recognize } from '../content/index.js';
import { redactText } from '../projections/index.js';

/** What an agent can take without conversion, when no image library is there to convert. */
const AGENT_READY = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export async function readImage(at: WorkspacePath, name: string, mime: string): Promise<AttachmentContent> {
  const { bytes, size } = await readWorkspaceBytes(at, MAX_IMAGE_INPUT_BYTES, true);
  if (size > MAX_IMAGE_INPUT_BYTES) {
    return { kind: 'binary', name, mime, size, note: `image larger than ${MAX_IMAGE_INPUT_BYTES} bytes: not read` };
  }
  let image;
  try {
    image = await imageForAgent(bytes);
  } catch (err) {
    if (!(err instanceof ImageError)) throw err;
    return { kind: 'binary', name, mime, size, note: `image not returned: ${err.message}` };
  }
  if (!image) {
    if (AGENT_READY.has(mime) && size <= MAX_IMAGE_BYTES) return { kind: 'image', name, mime, size, data: bytes.toString('base64'), note: `${name}: original bytes (this build has no image library to downscale)` };
    return { kind: 'binary', name, mime, size, note: 'image not returned: this build has no image library to convert or downscale it' };
  }
  const shown = image.resized
    ? `${name}: ${image.originalWidth}×${image.originalHeight} pixels, shown at ${image.width}×${image.height} (${image.mime}, at most ${AGENT_IMAGE_MAX_BYTES} bytes)`
    : `${name}: ${image.width}×${image.height} pixels, as stored`;
  // The words on-device OCR finds in it, as Satchel's own agent gets them (agent/read/image.ts, the same cache):
  // a client whose model reads images poorly still gets the text of a screenshot.
  const found = await recognize(bytes);
  const recognized = found.words > 0 ? { recognized: redactText(ocrHeader(name) + found.text) } : {};
  return { kind: 'image', name, mime: image.mime, size, data: image.data.toString('base64'), note: shown, ...recognized };
}
