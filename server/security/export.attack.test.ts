// Threat: an export file built to escape (a member outside its folder, a reference to a file outside the new
// session's folder, an archive bomb, internal fields of another session), and an export that would carry what
// must not leave (a secret in a message, a file a symlink points at). Each import that is refused leaves nothing.
import fs from 'node:fs/promises';
import path from 'node:path';
import yazl from 'yazl';
import { describe, expect, it } from 'vitest';
import { yazlZip } from '../archive/testing/fixtures.js';
import { missingAttachment } from '../export/read-export.js';
import { postMultipart } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { storedJson } from '../testing/stored-session.js';

const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const UPLOAD_CAP = 1024 * 1024;

const srv = testServerForFile({ maxUploadBytes: UPLOAD_CAP });

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;
const importFile = (filename: string, content: Buffer | string) => postMultipart(srv, '/api/session/import', [{ name: 'file', filename, content }]);
const DOC = { satchel_export: 1, title: 'Evil', messages: [{ role: 'user', content: 'hi' }], attachments: [] };

async function footprint(): Promise<Json> {
  const list = (await (await srv.api('/api/sessions')).json()) as Json;
  return {
    sessions: (list.sessions as Json[]).map((s) => s.session_id).sort(),
    folders: (await fs.readdir(path.join(srv.stateDir, 'attachments')).catch(() => [])).sort(),
    staging: await fs.readdir(path.join(srv.stateDir, 'staging')),
    outside: await fs.readdir(srv.tmp),
  };
}

/** A zip whose member `name` (which yazl itself refuses to write) is patched in over a placeholder of its length. */
async function zipWithMember(name: string, content: string): Promise<Buffer> {
  const placeholder = 'x'.repeat(name.length);
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(JSON.stringify(DOC)), 'conversation.json', { compress: false });
  zip.addBuffer(Buffer.from(content), placeholder, { compress: false });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.from(Buffer.concat(chunks).toString('latin1').split(placeholder).join(name), 'latin1');
}

describe('import refuses an export built to escape, and leaves nothing', () => {
  it('a member outside its folder: Zip-slip blocked, no file written anywhere', async () => {
    const before = await footprint();
    const member = 'attachments/../../../../../evil.txt';
    const res = await importFile('x.zip', await zipWithMember(member, 'escaped'));
    expect([res.status, res.body]).toEqual([400, { error: `Zip-slip blocked: ${member}` }]);
    expect(await footprint()).toEqual(before);
  });

  it.each(['/etc/passwd', 'attachments/../../sessions', 'attachments/sub/../../x', '../attachments/a.txt'])('a reference to %s names nothing the import placed', async (ref) => {
    const before = await footprint();
    const doc = { ...DOC, attachments: [{ filename: 'a.txt', path: ref, size: 1, mime: 'text/plain', is_image: false }] };
    const res = await importFile('x.zip', await yazlZip({ 'conversation.json': JSON.stringify(doc), 'attachments/a.txt': 'a' }));
    expect([res.status, res.body]).toEqual([400, { error: missingAttachment(ref) }]);
    expect(await footprint()).toEqual(before);
  });

  it('an archive bomb: the extractor’s cap on unpacked bytes, and nothing left', async () => {
    const before = await footprint();
    const bomb = await yazlZip({ 'conversation.json': JSON.stringify(DOC), 'attachments/zeros.bin': Buffer.alloc(10 * UPLOAD_CAP + 1) });
    expect(bomb.length).toBeLessThan(UPLOAD_CAP);
    const res = await importFile('bomb.zip', bomb);
    expect([res.status, res.body]).toEqual([400, { error: `Extraction too large (max ${10 * UPLOAD_CAP} bytes). Possible zip bomb.` }]);
    expect(await footprint()).toEqual(before);
  });

  it('internal fields of another session (a running turn, Hermes’ ids, its workspace) do not come along', async () => {
    const doc = {
      ...DOC,
      workspace: '/etc',
      profile: 'work',
      active_stream_id: 'abc',
      imported_at: '2001-01-01T00:00:00.000Z',
      _hermes: { session: 'x' },
      messages: [{ role: 'user', content: 'hi', _active_turn_token: 't', _hermes_turn: 3, api_content: 'x' }],
    };
    const res = await importFile('x.json', JSON.stringify(doc));
    expect(res.status).toBe(200);
    const stored = (await storedJson(srv.stateDir, res.body.session.session_id)) as Json;
    expect(stored.workspace).toBe(srv.workspace);
    expect(stored.profile).toBe('default');
    // `imported_at` is Satchel's own mark of an import (issue 38, item 5), set here, never taken from the file.
    expect(Object.keys(stored).sort()).toEqual(['attachments', 'created_at', 'imported_at', 'messages', 'profile', 'session_id', 'title', 'updated_at', 'workspace']);
    expect(Date.parse(String(stored.imported_at))).toBeGreaterThan(Date.now() - 60_000);
    expect(stored.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });
});

describe('an export carries nothing that must not leave', () => {
  it('a secret in a message is redacted as on the page; a file a symlink points at is not in the archive', async () => {
    const id = await srv.newSession();
    await srv.json('/api/session/message', { session_id: id, text: `my token ${SECRET}` });
    const folder = path.join(srv.stateDir, 'attachments', id);
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(path.join(folder, 'kept.txt'), 'kept');
    const outside = path.join(srv.tmp, 'outside-secret.txt');
    await fs.writeFile(outside, SECRET);
    await fs.symlink(outside, path.join(folder, 'link.txt'));
    const res = await srv.api(`/api/session/export?session_id=${id}&format=json`);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.toString('latin1')).not.toContain(SECRET);
    expect(bytes.toString('latin1')).toContain('attachments/kept.txt');
    expect(bytes.toString('latin1')).not.toContain('link.txt');
  });
});
