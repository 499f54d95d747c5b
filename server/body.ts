// JSON request bodies of the non-upload POST handlers, bounded at 20 MiB (section 8).
import { transferEncodingError } from './clienterror.js';
import { HttpError } from './errors.js';
import type { RequestContext } from './respond.js';

export const MAX_JSON_BODY_BYTES = 20 * 1024 * 1024;

export async function readJsonBody(ctx: RequestContext, limit = MAX_JSON_BODY_BYTES): Promise<Record<string, unknown>> {
  const { framing, req } = ctx;
  if (framing.transferEncoding !== undefined) throw new HttpError(411, transferEncodingError(framing.transferEncoding));
  if (framing.contentLengthUnreadable) throw new HttpError(400, 'Invalid Content-Length');
  const length = framing.contentLength ?? 0;
  if (length > limit) throw new HttpError(413, `Request body too large (max ${Math.floor(limit / 1024 / 1024)}MB)`);
  if (length === 0) {
    ctx.bodyConsumed = true;
    return {};
  }
  const chunks: Buffer[] = [];
  let size = 0;
  await new Promise<void>((resolve, reject) => {
    if (req.destroyed && !req.complete) return reject(new HttpError(400, 'Request body incomplete'));
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        reject(new HttpError(413, `Request body too large (max ${Math.floor(limit / 1024 / 1024)}MB)`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve());
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new HttpError(400, 'Request body incomplete'));
    });
  });
  ctx.bodyConsumed = true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'Invalid JSON body');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new HttpError(400, 'JSON body must be an object');
  return parsed as Record<string, unknown>;
}
