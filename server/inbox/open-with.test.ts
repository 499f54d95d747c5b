// Files opened with Satchel (the desktop shell's "Open with", a second instance's arguments) arrive in the Inbox
// conversation (or the one in use) through the upload's storing step: the bytes as they were, names as uploads get
// them, a symlink never followed, an oversized file said and skipped, a 7z refused with its reason, and a folder
// taken as a dropped folder is: its files, flat, hidden and temporary ones left out, bounded.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedSession } from '../testing/stored-session.js';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { SEVEN_ZIP_REFUSED } from '../attachments/attach-kind.js';
import { WATCH_CREDENTIAL } from './folders.js';
import { MAX_OPENED_FILES } from './open-with.js';

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

    const fifo = path.join(outside, 'pipe');
    execFileSync('mkfifo', [fifo]);

    const result = await srv.desktop.addToInbox([receipt, link, fifo, big, sevenZip, 'relative.txt']);
    // Named as an upload of it would be (spaces become underscores: attachments/layout.ts).
    expect(result.added).toEqual(['receipt_2026.txt']);
    expect(result.skipped).toEqual([
      { path: link, reason: 'a symlink is not followed' },
      { path: fifo, reason: 'not a regular file' },
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

  it('an opened folder brings its files, flat and in name order; hidden, temporary and symlinked entries stay out', async () => {
    const scans = path.join(srv.tmp, 'Scans');
    fs.mkdirSync(path.join(scans, '2026', '11'), { recursive: true });
    fs.mkdirSync(path.join(scans, '.git'));
    fs.writeFileSync(path.join(scans, 'b-letter.txt'), 'letter');
    fs.writeFileSync(path.join(scans, 'a-invoice.txt'), 'invoice');
    fs.writeFileSync(path.join(scans, '2026', '11', 'scan-001.txt'), 'scan one');
    fs.writeFileSync(path.join(scans, '.DS_Store'), 'x');
    fs.writeFileSync(path.join(scans, '.git', 'config'), '[core]');
    fs.writeFileSync(path.join(scans, 'c-draft.docx.crdownload'), 'half');
    fs.writeFileSync(path.join(srv.tmp, 'id_rsa'), 'PRIVATE');
    fs.symlinkSync(path.join(srv.tmp, 'id_rsa'), path.join(scans, 'd-key.txt'));
    fs.symlinkSync(srv.tmp, path.join(scans, 'e-everything'));

    const result = await srv.desktop.addToInbox([scans]);
    expect(result.added).toEqual(['scan-001.txt', 'a-invoice.txt', 'b-letter.txt']);
    expect(result.skipped).toEqual([
      { path: path.join(scans, 'd-key.txt'), reason: 'a symlink is not followed' },
      { path: path.join(scans, 'e-everything'), reason: 'a symlink is not followed' },
    ]);
    const inbox = (await storedSession(srv.stateDir, result.sessionId!))!;
    const byName = new Map((inbox.attachments as { filename: string; path: string }[]).map((a) => [a.filename, a.path]));
    expect(fs.readFileSync(byName.get('scan-001.txt')!, 'utf8')).toBe('scan one');
    expect(JSON.stringify(inbox)).not.toContain('PRIVATE');
  });

  it('an opened folder that is a credential store, or a symlink to one, is refused with the rule\'s words', async () => {
    const home = path.join(srv.tmp, 'home');
    fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
    fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE');
    fs.symlinkSync(path.join(home, '.ssh'), path.join(home, 'keys'));
    const result = await srv.desktop.addToInbox([path.join(home, '.ssh'), path.join(home, 'keys')]);
    expect(result.added).toEqual([]);
    expect(result.skipped).toEqual([
      { path: path.join(home, '.ssh'), reason: WATCH_CREDENTIAL },
      { path: path.join(home, 'keys'), reason: 'a symlink is not followed' },
    ]);
  });

  it('at most MAX_OPENED_FILES files from one open, folders included; the rest is said', async () => {
    const many = path.join(srv.tmp, 'many');
    fs.mkdirSync(many);
    for (let i = 0; i < MAX_OPENED_FILES + 2; i++) fs.writeFileSync(path.join(many, `f${String(i).padStart(3, '0')}.txt`), String(i));
    const result = await srv.desktop.addToInbox([many]);
    expect(result.added).toHaveLength(MAX_OPENED_FILES);
    expect(result.skipped).toEqual([{ path: path.join(many, `f${MAX_OPENED_FILES}.txt`), reason: `more than ${MAX_OPENED_FILES} files at once` }]);
  });

  it('openWithTo "current": the files go to the conversation last in use, not the Inbox', async () => {
    const current = await srv.newSession();
    const note = path.join(outside, 'note.txt');
    fs.writeFileSync(note, 'for the current one');
    const result = await srv.desktop.addToInbox([note], 'current');
    expect(result.sessionId).toBe(current);
    const session = (await storedSession(srv.stateDir, current))!;
    expect((session.attachments as { filename: string }[]).map((a) => a.filename)).toEqual(['note.txt']);
  });

  it('the tray reads and changes the watcher through the same hooks', async () => {
    expect(srv.desktop.watching.state()).toBe('none');
  });
});
