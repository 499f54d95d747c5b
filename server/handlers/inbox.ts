// The Inbox settings routes (docs/API.md "Inbox folders"): the folders watched for the active profile, adding
// and removing one, and pausing (the tray's "Pause watching"). A refused folder is a 400 with the rule's words.
import type { HandlerInput } from '../app.js';
import type { InboxFoldersResponse } from '../core/wire.js';
import { ValueError } from '../core/errors.js';
import { readJsonBody } from '../http/body.js';
import { sendJson } from '../http/respond.js';
import { serverValue } from '../projections/brand.js';

async function answer(input: HandlerInput): Promise<void> {
  const inbox = input.app.inbox;
  // Paths are the person's own folders and the errors are the rules' fixed words: sent as they are.
  const folders = inbox.list(input.profile).map((f) => ({
    path: serverValue(f.path),
    source: f.source,
    status: f.status,
    ...(f.error !== undefined ? { error: serverValue(f.error) } : {}),
    // The names of the person's own files not taken, and the watcher's fixed reasons.
    ...(f.skipped ? { skipped: f.skipped.map((x) => ({ name: serverValue(x.name), reason: serverValue(x.reason) })) } : {}),
  }));
  // `satisfies`: the page's type (wire.d.ts) holds the shape, while the strings keep their brands for sendJson.
  await sendJson(input.ctx, 200, { folders, paused: inbox.isPaused, counts: { ...inbox.counts } } satisfies InboxFoldersResponse);
}

export function getInboxFolders(input: HandlerInput): Promise<void> {
  return answer(input);
}

/** `{ "add": "/abs/folder" }` or `{ "remove": "/abs/folder" }`. */
export async function changeInboxFolders(input: HandlerInput): Promise<void> {
  const body = await readJsonBody(input.ctx);
  if (body.add !== undefined) await input.app.inbox.addFolder(body.add, input.profile);
  else if (body.remove !== undefined) await input.app.inbox.removeFolder(body.remove, input.profile);
  else throw new ValueError('Send "add" or "remove" with a folder path');
  await answer(input);
}

/** `{ "paused": true | false }`. */
export async function pauseInbox(input: HandlerInput): Promise<void> {
  const body = await readJsonBody(input.ctx);
  if (typeof body.paused !== 'boolean') throw new ValueError('"paused" must be true or false');
  await input.app.inbox.setPaused(body.paused);
  await answer(input);
}
