// Files opened with Satchel (the desktop shell's "Open with", a second instance's arguments) arrive in the Inbox
// conversation through the upload's storing step: the bytes as they were, names as uploads get them, a symlink
// never followed, a folder or an oversized file said and skipped, a 7z refused with its reason.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedSession } from '../testing/stored-session.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { SEVEN_ZIP_REFUSED } from '../attachments/attach-kind.js';

const MAX_UPLOAD = 1024 * 1024;
let srv: TestServer;
let outside: string;
beforeAll(async () => {
  srv = await startTestServer({ maxUploadBytes: MAX_UPLOAD });
  outside = path.join(srv.tmp, 'Downloads');
  fs.mkdirSync(outside);
});
afterAll(() => srv.stop());

describe('desktop.addToInbox', () => {
  it('stores each file in the Inbox conversation; what it cannot take is said, the rest still arrive', async () => {
    const receipt = path.join(outside, 'receipt 2026.txt');
    fs.writeFileSync(receipt, 'paid in full');
    const secret = path.join(srv.tmp, 'id_ed25519');
    fs.writeFileSync(secret, 'PRIVATE');
    const link = path.join(outside, 'innocent.txt');
    fs.symlinkSync(secret, link);
    const big = path.join(outside, 'big.bin');
    fs.writeFileSync(big, Buffer.alloc(MAX_UPLOAD + 1));
    const sevenZip = path.join(outside, 'notes.7z');
    fs.writeFileSync(sevenZip, Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4]));

    const result = await srv.desktop.addToInbox([receipt, link, outside, big, sevenZip, 'relative.txt']);
    // Named as an upload of it would be (spaces become underscores: attachments/layout.ts).
    expect(result.added).toEqual(['receipt_2026.txt']);
    expect(result.skipped).toEqual([
      { path: link, reason: 'a symlink is not followed' },
      { path: outside, reason: 'not a regular file' },
      { path: big, reason: `larger than the upload limit (${MAX_UPLOAD} bytes)` },
      { path: sevenZip, reason: SEVEN_ZIP_REFUSED },
      { path: 'relative.txt', reason: 'not an absolute path' },
    ]);
    const inbox = (await storedSession(srv.stateDir, result.sessionId!))!;
    expect(inbox.title).toBe('Inbox');
    const stored = inbox.attachments as { filename: string; path: string }[];
    expect(stored.map((a) => a.filename)).toEqual(['receipt_2026.txt']);
    expect(fs.readFileSync(stored[0]!.path, 'utf8')).toBe('paid in full');
    // Nothing of the symlink's target was stored anywhere, and staging is empty again.
    expect(fs.readdirSync(path.join(srv.stateDir, 'staging'))).toEqual([]);

    // A second open goes to the same Inbox conversation.
    const again = await srv.desktop.addToInbox([receipt]);
    expect(again.sessionId).toBe(result.sessionId);
    expect(again.added).toEqual(['receipt_2026-1.txt']);
  });

  it('the tray reads and changes the watcher through the same hooks', async () => {
    expect(srv.desktop.watching.state()).toBe('none');
  });
});
