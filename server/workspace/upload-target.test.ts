// Where a workspace upload goes, asked directly (the route's answers over sockets are in
// handlers/workspace-upload*.test.ts and security/state-folder.attack.test.ts): the refusals by name and by where
// a link on the way led, and that a refused target leaves no folder it made behind.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpError } from '../core/errors.js';
import { ProtectedPlaces } from '../store/protected.js';
import { CREDENTIAL_TARGET, HIDDEN_TARGET, PROTECTED_TARGET, TARGET_TOO_LONG, uploadTarget } from './upload-target.js';

let ws: string;
let outside: string;

beforeEach(async () => {
  ws = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-upload-target-')));
  outside = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-upload-outside-')));
});
afterEach(async () => {
  await fs.rm(ws, { recursive: true, force: true });
  await fs.rm(outside, { recursive: true, force: true });
});

/** The refusal uploadTarget threw, as status and text. */
async function refusal(run: Promise<unknown>): Promise<{ status: number; message: string }> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HttpError);
  return { status: (err as HttpError).status, message: (err as HttpError).message };
}

const exists = (p: string) => fs.lstat(p).then(() => true, () => false);

describe('uploadTarget', () => {
  it('makes the folders asked for, reports them parents first, and holds the last one open', async () => {
    const created: string[] = [];
    const dir = await uploadTarget(ws, 'a/b', created);
    try {
      expect(dir.path).toBe(path.join(ws, 'a', 'b'));
      expect(created).toEqual([path.join(ws, 'a'), path.join(ws, 'a', 'b')]);
      expect((await fs.stat(path.join(ws, 'a', 'b'))).isDirectory()).toBe(true);
    } finally {
      await dir.close();
    }
  });

  it('refuses a path out of the workspace and a link out of it, writing nothing outside', async () => {
    expect(await refusal(uploadTarget(ws, '../elsewhere'))).toEqual({ status: 403, message: 'Upload target escapes workspace' });
    await fs.symlink(outside, path.join(ws, 'out'));
    expect(await refusal(uploadTarget(ws, 'out/sub'))).toEqual({ status: 403, message: 'Upload target escapes workspace' });
    expect(await fs.readdir(outside)).toEqual([]);
  });

  it('refuses a credential folder and a hidden one by name, hidden ones allowed only when asked', async () => {
    expect(await refusal(uploadTarget(ws, 'home/.ssh'))).toEqual({ status: 403, message: CREDENTIAL_TARGET });
    expect(await refusal(uploadTarget(ws, '.cache/x'))).toEqual({ status: 403, message: HIDDEN_TARGET });
    expect(await exists(path.join(ws, 'home'))).toBe(false);
    expect(await exists(path.join(ws, '.cache'))).toBe(false);
    const dir = await uploadTarget(ws, '.cache/x', [], true);
    await dir.close();
    expect(await exists(path.join(ws, '.cache', 'x'))).toBe(true);
  });

  it('judges where a link inside the workspace led, and takes back the folder it made there', async () => {
    await fs.mkdir(path.join(ws, '.ssh'));
    await fs.symlink('.ssh', path.join(ws, 'keys'));
    await fs.mkdir(path.join(ws, '.notes'));
    await fs.symlink('.notes', path.join(ws, 'notes'));
    expect(await refusal(uploadTarget(ws, 'keys/new'))).toEqual({ status: 403, message: CREDENTIAL_TARGET });
    expect(await fs.readdir(path.join(ws, '.ssh'))).toEqual([]);
    const created: string[] = [];
    expect(await refusal(uploadTarget(ws, 'notes/new', created))).toEqual({ status: 403, message: HIDDEN_TARGET });
    expect(await fs.readdir(path.join(ws, '.notes'))).toEqual([]);
    expect(created).toEqual([]);
  });

  it('refuses a protected place before making anything in it', async () => {
    const stateDir = path.join(ws, 'Satchel state');
    await fs.mkdir(stateDir);
    const guard = new ProtectedPlaces(() => ({ stateDir, home: ws, env: {} }), () => 0, false);
    await guard.resolve();
    expect(await refusal(uploadTarget(ws, 'Satchel state/in/here', [], false, guard))).toEqual({ status: 403, message: PROTECTED_TARGET });
    expect(await fs.readdir(stateDir)).toEqual([]);
    await fs.symlink('Satchel state', path.join(ws, 'alias'));
    expect(await refusal(uploadTarget(ws, 'alias/in', [], false, guard))).toEqual({ status: 403, message: PROTECTED_TARGET });
    expect(await fs.readdir(stateDir)).toEqual([]);
  });

  it('refuses a folder name longer than the file system allows, with a 400 and nothing made', async () => {
    expect(await refusal(uploadTarget(ws, `ok/${'n'.repeat(256)}`))).toEqual({ status: 400, message: TARGET_TOO_LONG });
    expect(await exists(path.join(ws, 'ok'))).toBe(false);
  });
});
