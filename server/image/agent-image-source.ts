// The agent's image (downscale.ts) as the OCR worker makes it: appended to that worker's script
// (ocr/worker-source.ts), so sharp decodes and re-encodes in the worker's child process, which ends when idle, and
// the native memory libvips takes for a photo's pixels leaves with it (docs/benchmarks.md, issue 37 finding 8).
// It uses that script's loadSharp() and Refusal; its limits come in workerData.agentImage (downscale.ts's constants).
//
//   { id, op: 'agent-image', image } → { id, none: true } (no image library in this build)
//                                    | { id, keep: true, mime, width, height } (the person's bytes are fine as they are)
//                                    | { id, image, mime, width, height, originalWidth, originalHeight }
//                                    | { id, refused } (downscale.ts's sentence, word for word)
export const AGENT_IMAGE_WORKER_SOURCE = String.raw`
const AGENT_FORMATS = new Map([['png', 'image/png'], ['jpeg', 'image/jpeg'], ['gif', 'image/gif'], ['webp', 'image/webp']]);

// libvips' first line, without its 'Input buffer' prefix (it reports on a buffer, so there are no paths to hide).
function describeImageError(err, maxChars) {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0].replace(/^Input buffer /, '').slice(0, maxChars);
}

async function agentImage(bytes) {
  const sharp = loadSharp();
  if (!sharp) return { none: true };
  const c = workerData.agentImage;
  const open = () => sharp(bytes, { limitInputPixels: c.maxInputPixels, failOn: 'error', animated: false }).timeout({ seconds: c.timeoutSeconds });
  let meta;
  try {
    // The header decodes no pixels, so it is read without the pixel limit, to name the numbers when over it.
    meta = await sharp(bytes, { limitInputPixels: false, failOn: 'error' }).metadata();
  } catch (err) {
    throw new Refusal('not a readable image (' + describeImageError(err, c.maxReasonChars) + ')');
  }
  const width = (meta.autoOrient && meta.autoOrient.width) || meta.width;
  const height = (meta.autoOrient && meta.autoOrient.height) || meta.height;
  if (!width || !height) throw new Refusal('not a readable image (no dimensions)');
  if (width * height > c.maxInputPixels) {
    throw new Refusal('too large to decode safely (' + width + '×' + height + ' pixels; the limit is ' + c.maxInputPixels.toLocaleString('en-US') + ')');
  }
  const mime = meta.format ? AGENT_FORMATS.get(meta.format) : undefined;
  const oriented = (meta.orientation || 1) === 1;
  if (mime && oriented && Math.max(width, height) <= c.maxEdge && bytes.length <= c.maxBytes) return { keep: true, mime, width, height };
  const alpha = meta.hasAlpha === true;
  const attempt = (edge, quality) => {
    const pipeline = open().rotate().resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true });
    const out = alpha ? pipeline.png({ compressionLevel: 9, palette: true }) : pipeline.jpeg({ quality, mozjpeg: true });
    return out.toBuffer({ resolveWithObject: true });
  };
  let result;
  try {
    result = await attempt(c.maxEdge, c.jpegQuality);
    if (result.data.length > c.maxBytes) result = await attempt(Math.round(c.maxEdge * c.secondAttemptScale), c.jpegQualityFallback);
  } catch (err) {
    throw new Refusal('could not be converted (' + describeImageError(err, c.maxReasonChars) + ')');
  }
  if (result.data.length > c.maxBytes) throw new Refusal('still over ' + c.maxBytes + ' bytes after downscaling');
  // A plain copy: sharp's buffer is memory of its own that a message cannot always move.
  return { image: new Uint8Array(result.data), mime: alpha ? 'image/png' : 'image/jpeg', width: result.info.width, height: result.info.height, originalWidth: width, originalHeight: height };
}
`;
