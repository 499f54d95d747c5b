// POST /api/workspace/upload (spec-notes 4.7): files into the session's workspace, archives unpacked in place, Office
// documents given a Markdown preview beside them. The route reads the request, asks workspace/ where the files go
// (upload-target.ts), stores each (upload-store.ts), takes them all back on a failure (upload-undo.ts) and answers.
import path from 'node:path';
import type { HandlerInput } from '../app.js';
import { HttpError } from '../core/errors.js';
import { parseMultipart } from '../http/multipart.js';
import { SidecarBudget } from '../office/index.js';
import { sendJson } from '../http/respond.js';
import { publicWorkspaceUpload } from '../projections/index.js';
import { visibleSession } from '../store/profiles.js';
import { uploadTarget } from '../workspace/upload-target.js';
import { storeUploadPart, type PlacedPart } from '../workspace/upload-store.js';
import { undoUpload } from '../workspace/upload-undo.js';
import type { WorkspaceUploadResponse } from '../core/wire.js';

export async function uploadToWorkspace(input: HandlerInput): Promise<void> {
  const { ctx, app, profile } = input;
  const form = await parseMultipart(ctx, { stagingDir: app.stagingDir, capBytes: app.config.maxUploadBytes });
  const placed: PlacedPart[] = [];
  try {
    const sessionId = form.fields.get('session_id') ?? '';
    if (!sessionId) throw new HttpError(400, 'Missing session_id');
    const parts = form.fileParts();
    if (parts.length === 0) throw new HttpError(400, 'No file field in request');
    const session = await visibleSession(input.app.sessions, sessionId, input.profile);
    const workspace = await app.workspaces.validate(session.workspace);
    const requested = form.fields.get('path') ?? '';
    const created: string[] = [];
    const target = await uploadTarget(workspace, requested, created, form.fields.get('hidden') === '1', app.workspaces.protectedPlaces);
    // One allowance for every Office preview this request writes, however many files it carries or unpacks.
    const budget = new SidecarBudget();
    try {
      // All or nothing: a refused part (a bad name, a full disk) or a departed client takes back the earlier
      // parts. A client that leaves stops a running extraction (the extractor removes what it wrote).
      for (const file of parts) {
        if (!file.filename) continue;
        ctx.signal.throwIfAborted();
        placed.push(await storeUploadPart(file, target, app.config.maxUploadBytes, ctx.signal, budget));
      }
      ctx.signal.throwIfAborted();
    } catch (err) {
      await undoUpload(workspace, target, placed, created);
      throw err;
    } finally {
      await target.close();
    }
    app.events.publish({
      name: 'workspace_changed',
      profile,
      data: { session_id: session.session_id, path: path.relative(workspace, target.path).split(path.sep).join('/') },
    });
  } finally {
    await form.cleanup();
  }
  await sendJson(ctx, 200, publicWorkspaceUpload(placed.map((p) => p.item)) satisfies WorkspaceUploadResponse | undefined);
}
