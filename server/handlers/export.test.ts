// GET /api/session/export, GET /api/sessions/export and POST /api/session/import over a real server: what the
// archive holds (names, bytes, the JSON), and that an import gives back the same conversation (texts, every
// version, attachment bytes) in a new session whose files are its own, or leaves nothing at all.
import fs from 'node:fs/promises';
import path from 'node:path';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { yazlZip } from '../archive/testing/fixtures.js';
import { markdownTime } from '../export/markdown.js';
import { missingAttachment, newerExport, NOT_AN_EXPORT } from '../export/read-export.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';
import { BAD_FORMAT, BAD_SESSION_IDS, MAX_EXPORT_IDS } from './export.js';

const srv = testServerForFile({ maxUploadBytes: 8 * 1024 * 1024 });

/** Every member of a zip, by name. */
async function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true });
  const out = new Map<string, Buffer>();
  for (let entry = await nextEntry(zip); entry; entry = await nextEntry(zip)) {
    const chunks: Buffer[] = [];
    for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
    out.set(entry.fileName, Buffer.concat(chunks));
  }
  return out;
}

function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | null> {
  return new Promise((resolve, reject) => {
    const done = (value: yauzl.Entry | null, err?: unknown) => {
      zip.off('entry', onEntry).off('end', onEnd).off('error', onError);
      if (err) reject(err);
      else resolve(value);
    };
    const onEntry = (e: yauzl.Entry) => done(e);
    const onEnd = () => done(null);
    const onError = (err: unknown) => done(null, err);
    zip.on('entry', onEntry).on('end', onEnd).on('error', onError);
    zip.readEntry();
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const getJson = async (pathname: string): Promise<Json> => (await (await srv.api(pathname)).json()) as Json;
const session = (id: string) => getJson(`/api/session?session_id=${id}`).then((b) => b.session as Json);
const attachDir = (id: string) => path.join(srv.stateDir, 'attachments', id);

async function upload(id: string, name: string, content: Buffer | string): Promise<Json> {
  const { status, body } = await postMultipart(srv, '/api/upload', [{ name: 'session_id', content: id }, { name: 'file', filename: name, content }]);
  expect(status).toBe(200);
  return body;
}

async function download(pathname: string): Promise<{ status: number; type: string | null; disposition: string | null; bytes: Buffer }> {
  const res = await srv.api(pathname);
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), bytes: Buffer.from(await res.arrayBuffer()) };
}

const importFile = (filename: string, content: Buffer | string) => postMultipart(srv, '/api/session/import', [{ name: 'file', filename, content }]);

/** What is on disk and in the list, to prove an import that failed left nothing. */
async function footprint(): Promise<{ sessions: string[]; folders: string[]; staging: string[] }> {
  const list = await getJson('/api/sessions');
  const folders = await fs.readdir(path.join(srv.stateDir, 'attachments')).catch(() => []);
  return { sessions: (list.sessions as Json[]).map((s) => s.session_id as string).sort(), folders: folders.sort(), staging: await fs.readdir(path.join(srv.stateDir, 'staging')) };
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);

/** A conversation with an upload, an extracted archive, a photo and two versions of its first message. */
async function richSession(): Promise<{ id: string; notes: Json; photo: Json; extraction: Json }> {
  const id = await srv.newSession();
  const notes = await upload(id, 'notes.txt', 'line one\nline two\n');
  const photo = await upload(id, 'photo.png', PNG);
  const pack = await yazlZip({ 'a.txt': 'alpha', 'dir/b.txt': 'beta' });
  const { status, body } = await postMultipart(srv, '/api/upload/extract', [{ name: 'session_id', content: id }, { name: 'file', filename: 'pack.zip', content: pack }]);
  expect(status).toBe(200);
  const extraction = { kind: 'extraction', name: 'pack.zip', path: body.dest, extracted: true, file_count: 2 };
  expect((await srv.json('/api/session/message', { session_id: id, text: 'first', attachments: [notes, extraction] })).status).toBe(200);
  expect((await srv.json('/api/session/message', { session_id: id, text: 'second' })).status).toBe(200);
  // Edit without an agent: a second version from message 0 on, the first kept (store/versions.ts).
  expect((await srv.json('/api/session/message', { session_id: id, text: 'first, edited', attachments: [photo], message_index: 0 })).status).toBe(200);
  expect((await srv.json('/api/session/rename', { session_id: id, title: 'Trip plan' })).status).toBe(200);
  return { id, notes, photo, extraction };
}

describe('GET /api/session/export', () => {
  it('format=json: a .zip with the conversation’s JSON (relative paths, every version) and its files’ bytes', async () => {
    const { id } = await richSession();
    const got = await download(`/api/session/export?session_id=${id}&format=json`);
    expect(got.status).toBe(200);
    expect(got.type).toBe('application/zip');
    expect(got.disposition).toBe(`attachment; filename="Trip_plan.satchel.zip"; filename*=UTF-8''Trip_plan.satchel.zip`);
    const members = await unzip(got.bytes);
    expect([...members.keys()].sort()).toEqual(['attachments/notes.txt', 'attachments/pack/a.txt', 'attachments/pack/dir/b.txt', 'attachments/photo.png', 'conversation.json']);
    expect(members.get('attachments/notes.txt')!.toString()).toBe('line one\nline two\n');
    expect(members.get('attachments/photo.png')).toEqual(PNG);
    expect(members.get('attachments/pack/dir/b.txt')!.toString()).toBe('beta');
    const doc = JSON.parse(members.get('conversation.json')!.toString()) as Json;
    expect(doc.satchel_export).toBe(1);
    expect(doc.title).toBe('Trip plan');
    expect(doc.messages.map((m: Json) => m.content)).toEqual(['first, edited']);
    expect(doc.messages[0].attachments).toEqual([{ filename: 'photo.png', path: 'attachments/photo.png', size: PNG.length, mime: 'image/png', is_image: true, kind: 'file' }]);
    expect(doc.messages[0].versions).toBeUndefined();
    const earlier = doc.messages[0]._versions.before[0] as Json[];
    expect(earlier.map((m) => m.content)).toEqual(['first', 'second']);
    expect(earlier[0]!.attachments).toEqual([
      { filename: 'notes.txt', path: 'attachments/notes.txt', size: 18, mime: 'text/plain', is_image: false, kind: 'file' },
      { kind: 'extraction', name: 'pack.zip', path: 'attachments/pack', extracted: true, file_count: 2 },
    ]);
    expect(JSON.stringify(doc)).not.toContain(srv.stateDir);
  });

  it('format=md: conversation.md with who wrote what and when, attachments linked relatively, the files beside it', async () => {
    const id = await srv.newSession();
    await upload(id, 'my notes.txt', 'n');
    const notes = (await session(id)).attachments[0] as Json;
    await srv.json('/api/session/message', { session_id: id, text: 'Look at **this**', attachments: [notes] });
    await srv.json('/api/session/rename', { session_id: id, title: 'Notes' });
    const s = await session(id);
    const got = await download(`/api/session/export?session_id=${id}&format=md`);
    expect(got.disposition).toBe(`attachment; filename="Notes.zip"; filename*=UTF-8''Notes.zip`);
    const members = await unzip(got.bytes);
    expect([...members.keys()].sort()).toEqual(['attachments/my_notes.txt', 'conversation.md']);
    const day = (iso: string) => markdownTime(Date.parse(iso) / 1000);
    expect(members.get('conversation.md')!.toString()).toBe(
      [
        '# Notes',
        '',
        `Started ${day(s.created_at)} · last activity ${day(s.updated_at)} · exported from Satchel 0.1.0`,
        '',
        '---',
        '',
        `### You · ${markdownTime(s.messages[0].timestamp)}`,
        '',
        'Look at **this**',
        '',
        '**Attachments:**',
        '',
        // The name the person gave it (issue 38, item 4); the member keeps the stored one.
        '- [my notes.txt](attachments/my_notes.txt)',
        '',
      ].join('\n'),
    );
  });

  it('a conversation without files exports as one .json; a bad format and an unknown session are refused', async () => {
    const id = await srv.newSession();
    await srv.json('/api/session/message', { session_id: id, text: 'just text' });
    const got = await download(`/api/session/export?session_id=${id}`);
    expect(got.type).toBe('application/json; charset=utf-8');
    expect(got.disposition).toBe(`attachment; filename="Untitled.json"; filename*=UTF-8''Untitled.json`);
    expect(JSON.parse(got.bytes.toString()).messages.map((m: Json) => m.content)).toEqual(['just text']);
    const bad = await srv.api(`/api/session/export?session_id=${id}&format=pdf`);
    expect([bad.status, await bad.json()]).toEqual([400, { error: BAD_FORMAT }]);
    expect((await srv.api('/api/session/export?session_id=000000000000')).status).toBe(404);
  });
});

describe('POST /api/session/import', () => {
  it('an export comes back as a new conversation: same texts, versions and attachment bytes, its files its own', async () => {
    const { id } = await richSession();
    const original = await session(id);
    const exported = (await download(`/api/session/export?session_id=${id}&format=json`)).bytes;
    const { status, body } = await importFile('Trip_plan.satchel.zip', exported);
    expect(status).toBe(200);
    const copy = body.session as Json;
    expect(copy.session_id).not.toBe(id);
    // The original is still there: the copy says so (issue 38, item 5).
    expect(copy.title).toBe('Trip plan (imported)');
    expect(copy.workspace).toBe(srv.workspace);
    expect(copy.created_at).toBe(original.created_at);
    expect(copy.messages.map((m: Json) => m.content)).toEqual(['first, edited']);
    expect(copy.messages[0].versions).toMatchObject({ index: 1, count: 2, edited: true });
    const folder = attachDir(copy.session_id);
    expect(copy.messages[0].attachments).toEqual([{ filename: 'photo.png', path: path.join(folder, 'photo.png'), size: PNG.length, mime: 'image/png', is_image: true, kind: 'file' }]);
    expect(copy.attachments.map((a: Json) => a.path).sort()).toEqual([path.join(folder, 'notes.txt'), path.join(folder, 'photo.png')]);
    expect(await fs.readFile(path.join(folder, 'photo.png'))).toEqual(PNG);
    expect(await fs.readFile(path.join(folder, 'pack', 'dir', 'b.txt'), 'utf8')).toBe('beta');
    expect((await fs.readdir(folder)).sort()).toEqual(['notes.txt', 'pack', 'photo.png']);
    // The earlier version, switched to: its rows and attachments, pointing into the new folder.
    const shown = await srv.json('/api/session/version', { session_id: copy.session_id, message_index: 0, version: 0 });
    const earlier = ((await shown.json()) as Json).session as Json;
    expect(earlier.messages.map((m: Json) => m.content)).toEqual(['first', 'second']);
    expect(earlier.messages[0].attachments).toEqual([
      { filename: 'notes.txt', path: path.join(folder, 'notes.txt'), size: 18, mime: 'text/plain', is_image: false, kind: 'file' },
      { kind: 'extraction', name: 'pack.zip', path: path.join(folder, 'pack'), extracted: true, file_count: 2 },
    ]);
    // The original is untouched.
    expect((await session(id)).messages.map((m: Json) => m.content)).toEqual(['first, edited']);
    expect((await fs.readdir(path.join(srv.stateDir, 'staging')))).toEqual([]);
  });

  it('a lone .json export imports back', async () => {
    const id = await srv.newSession();
    await srv.json('/api/session/message', { session_id: id, text: 'only words' });
    const json = (await download(`/api/session/export?session_id=${id}`)).bytes;
    const { status, body } = await importFile('Untitled.json', json);
    expect(status).toBe(200);
    expect(body.session.messages.map((m: Json) => m.content)).toEqual(['only words']);
  });

  it('a file that is not an export is 400 with the sentence, and nothing is left', async () => {
    const before = await footprint();
    for (const [name, content] of [
      ['notes.txt', 'hello there'],
      ['data.json', '{"title": "a JSON file, but no export"}'],
      ['other.zip', await yazlZip({ 'readme.txt': 'not an export' })],
      ['broken.zip', Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(100)])],
    ] as const) {
      const { status, body } = await importFile(name, content);
      expect([name, status, body]).toEqual([name, 400, { error: NOT_AN_EXPORT }]);
    }
    expect(await footprint()).toEqual(before);
  });

  it('an export of a newer format is refused by name; one naming a file it does not hold leaves nothing', async () => {
    const before = await footprint();
    const newer = await importFile('x.json', JSON.stringify({ satchel_export: 2, messages: [] }));
    expect([newer.status, newer.body]).toEqual([400, { error: newerExport(2) }]);
    const doc = { satchel_export: 1, title: 'T', messages: [{ role: 'user', content: 'x', attachments: [{ kind: 'file', path: 'attachments/missing.txt' }] }], attachments: [] };
    const zip = await yazlZip({ 'conversation.json': JSON.stringify(doc), 'attachments/present.txt': 'here' });
    const missing = await importFile('x.zip', zip);
    expect([missing.status, missing.body]).toEqual([400, { error: missingAttachment('attachments/missing.txt') }]);
    expect(await footprint()).toEqual(before);
  });
});

describe('GET /api/sessions/export', () => {
  it('every conversation of the profile, each in its folder with its JSON, Markdown and files; no other profile’s', async () => {
    const mine = await srv.newSession();
    await upload(mine, 'mine.txt', 'mine');
    const theirs = await srv.newSession({ profile: 'work' });
    const got = await download('/api/sessions/export');
    expect(got.status).toBe(200);
    const names = [...(await unzip(got.bytes)).keys()];
    const visible = ((await getJson('/api/sessions')).sessions as Json[]).map((s) => s.session_id as string);
    for (const id of visible) expect(names.filter((n) => n.includes(` ${id}/conversation.json`))).toHaveLength(1);
    expect(names.some((n) => n.endsWith(` ${mine}/attachments/mine.txt`))).toBe(true);
    expect(names.some((n) => n.includes(theirs))).toBe(false);
  });
});

describe('GET /api/sessions/export?session_ids= (the list\'s Export of the selected)', () => {
  it('holds the conversations named and no other', async () => {
    const a = await srv.newSession();
    await upload(a, 'chosen.txt', 'chosen');
    const b = await srv.newSession();
    const left = await srv.newSession();
    const got = await download(`/api/sessions/export?session_ids=${a},${b}`);
    expect(got.status).toBe(200);
    const names = [...(await unzip(got.bytes)).keys()];
    expect(names.filter((n) => n.endsWith('/conversation.json')).map((n) => n.slice(-30, -18)).sort()).toEqual([a, b].sort());
    expect(names.some((n) => n.endsWith(` ${a}/attachments/chosen.txt`))).toBe(true);
    expect(names.some((n) => n.includes(left))).toBe(false);
  });

  it('refuses a malformed list with 400 and a conversation that is not there (or another profile\'s) with 404, never a smaller archive', async () => {
    const a = await srv.newSession();
    const theirs = await srv.newSession({ profile: 'work' });
    const tooMany = Array.from({ length: MAX_EXPORT_IDS + 1 }, () => a).join(',');
    for (const bad of ['', 'nope', `${a},`, `${a};${a}`, tooMany]) {
      const res = await srv.api(`/api/sessions/export?session_ids=${encodeURIComponent(bad)}`);
      expect([res.status, await res.json()]).toEqual([400, { error: BAD_SESSION_IDS }]);
    }
    for (const missing of [`${a},000000000000`, theirs]) {
      const res = await srv.api(`/api/sessions/export?session_ids=${missing}`);
      expect([res.status, await res.json()]).toEqual([404, { error: 'Session not found' }]);
    }
  });
});

describe('POST /api/session/import of an "Export all" archive', () => {
  let all: TestServer;
  beforeAll(async () => {
    all = await startTestServer({ maxUploadBytes: 8 * 1024 * 1024 });
  });
  afterAll(async () => {
    await all.stop();
  });
  const importInto = (content: Buffer) => postMultipart(all, '/api/session/import', [{ name: 'file', filename: 'satchel-conversations.zip', content }]);
  const listed = async () => (((await (await all.api('/api/sessions')).json()) as Json).sessions as Json[]).map((s) => s.session_id as string).sort();
  const folders = () => fs.readdir(path.join(all.stateDir, 'attachments')).then((f) => f.sort(), () => []);

  it('brings back every conversation, each with its texts and its files in a folder of its own, in one answer', async () => {
    const a = await all.newSession();
    await postMultipart(all, '/api/upload', [{ name: 'session_id', content: a }, { name: 'file', filename: 'notes.txt', content: 'alpha notes' }]);
    await all.json('/api/session/message', { session_id: a, text: 'about the notes' });
    await all.json('/api/session/rename', { session_id: a, title: 'Notes' });
    const b = await all.newSession();
    await all.json('/api/session/message', { session_id: b, text: 'just words' });
    await all.json('/api/session/rename', { session_id: b, title: 'Words' });
    const archive = Buffer.from(await (await all.api('/api/sessions/export')).arrayBuffer());

    const { status, body } = await importInto(archive);
    expect(status).toBe(200);
    const made = body.sessions as Json[];
    expect(made.map((s) => s.title).sort()).toEqual(['Notes (imported)', 'Words (imported)']);
    expect(made.every((s) => s.session_id !== a && s.session_id !== b)).toBe(true);
    expect(body.session.session_id).toBe(made[0]!.session_id);
    expect(await listed()).toEqual([a, b, ...made.map((s) => s.session_id as string)].sort());
    const notes = made.find((s) => s.title === 'Notes (imported)')!;
    const copy = ((await (await all.api(`/api/session?session_id=${notes.session_id}`)).json()) as Json).session as Json;
    expect(copy.messages.map((m: Json) => m.content)).toEqual(['about the notes']);
    expect(copy.attachments.map((x: Json) => x.path)).toEqual([path.join(all.stateDir, 'attachments', notes.session_id, 'notes.txt')]);
    expect(await fs.readFile(path.join(all.stateDir, 'attachments', notes.session_id, 'notes.txt'), 'utf8')).toBe('alpha notes');
    // No work folder and no folder of a conversation that is not there: exactly one per session with files.
    expect(await folders()).toEqual([a, notes.session_id].sort());
  });

  it('one conversation that cannot be imported refuses the whole archive, naming its folder, and leaves nothing', async () => {
    const good = { satchel_export: 1, title: 'Good', messages: [{ role: 'user', content: 'fine' }] };
    const bad = { satchel_export: 1, title: 'Bad', messages: [{ role: 'user', content: 'x', attachments: [{ kind: 'file', path: 'attachments/gone.txt' }] }] };
    const zip = await yazlZip({
      '2026-01-01 Good 111111111111/conversation.json': JSON.stringify(good),
      '2026-01-01 Good 111111111111/attachments/kept.txt': 'kept',
      '2026-01-02 Bad 222222222222/conversation.json': JSON.stringify(bad),
    });
    const before = { sessions: await listed(), folders: await folders() };
    const { status, body } = await importInto(zip);
    expect([status, body]).toEqual([400, { error: `2026-01-02 Bad 222222222222: ${missingAttachment('attachments/gone.txt')}` }]);
    expect({ sessions: await listed(), folders: await folders() }).toEqual(before);
    expect(await fs.readdir(path.join(all.stateDir, 'staging'))).toEqual([]);
  });

  it('an archive of folders none of which holds a conversation is not an export', async () => {
    const { status, body } = await importInto(await yazlZip({ 'photos/a.txt': 'a', 'notes/b.txt': 'b' }));
    expect([status, body]).toEqual([400, { error: NOT_AN_EXPORT }]);
  });
});

