// The draft routes over a real socket: a draft survives a restart of the server (a new process would have a
// new token; the state directory is what stays), a chip removed from a draft takes its file along, and a file a
// sent message refers to cannot be removed.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { yazlZip } from '../archive/testing/fixtures.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';

const srv = testServerForFile();

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function upload(s: TestServer, sessionId: string, filename: string, content: string | Buffer): Promise<Json> {
  const res = await postMultipart(s, '/api/upload', [{ name: 'session_id', content: sessionId }, { name: 'file', filename, content }]);
  expect(res.status).toBe(200);
  return res.body;
}

const put = (s: TestServer, body: unknown) => s.api('/api/session/draft', { method: 'PUT', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
const get = async (s: TestServer, id: string) => (await (await s.api(`/api/session/draft?session_id=${id}`)).json()) as { draft: Json };
const del = (s: TestServer, id: string, p: string) => s.api(`/api/session/attachment?${new URLSearchParams({ session_id: id, path: p })}`, { method: 'DELETE' });

describe('drafts', () => {
  it('keeps text and chips across a restart of the server', async () => {
    const first = await startTestServer();
    try {
      const id = await first.newSession();
      const a = await upload(first, id, 'notes.txt', 'hello');
      const res = await put(first, { session_id: id, text: 'half a thought', attachments: [{ path: a.path }] });
      expect(res.status).toBe(200);
      await first.close();
      const second = await startTestServer({ stateDir: first.stateDir });
      try {
        const { draft } = await get(second, id);
        expect(draft).toMatchObject({ text: 'half a thought', attachments: [{ filename: 'notes.txt', path: a.path, size: 5 }] });
      } finally {
        await second.stop();
      }
    } finally {
      await fs.rm(first.tmp, { recursive: true, force: true });
    }
  });

  it('keeps an extraction with its archive chip, and an empty draft removes the file', async () => {
    const id = await srv.newSession();
    const zip = await yazlZip({ 'report/table.csv': Buffer.from('a,b\n') });
    const a = await upload(srv, id, 'report.zip', zip);
    const x = await postMultipart(srv, '/api/upload/extract', [{ name: 'session_id', content: id }, { name: 'file', filename: 'report.zip', content: zip }]);
    expect(x.status).toBe(200);
    const extract = { dest: x.body.dest, extracted: x.body.extracted, files: x.body.files };
    expect((await put(srv, { session_id: id, text: '', attachments: [{ path: a.path, extract }] })).status).toBe(200);
    expect((await get(srv, id)).draft.attachments[0].extract).toEqual(extract);
    expect((await put(srv, { session_id: id, text: '', attachments: [] })).status).toBe(200);
    expect(await get(srv, id)).toEqual({ draft: { text: '', attachments: [] } });
    await expect(fs.access(path.join(srv.stateDir, 'drafts', `${id}.json`))).rejects.toThrow();
  });

  it('refuses what the session did not store, and what is too long', async () => {
    const id = await srv.newSession();
    const unknown = await put(srv, { session_id: id, text: 'x', attachments: [{ path: '/etc/passwd' }] });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({ error: 'Unknown attachment' });
    const a = await upload(srv, id, 'a.txt', 'a');
    const outside = await put(srv, { session_id: id, attachments: [{ path: a.path, extract: { dest: '/tmp', extracted: 1, files: [] } }] });
    expect(await outside.json()).toEqual({ error: 'Invalid extraction' });
    const long = await put(srv, { session_id: id, text: 'x'.repeat(100_001) });
    expect(long.status).toBe(400);
    expect(await long.json()).toEqual({ error: 'Draft too long (max 100000 characters)' });
    expect((await put(srv, { session_id: 'ffffffffffff', text: 'x' })).status).toBe(404);
    expect((await srv.api('/api/session/draft?session_id=ffffffffffff')).status).toBe(404);
  });

  it('removing an unsent chip deletes its file, its record, its extraction and its place in the draft', async () => {
    const id = await srv.newSession();
    const zip = await yazlZip({ 'report/table.csv': Buffer.from('a,b\n') });
    const a = await upload(srv, id, 'report.zip', zip);
    const keep = await upload(srv, id, 'keep.txt', 'k');
    const x = await postMultipart(srv, '/api/upload/extract', [{ name: 'session_id', content: id }, { name: 'file', filename: 'report.zip', content: zip }]);
    await put(srv, { session_id: id, text: 't', attachments: [{ path: a.path, extract: { dest: x.body.dest, extracted: 1, files: x.body.files } }, { path: keep.path }] });
    const res = await del(srv, id, a.path);
    expect(res.status).toBe(200);
    const { session } = (await res.json()) as Json;
    expect(session.attachments.map((s: Json) => s.filename)).toEqual(['keep.txt']);
    await expect(fs.access(a.path)).rejects.toThrow();
    await expect(fs.access(x.body.dest)).rejects.toThrow();
    await fs.access(keep.path);
    expect((await get(srv, id)).draft).toMatchObject({ text: 't', attachments: [{ path: keep.path }] });
    // Gone is gone: a second delete finds nothing.
    const again = await del(srv, id, a.path);
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: 'Attachment not found' });
  });

  it('refuses to delete an attachment a sent message refers to', async () => {
    const id = await srv.newSession();
    const a = await upload(srv, id, 'sent.txt', 'sent');
    expect((await srv.json('/api/session/message', { session_id: id, text: 'here', attachments: [a] })).status).toBe(200);
    const res = await del(srv, id, a.path);
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: 'This attachment belongs to a sent message and cannot be deleted' });
    expect(await fs.readFile(a.path, 'utf8')).toBe('sent');
  });

  it('a stored message carries an extracted archive with its file count, and only this session\'s own folders', async () => {
    const id = await srv.newSession();
    const zip = await yazlZip({ 'report/a.txt': Buffer.from('a'), 'report/b.txt': Buffer.from('b') });
    const a = await upload(srv, id, 'report.zip', zip);
    const x = await postMultipart(srv, '/api/upload/extract', [{ name: 'session_id', content: id }, { name: 'file', filename: 'report.zip', content: zip }]);
    // The extraction names the upload it came from: Edit puts the two back on one chip by that, not by position.
    const extracted = { kind: 'extraction', name: 'report.zip', path: x.body.dest, extracted: true, file_count: 2, archive_path: a.path };
    const res = await srv.json('/api/session/message', { session_id: id, text: '', attachments: [a, extracted] });
    expect(res.status).toBe(200);
    const { session } = (await res.json()) as Json;
    expect(session.messages[0].attachments[0]).toEqual({ ...a, kind: 'file' });
    expect(session.messages[0].attachments[1]).toEqual(extracted);
    // An archive_path that is not one of this session's uploads is not kept; the spec's form (no kind) is an extraction too.
    const loose = await srv.json('/api/session/message', { session_id: id, text: '', attachments: [{ name: 'report.zip', path: x.body.dest, extracted: true, archive_path: '/etc/passwd' }] });
    expect(((await loose.json()) as Json).session.messages[1].attachments).toEqual([{ kind: 'extraction', name: 'report.zip', path: x.body.dest, extracted: true }]);
    const foreign = await srv.json('/api/session/message', { session_id: id, text: 'x', attachments: [{ ...extracted, path: path.dirname(x.body.dest) }] });
    expect(await foreign.json()).toEqual({ error: 'Unknown attachment' });
    // Sent, the extraction folder is no draft's to take along.
    expect((await del(srv, id, a.path)).status).toBe(409);
  });

  it('answers a session of another profile as missing', async () => {
    const id = await srv.newSession({ profile: 'work' });
    const res = await srv.api(`/api/session/draft?session_id=${id}`);
    expect(res.status).toBe(404);
    expect((await del(srv, id, '/x')).status).toBe(404);
  });
});
