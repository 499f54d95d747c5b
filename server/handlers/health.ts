// GET /health and /api/health/agent (answered without the access check, see routes.ts) and GET /api/config.
import type { HandlerInput } from '../app.js';
import { sendJson } from '../http/respond.js';
import { publicConfig } from '../projections/index.js';
import type { ConfigResponse } from '../core/wire.js';

export async function health(input: HandlerInput): Promise<void> {
  await sendJson(input.ctx, 200, { ok: true }, { compact: true });
}

export async function config({ ctx, app, profile }: HandlerInput): Promise<void> {
  const max = app.config.maxUploadBytes;
  await sendJson(
    ctx,
    200,
    publicConfig({
      ok: true,
      version: app.version,
      max_upload_bytes: max,
      max_upload_mb: Math.floor(max / 1024 / 1024),
      profile,
    }) satisfies ConfigResponse,
  );
}
