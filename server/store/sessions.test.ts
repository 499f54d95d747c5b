import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setLogSink } from '../core/log.js';
import { storedJson, storedSession } from '../testing/stored-session.js';
import { keptChars, MAX_SESSION_FILE_BYTES, oversizedSessionWarning, SessionStore } from './sessions.js';
import { showVersion } from './versions.js';
import { openStore } from '../testing/fresh-store.js';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-sessions-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const onDisk = async (id: string) => await storedJson(dir, id);

/** A store loaded from a session file as an older version wrote it: `fields` over a session's header. */
async function loadedWith(id: string, fields: Record<string, unknown>): Promise<SessionStore> {
  await fs.mkdir(path.join(dir, 'sessions'), { recursive: true });
  const at = '2024-01-01T00:00:00.000Z';
  const old = { session_id: id, title: 'Old', workspace: '/w', profile: 'default', created_at: at, updated_at: at, ...fields };
  await fs.writeFile(path.join(dir, 'sessions', `${id}.json`), JSON.stringify(old));
  return openStore(dir);
}

describe('SessionStore', () => {
  it('keeps every one of many concurrent changes, on disk and after a reload', async () => {
    const store = await openStore(dir);
    const s = await store.create({ workspace: '/w', profile: 'default' });
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.addAttachment(s.session_id, { filename: `f${i}`, path: `/p/f${i}`, size: i, mime: 'text/plain', is_image: false })),
    );
    expect((await onDisk(s.session_id)).attachments).toHaveLength(50);
    const reloaded = await openStore(dir);
    expect((await reloaded.get(s.session_id))!.attachments.map((a) => a.filename).sort()).toEqual(Array.from({ length: 50 }, (_, i) => `f${i}`).sort());
  });

  it('never leaves a half-written session: an interrupted write leaves the old file and is ignored on load', async () => {
    const store = await openStore(dir);
    const s = await store.create({ workspace: '/w', profile: 'default' });
    await store.rename(s.session_id, 'Before');
    // What a crash of an older Satchel between write and rename left behind: a temp file beside the real one.
    await fs.mkdir(path.join(dir, 'sessions'), { recursive: true });
    await fs.writeFile(path.join(dir, 'sessions', `.${s.session_id}.json.abc.tmp`), '{"session_id": "trunc');
    const reloaded = await openStore(dir);
    expect((await reloaded.get(s.session_id))!.title).toBe('Before');
    expect(reloaded.list()).toHaveLength(1);
  });

  it('rejects a change that throws without applying it', async () => {
    const store = await openStore(dir);
    const s = await store.create({ workspace: '/w', profile: 'default' });
    await expect(store.addMessage(s.session_id, 'x'.repeat(100_001), [])).rejects.toThrow('Message too long');
    await expect(store.rename(s.session_id, '   ')).rejects.toThrow('Title must not be empty');
    expect((await store.get(s.session_id))!.messages).toEqual([]);
  });

  it('keeps nothing of a change that throws halfway, while the changes written with it are kept', async () => {
    const store = await openStore(dir);
    const s = await store.create({ workspace: '/w', profile: 'default' });
    const attach = (name: string) => store.addAttachment(s.session_id, { filename: name, path: `/p/${name}`, size: 1, mime: 'text/plain', is_image: false });
    // The first write is on disk while the next three queue: they are written together, in one batch.
    const first = attach('a');
    const before = attach('b');
    const broken = store.update(s.session_id, (d) => {
      d.title = 'half-done';
      d.attachments.push({ filename: 'ghost', path: '/p/ghost', size: 1, mime: 'text/plain', is_image: false });
      throw new Error('failed halfway');
    });
    const after = attach('c');
    await expect(broken).rejects.toThrow('failed halfway');
    await Promise.all([first, before, after]);
    for (const session of [(await store.get(s.session_id))!, await onDisk(s.session_id)]) {
      expect(session.title).toBe('Untitled');
      expect(session.attachments.map((a: { filename: string }) => a.filename)).toEqual(['a', 'b', 'c']);
    }
  });

  it('loads a file of an older version in the one stored shape: `text`/`created_at` rows become `content`/`timestamp`', async () => {
    const id = 'abcdef012345';
    const store = await loadedWith(id, {
      messages: [
        { role: 'user', text: 'a note', attachments: [], created_at: '2024-01-01T00:00:00.500Z', _row_id: 7 },
        { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:,' } }, { type: 'text', text: 'here' }], timestamp: 1704067201 },
        { role: 'assistant', content: 'yes', timestamp: 1704067202.25, _partial: true },
        { role: 'assistant' },
        { role: 'narrator', content: 'once' },
      ],
      attachments: [],
    });
    const expected = [
      { role: 'user', content: 'a note', attachments: [], timestamp: 1704067200.5, _row_id: 7 },
      { role: 'user', content: 'look\n\nhere', timestamp: 1704067201 },
      { role: 'assistant', content: 'yes', timestamp: 1704067202.25, _partial: true },
      { role: 'assistant', content: '' },
      // A role no version of Satchel wrote: shown as the agent's, as a row without one always was.
      { role: 'assistant', content: 'once' },
    ];
    expect((await store.get(id))!.messages).toEqual(expected);
    // A message stored now has the same shape, and the next write puts the whole file in it.
    await store.addMessage(id, 'new', []);
    const added = (await onDisk(id)).messages[expected.length];
    expect((await onDisk(id)).messages.slice(0, expected.length)).toEqual(expected);
    expect(Object.keys(added).sort()).toEqual(['attachments', 'content', 'role', 'timestamp']);
    expect(added.content).toBe('new');
    expect(Math.abs(added.timestamp - Date.now() / 1000)).toBeLessThan(60);
  });

  it('gives attachments stored without a kind one: an old extraction keeps its count and the archive it followed', async () => {
    const id = 'abcdef543210';
    const zip = { filename: 'report.zip', path: '/a/report.zip', size: 9, mime: 'application/zip', is_image: false };
    const note = { filename: 'note.txt', path: '/a/note.txt', size: 1, mime: 'text/plain', is_image: false };
    const store = await loadedWith(id, {
      // Then an archive and its extraction were paired by position and name alone.
      messages: [{ role: 'user', content: '', timestamp: 1, attachments: [zip, { name: 'report.zip', path: '/a/report', extracted: true, files: 2 }, note, { name: 'other.zip', path: '/a/other', extracted: true }] }],
      pending_attachments: [note],
      attachments: [zip, note],
    });
    const loaded = (await store.get(id))!;
    expect(loaded.messages[0]!.attachments).toEqual([
      { ...zip, kind: 'file' },
      { kind: 'extraction', name: 'report.zip', path: '/a/report', extracted: true, file_count: 2, archive_path: '/a/report.zip' },
      { ...note, kind: 'file' },
      { kind: 'extraction', name: 'other.zip', path: '/a/other', extracted: true },
    ]);
    expect(loaded.pending_attachments).toEqual([{ ...note, kind: 'file' }]);
    // The session's own list of uploads is what POST /api/upload answered: no kind there.
    expect(loaded.attachments).toEqual([zip, note]);
  });

  it('does not load a session file over MAX_SESSION_FILE_BYTES (an old 400 MB reply): says so, leaves it on disk, loads the rest', async () => {
    const store = await openStore(dir);
    const kept = await store.create({ workspace: '/w', profile: 'default' });
    // A sparse file: as large as the bloated one for stat, without writing 400 MB.
    const bloated = path.join(dir, 'sessions', 'abcdefabcdef.json');
    await fs.mkdir(path.dirname(bloated), { recursive: true });
    await fs.writeFile(bloated, '{"session_id": "abcdefabcdef", "messages": [');
    await fs.truncate(bloated, 400 * 1024 * 1024);
    const lines: string[] = [];
    const restore = setLogSink((line) => lines.push(line));
    const reloaded = new SessionStore(dir);
    const t0 = performance.now();
    try {
      await reloaded.load();
    } finally {
      restore();
    }
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(reloaded.list().map((s) => s.session_id)).toEqual([kept.session_id]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(oversizedSessionWarning(bloated, 400 * 1024 * 1024));
    expect(oversizedSessionWarning(bloated, 400 * 1024 * 1024)).toBe(`session file ${bloated} is 400 MiB, over the 64 MiB Satchel loads; not loaded, left on disk as it is`);
    expect((await fs.stat(bloated)).size).toBe(400 * 1024 * 1024);
    expect(MAX_SESSION_FILE_BYTES).toBe(64 * 1024 * 1024);
  });
  it('inserts a whole session under a fresh id (an import), on disk and after a reload; an id in use is refused', async () => {
    const store = await openStore(dir);
    const taken = await store.create({ workspace: '/w', profile: 'default' });
    const id = store.freshId();
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(id).not.toBe(taken.session_id);
    const at = '2024-03-01T10:00:00.000Z';
    const session = { session_id: id, title: 'Imported', workspace: '/w', profile: 'default', created_at: at, updated_at: at, messages: [{ role: 'user' as const, content: 'hi', timestamp: 1 }], attachments: [] };
    await store.insert(session);
    expect((await onDisk(id)).messages).toEqual([{ role: 'user', content: 'hi', timestamp: 1 }]);
    expect((await onDisk(id)).updated_at).toBe(at);
    const reloaded = await openStore(dir);
    expect((await reloaded.get(id))!.title).toBe('Imported');
    await expect(store.insert({ ...session, session_id: taken.session_id })).rejects.toThrow('Session id already in use');
    expect((await onDisk(taken.session_id)).title).toBe('Untitled');
  });
});

describe('SessionStore: versions on the database', () => {
  it('a new version replaces the rows from the fork on (not an append); showing the old one rewrites them back', async () => {
    const store = await openStore(dir);
    const s = await store.create({ workspace: '/w', profile: 'default' });
    for (const text of ['one', 'two', 'three']) await store.addMessage(s.session_id, text, []);
    await store.addVersion(s.session_id, 1, 'two, again', []);
    const stored = (await storedSession(dir, s.session_id))!;
    expect(stored.messages.map((m) => m.content)).toEqual(['one', 'two, again']);
    expect(stored.messages).toEqual((await store.get(s.session_id))!.messages);
    // The version replaced lives inside the fork's first row, not as rows of its own.
    expect(JSON.stringify(stored.messages[1])).toContain('three');

    await store.update(s.session_id, (x) => void (x.messages = showVersion(x.messages, 1, 0)));
    const back = (await storedSession(dir, s.session_id))!;
    expect(back.messages.map((m) => m.content)).toEqual(['one', 'two', 'three']);
    const reloaded = await openStore(dir);
    expect((await reloaded.get(s.session_id))!.messages).toEqual(back.messages);
    expect(reloaded.list()[0]).toMatchObject({ message_count: 3 });
    await reloaded.close();
    await store.close();
  });
});

describe('SessionStore: deletion steps', () => {
  it('hides a deleted session from get and list, also after a reload, until restore', async () => {
    const store = await openStore(dir);
    const s = await store.create({ workspace: '/w', profile: 'default' });
    await store.markDeleted(s.session_id);
    expect(await store.get(s.session_id)).toBeUndefined();
    expect(store.list()).toEqual([]);
    await expect(store.rename(s.session_id, 'x')).rejects.toThrow('Session not found');
    const reloaded = await openStore(dir);
    expect(await reloaded.get(s.session_id)).toBeUndefined();
    expect(reloaded.listDeleted().map((d) => d.session_id)).toEqual([s.session_id]);
    const back = await reloaded.restore(s.session_id);
    expect(back.updated_at).toBe(s.updated_at);
    expect(reloaded.list().map((d) => d.session_id)).toEqual([s.session_id]);
    expect(await onDisk(s.session_id)).not.toHaveProperty('deleted_at');
  });

  it('remove waits for a write under way, and the stored session does not come back', async () => {
    const store = await openStore(dir);
    const s = await store.create({ workspace: '/w', profile: 'default' });
    await store.markDeleted(s.session_id);
    // Let markDeleted's write loop end, so the next change starts a write of its own at once.
    await new Promise((r) => setImmediate(r));
    // A write of the deleted session on disk (restore's own kind) when remove starts.
    const writing = store.update(s.session_id, (x) => void (x.title = 'late'), { touch: false, deleted: true });
    const removing = store.remove(s.session_id);
    await expect(writing).rejects.toThrow('Session not found');
    await removing;
    expect(await storedSession(dir, s.session_id)).toBeUndefined();
    expect(store.getDeleted(s.session_id)).toBeUndefined();
    await expect(store.remove(s.session_id)).rejects.toThrow('Session not found');
  });

  it('refuses to remove a session that is not deleted', async () => {
    const store = await openStore(dir);
    const s = await store.create({ workspace: '/w', profile: 'default' });
    await expect(store.remove(s.session_id)).rejects.toThrow('Session not found');
    expect((await store.get(s.session_id))?.session_id).toBe(s.session_id);
  });
});

describe('SessionStore keeps a bounded number of whole sessions', () => {
  /** `count` sessions of `messages` messages each, written by a store of its own, then a fresh store of `limits`. */
  async function history(count: number, messages: number, limits: { sessions: number; chars: number }): Promise<{ store: SessionStore; ids: string[] }> {
    const writer = await openStore(dir);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const s = await writer.create({ workspace: '/w', profile: 'default' });
      for (let m = 0; m < messages; m++) await writer.addMessage(s.session_id, `session ${i} message ${m}`, []);
      ids.push(s.session_id);
    }
    await writer.close();
    const store = await openStore(dir, limits);
    return { store, ids };
  }

  it('lets the least recently used go beyond the count, and reads it again equal', async () => {
    const { store, ids } = await history(5, 3, { sessions: 2, chars: 1e9 });
    const first = structuredClone(await store.get(ids[0]!));
    for (const id of ids) await store.get(id);
    expect(store.keptCount).toBe(2);
    expect(ids.map((id) => store.isKept(id))).toEqual([false, false, false, true, true]);
    // Used again, ids[3]! is kept and ids[4]! is the least recently used: the next read lets it go.
    await store.get(ids[3]!);
    await store.get(ids[0]!);
    expect(ids.map((id) => store.isKept(id))).toEqual([true, false, false, true, false]);
    expect(await store.get(ids[0]!)).toEqual(first);
    expect(first!.messages.map((m) => m.content)).toEqual(['session 0 message 0', 'session 0 message 1', 'session 0 message 2']);
    await store.close();
  });

  it('bounds the characters kept, but always keeps the session just read', async () => {
    const { store, ids } = await history(3, 2, { sessions: 100, chars: 1 });
    const read = await store.get(ids[0]!);
    expect(keptChars(read!)).toBe('session 0 message 0'.length * 2);
    expect(store.isKept(ids[0]!)).toBe(true);
    await store.get(ids[1]!);
    expect(ids.map((id) => store.isKept(id))).toEqual([false, true, false]);
    await store.close();
  });

  it('counts the characters kept exactly through appends, new versions and evictions', async () => {
    const { store, ids } = await history(3, 2, { sessions: 2, chars: 1e9 });
    const total = async () => {
      let chars = 0;
      for (const id of ids) if (store.isKept(id)) chars += keptChars((await store.get(id))!);
      return chars;
    };
    await store.get(ids[0]!);
    await store.addMessage(ids[0]!, 'a longer message than the others', []);
    await store.addVersion(ids[0]!, 0, 'v2', []);
    await store.addMessage(ids[0]!, 'after the version', []);
    expect(store.keptCharacters).toBe(await total());
    expect(store.keptCharacters).toBe('v2after the version'.length);
    await store.get(ids[1]!);
    await store.get(ids[2]!);
    expect(store.isKept(ids[0]!)).toBe(false);
    expect(store.keptCharacters).toBe(await total());
    await store.close();
  });

  it('never lets go of a session with a turn running', async () => {
    const { store, ids } = await history(3, 1, { sessions: 1, chars: 1e9 });
    await store.update(ids[0]!, (s) => {
      s.active_stream_id = 'stream-1';
    });
    await store.get(ids[1]!);
    await store.get(ids[2]!);
    expect(ids.map((id) => store.isKept(id))).toEqual([true, false, true]);
    await store.close();
  });

  it('loses nothing when writes race evictions: every message of every session is on disk and read back', async () => {
    const { store, ids } = await history(6, 0, { sessions: 1, chars: 1e9 });
    const writes = ids.flatMap((id, i) => Array.from({ length: 8 }, (_, m) => store.addMessage(id, `s${i} m${m}`, [])));
    // Reads of the other sessions between the writes, each one evicting whatever it may.
    const reads = Array.from({ length: 40 }, (_, k) => store.get(ids[k % ids.length]!));
    await Promise.all([...writes, ...reads]);
    for (const [i, id] of ids.entries()) {
      const expected = Array.from({ length: 8 }, (_, m) => `s${i} m${m}`);
      expect((await store.get(id))!.messages.map((m) => m.content)).toEqual(expected);
      expect((await storedSession(dir, id))!.messages.map((m) => m.content)).toEqual(expected);
    }
    expect(store.keptCount).toBe(1);
    await store.close();
  });
});

