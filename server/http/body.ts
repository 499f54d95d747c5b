// JSON request bodies of the non-upload POST handlers, bounded at 20 MiB (spec-notes 8), by an idle deadline (a
// client that declares a body and then sends nothing cannot hold the request open) and by a total one (nor can a
// client that trickles a byte now and then, each within the idle deadline).
import { HttpError } from '../core/errors.js';
import { framingRefusal } from './framing.js';
import { openBody, type RequestContext } from './respond.js';

export const MAX_JSON_BODY_BYTES = 20 * 1024 * 1024;
const MIB = 1024 * 1024;

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `Request body too large (max ${Math.floor(limit / MIB)}MB)`);
}

/** Read the whole body, at most `limit` bytes, each chunk within the context's idle deadline and all of it
 *  within its total deadline (both answered 408 `Request timed out`, as the specification's head timeout is). */
function readAll(ctx: RequestContext, limit: number): Promise<Buffer> {
  const req = openBody(ctx);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const idle = setTimeout(() => done(new HttpError(408, 'Request timed out')), ctx.bodyIdleTimeoutMs);
    const total = setTimeout(() => done(new HttpError(408, 'Request timed out')), ctx.bodyDeadlineMs);
    const onData = (chunk: Buffer): void => {
      idle.refresh();
      size += chunk.length;
      if (size > limit) return done(tooLarge(limit));
      chunks.push(chunk);
    };
    const onEnd = (): void => done();
    const onClose = (): void => {
      if (!req.complete) done(new HttpError(400, 'Request body incomplete'));
    };
    function done(err?: Error): void {
      clearTimeout(idle);
      clearTimeout(total);
      req.off('data', onData).off('end', onEnd).off('error', done).off('close', onClose);
      if (err) {
        // Stop reading: the lifecycle sees the body unread and closes the connection after the answer.
        req.pause();
        reject(err);
      } else {
        resolve(Buffer.concat(chunks));
      }
    }
    if (req.destroyed && !req.complete) return done(new HttpError(400, 'Request body incomplete'));
    req.on('data', onData).on('end', onEnd).on('error', done).on('close', onClose);
  });
}

export async function readJsonBody(ctx: RequestContext, limit = MAX_JSON_BODY_BYTES): Promise<Record<string, unknown>> {
  const refusal = framingRefusal(ctx.framing);
  if (refusal) throw new HttpError(...refusal);
  const length = ctx.framing.contentLength ?? 0;
  if (length > limit) throw tooLarge(limit);
  if (length === 0) return {};
  const raw = await readAll(ctx, limit);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new HttpError(400, 'Invalid JSON body');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new HttpError(400, 'JSON body must be an object');
  return parsed as Record<string, unknown>;
}
