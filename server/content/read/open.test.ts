// A workspace file as a turn reads it (open.ts openUnder with a WorkspaceRoot): by MCP's rules, whatever the
// listing saw. A folder swapped for a symlink after the walk leads the reader neither to a hidden folder, nor to a
// protected place, nor out of the workspace.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProtectedPlaces } from '../../store/protected.js';
import { closeOpened, openUnder, readAt } from './open.js';

let tmp: string;
let ws: string;
beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-open-ws-')));
  ws = path.join(tmp, 'home');
  fs.mkdirSync(path.join(ws, 'proj'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'proj', 'notes.md'), 'notes');
  fs.mkdirSync(path.join(ws, '.ssh'));
  fs.writeFileSync(path.join(ws, '.ssh', 'notes.md'), 'PRIVATE KEY');
  fs.mkdirSync(path.join(ws, 'state'));
  fs.writeFileSync(path.join(ws, 'state', 'notes.md'), 'agent.json');
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function text(file: string, guard?: ProtectedPlaces): Promise<string | undefined> {
  const opened = await openUnder([], file, false, { dir: ws, ...(guard ? { guard } : {}) });
  if (!opened) return undefined;
  try {
    return (await readAt(opened.handle, opened.size)).toString();
  } finally {
    await closeOpened(opened);
  }
}

describe('a workspace file read for a turn', () => {
  it('is read below the workspace, with no attachment root needed', async () => {
    expect(await text(path.join(ws, 'proj', 'notes.md'))).toBe('notes');
  });

  it('is refused when its real way goes through a hidden folder or a credential store', async () => {
    expect(await text(path.join(ws, '.ssh', 'notes.md'))).toBeUndefined();
    fs.rmSync(path.join(ws, 'proj'), { recursive: true });
    fs.symlinkSync(path.join(ws, '.ssh'), path.join(ws, 'proj'));
    expect(await text(path.join(ws, 'proj', 'notes.md'))).toBeUndefined();
  });

  it("is refused when its real way goes through a protected place (Satchel's state)", async () => {
    const guard = new ProtectedPlaces(() => ({ stateDir: path.join(ws, 'state'), home: path.join(tmp, 'elsewhere'), env: {} }));
    await guard.resolve();
    expect(await text(path.join(ws, 'state', 'notes.md'), guard)).toBeUndefined();
    fs.rmSync(path.join(ws, 'proj'), { recursive: true });
    fs.symlinkSync(path.join(ws, 'state'), path.join(ws, 'proj'));
    expect(await text(path.join(ws, 'proj', 'notes.md'), guard)).toBeUndefined();
  });

  it('is refused when a symlink leads out of the workspace', async () => {
    fs.mkdirSync(path.join(tmp, 'outside'));
    fs.writeFileSync(path.join(tmp, 'outside', 'notes.md'), 'outside');
    fs.rmSync(path.join(ws, 'proj'), { recursive: true });
    fs.symlinkSync(path.join(tmp, 'outside'), path.join(ws, 'proj'));
    expect(await text(path.join(ws, 'proj', 'notes.md'))).toBeUndefined();
  });
});

describe('an Office file in the workspace, read for a turn', () => {
  it('leaves the person\'s folder as it was: its Markdown is made, no sidecar is written beside it', async () => {
    const { buildDocx, wPara, wRun } = await import('../../office/testing/fixtures.js');
    const { readAttachment } = await import('./index.js');
    const { Budget } = await import('./budget.js');
    const file = path.join(ws, 'proj', 'memo.docx');
    fs.writeFileSync(file, await buildDocx(wPara(wRun('Pay within thirty days'))));
    const before = fs.readdirSync(path.join(ws, 'proj')).sort();
    const read = await readAttachment({ kind: 'file', filename: 'memo.docx', path: file, size: 0, mime: '', is_image: false }, new Budget(10_000), { roots: [], workspaceRoot: { dir: ws } });
    expect(read.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n')).toContain('Pay within thirty days');
    expect(fs.readdirSync(path.join(ws, 'proj')).sort()).toEqual(before);
  });
});
