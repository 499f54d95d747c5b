// GET /api/workspaces and POST /api/workspaces/add: the trusted workspace roots (store/workspaces.ts).
import { requireFields } from '../core/errors.js';
import type { HandlerInput } from '../app.js';
import { readJsonBody } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import { publicWorkspaceRoots } from '../projections/index.js';
import type { WorkspaceRoots } from '../core/wire.js';

// `default` is where a session made without a workspace works, so the UI can preselect it: the roots also
// hold the home folder, which trusts the folders under it but is no workspace to offer by default.
export async function listWorkspaces({ ctx, app }: HandlerInput): Promise<void> {
  await sendJson(ctx, 200, publicWorkspaceRoots(app.workspaces.roots(), app.workspaces.fallbackWorkspace) satisfies WorkspaceRoots);
}

export async function addWorkspace({ ctx, app }: HandlerInput): Promise<void> {
  const body = await readJsonBody(ctx);
  requireFields(body, ['path']);
  await sendJson(ctx, 200, publicWorkspaceRoots(await app.workspaces.add(body.path), app.workspaces.fallbackWorkspace) satisfies WorkspaceRoots);
}
