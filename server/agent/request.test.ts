// The request builder's workspace (request.ts turnWorkspace): the session's folder as valid at the turn's start,
// walked since the previous turn started; gone or no longer valid, the turn has none and goes on.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../store/sessions.js';
import { Workspaces } from '../store/workspaces.js';
import { previousTurnStart, turnWorkspace, type TurnWorkspace } from './request.js';

let tmp: string;
let workspaces: Workspaces;
beforeEach(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-request-ws-')));
  fs.mkdirSync(path.join(tmp, 'state'));
  fs.mkdirSync(path.join(tmp, 'home'));
  workspaces = new Workspaces(path.join(tmp, 'state'), path.join(tmp, 'home'), path.join(tmp, 'home'));
  await workspaces.load();
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** As app.ts gives it: validated now, else none. */
const workspaceOf = async (s: Session): Promise<TurnWorkspace | undefined> => {
  const dir = await workspaces.validate(s.workspace).catch(() => undefined);
  return dir === undefined ? undefined : { dir, guard: workspaces.protectedPlaces };
};
const session = (workspace: unknown, messages: Session['messages'] = []) => ({ session_id: 's1', workspace, messages }) as unknown as Session;

describe("a turn's workspace", () => {
  it('is the folder as valid now, its files changed since the previous turn started', async () => {
    const proj = path.join(tmp, 'home', 'proj');
    fs.mkdirSync(proj);
    fs.writeFileSync(path.join(proj, 'old.md'), 'o');
    fs.utimesSync(path.join(proj, 'old.md'), 1000, 1000);
    fs.writeFileSync(path.join(proj, 'new.md'), 'n');
    const rows = [
      { role: 'user', content: 'q', timestamp: 2000 },
      { role: 'assistant', content: 'a', timestamp: 2001 },
    ] as Session['messages'];
    const got = await turnWorkspace(session(proj, rows), workspaceOf);
    expect(got?.context.listing).toBe('The conversation has a workspace "proj" (2 files):\n- new.md (1 bytes)\n- old.md (1 bytes)');
    expect(got?.context.changed.map((d) => d.name)).toEqual(['new.md']);
    expect(got?.context.files.map((d) => d.name)).toEqual(['old.md']);
  });

  it('removed between turns: none, and no error', async () => {
    const proj = path.join(tmp, 'home', 'gone');
    fs.mkdirSync(proj);
    fs.writeFileSync(path.join(proj, 'a.md'), 'a');
    expect((await turnWorkspace(session(proj), workspaceOf))?.context.name).toBe('gone');
    fs.rmSync(proj, { recursive: true });
    expect(await turnWorkspace(session(proj), workspaceOf)).toBeUndefined();
    // Removed after it was validated, before the walk: none too.
    expect(await turnWorkspace(session(proj), async () => ({ dir: proj }))).toBeUndefined();
  });

  it('none for a session without one, an empty one, or one that is no longer allowed (the state folder)', async () => {
    fs.mkdirSync(path.join(tmp, 'home', 'empty'));
    expect(await turnWorkspace(session(path.join(tmp, 'home', 'empty')), workspaceOf)).toBeUndefined();
    expect(await turnWorkspace(session(undefined), workspaceOf)).toBeUndefined();
    fs.writeFileSync(path.join(tmp, 'state', 'agent.json'), '{}');
    expect(await turnWorkspace(session(path.join(tmp, 'state')), workspaceOf)).toBeUndefined();
    expect(await turnWorkspace(session('/tmp/x'), undefined)).toBeUndefined();
  });

  it("the previous turn started at the last user row's time; before the first turn, never", () => {
    expect(previousTurnStart([])).toBeUndefined();
    expect(previousTurnStart([{ role: 'user', timestamp: 5 }, { role: 'assistant', timestamp: 6 }, { role: 'user', timestamp: 9 }, { role: 'system', timestamp: 12 }])).toBe(9);
  });
});
