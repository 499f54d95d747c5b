// "Open with Satchel" of single files from protected places (issue 33, finding 7): a local process can start
// Satchel with any argument, so each file is judged by where it really is. Before the fix only the folder ~/.ssh
// was refused; these files were all taken, and the MCP token then showed in the preview and in MCP.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';
import { storedSession } from '../testing/stored-session.js';
import { OPEN_CREDENTIAL, OPEN_PROTECTED, OPEN_SYSTEM } from './open-with.js';
import { HARD_LINK_REFUSED } from './rules.js';

let srv: TestServer;
let home: string;
beforeAll(async () => {
  srv = await startTestServer();
  home = path.join(srv.tmp, 'home');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY----- the key');
  // A folder that is a symlink to the credential folder: the path given never names `.ssh`.
  fs.symlinkSync(path.join(home, '.ssh'), path.join(home, 'keys'));
});
afterAll(() => srv.stop());

describe('Open with Satchel refuses protected files by their real path', () => {
  it('a key, a key through a symlinked folder, the MCP token, the database, /proc/self/environ and /etc/passwd are refused with why; nothing is stored', async () => {
    const token = path.join(srv.stateDir, 'mcp-token');
    const db = path.join(srv.stateDir, 'satchel.db');
    expect(fs.existsSync(token) && fs.existsSync(db)).toBe(true);
    const items = [path.join(home, '.ssh', 'id_rsa'), path.join(home, 'keys', 'id_rsa'), token, db, '/proc/self/environ', '/etc/passwd'];
    const result = await srv.desktop.addToInbox(items);
    expect(result.added).toEqual([]);
    expect(result.skipped).toEqual([
      { path: items[0], reason: OPEN_CREDENTIAL },
      { path: items[1], reason: OPEN_CREDENTIAL },
      { path: token, reason: OPEN_PROTECTED },
      { path: db, reason: OPEN_PROTECTED },
      { path: '/proc/self/environ', reason: OPEN_SYSTEM },
      { path: '/etc/passwd', reason: OPEN_SYSTEM },
    ]);
    expect(result.sessionId).toBeUndefined();
    expect(fs.readdirSync(path.join(srv.stateDir, 'staging'))).toEqual([]);
  });

  it('a hard link to a key, put in an ordinary folder, is refused; an ordinary file beside it is taken', async () => {
    const downloads = path.join(srv.tmp, 'Downloads');
    fs.mkdirSync(downloads);
    const linked = path.join(downloads, 'notes.txt');
    fs.linkSync(path.join(home, '.ssh', 'id_rsa'), linked);
    const plain = path.join(downloads, 'plain.txt');
    fs.writeFileSync(plain, 'just notes');
    const result = await srv.desktop.addToInbox([linked, plain]);
    expect(result.skipped).toEqual([{ path: linked, reason: HARD_LINK_REFUSED }]);
    expect(result.added).toEqual(['plain.txt']);
    const inbox = (await storedSession(srv.stateDir, result.sessionId!))!;
    expect(JSON.stringify(inbox)).not.toContain('PRIVATE KEY');
    // Opened as a folder, the same hard link is refused too.
    const again = await srv.desktop.addToInbox([downloads]);
    expect(again.skipped).toEqual([{ path: linked, reason: HARD_LINK_REFUSED }]);
    expect(again.added).toEqual(['plain-1.txt']);
  });
});
