// The sweep of abandoned uploads with an injected clock: a week-old upload that was never sent and is in no
// draft goes; a sent one, one in a draft and a recent one stay.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArrivalLog } from '../inbox/arrivals.js';
import { EventBus } from '../store/events.js';
import type { SessionStore, Attachment } from '../store/sessions.js';
import { writeDraft } from './store.js';
import { writeCaptureDraft } from './capture.js';
import { sweepUnsentAttachments, UNSENT_ATTACHMENT_MAX_AGE_MS } from './sweep.js';
import { openStore } from '../testing/fresh-store.js';

let tmp: string;
let store: SessionStore;
const DAY = 24 * 60 * 60 * 1000;

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-sweep-')));
  store = await openStore(tmp);
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function stored(sessionId: string, name: string, ageMs: number, now: number): Promise<Attachment> {
  const dir = path.join(tmp, 'attachments', sessionId);
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, name);
  await fs.writeFile(file, name);
  const when = new Date(now - ageMs);
  await fs.utimes(file, when, when);
  const a: Attachment = { filename: name, path: file, size: name.length, mime: 'text/plain', is_image: false };
  await store.addAttachment(sessionId, a);
  return a;
}

const exists = (p: string) => fs.access(p).then(() => true, () => false);

describe('sweepUnsentAttachments', () => {
  it('removes only week-old uploads that were never sent and are in no draft', async () => {
    const now = Date.parse('2030-01-10T00:00:00Z');
    const s = await store.create({ workspace: tmp, profile: 'default' });
    const old = await stored(s.session_id, 'old.txt', 8 * DAY, now);
    const recent = await stored(s.session_id, 'recent.txt', 6 * DAY, now);
    const sent = await stored(s.session_id, 'sent.txt', 30 * DAY, now);
    const drafted = await stored(s.session_id, 'drafted.txt', 30 * DAY, now);
    await store.addMessage(s.session_id, 'with a file', [{ ...sent, kind: 'file' }]);
    await writeDraft(tmp, s.session_id, { text: '', attachments: [{ path: drafted.path }] });

    expect(await sweepUnsentAttachments(tmp, store, { now: () => now })).toBe(1);
    expect(await exists(old.path)).toBe(false);
    expect(await exists(recent.path)).toBe(true);
    expect(await exists(sent.path)).toBe(true);
    expect(await exists(drafted.path)).toBe(true);
    expect((await store.get(s.session_id))?.attachments.map((a) => a.filename)).toEqual(['recent.txt', 'sent.txt', 'drafted.txt']);

    // A day later the recent one is past the week too; the others still stay.
    expect(await sweepUnsentAttachments(tmp, store, { now: () => now + 2 * DAY })).toBe(1);
    expect(await exists(recent.path)).toBe(false);
    expect((await store.get(s.session_id))?.attachments.map((a) => a.filename)).toEqual(['sent.txt', 'drafted.txt']);
  });

  it('keeps a week-old Inbox arrival: its row in the thread refers to it', async () => {
    const now = Date.parse('2030-01-10T00:00:00Z');
    const s = await store.create({ workspace: tmp, profile: 'default' });
    const arrived = await stored(s.session_id, 'scan.pdf', 30 * DAY, now);
    const arrivals = new ArrivalLog(store, new EventBus(), 0);
    arrivals.record('default', s.session_id, { source: 'folder', from: 'Scans' }, arrived);
    await arrivals.flush();
    expect(await sweepUnsentAttachments(tmp, store, { now: () => now })).toBe(0);
    expect(await exists(arrived.path)).toBe(true);
  });

  it("keeps the quick-capture window's staged uploads while its draft names them", async () => {
    const now = Date.parse('2030-01-10T00:00:00Z');
    const s = await store.create({ workspace: tmp, profile: 'default' });
    const staged = await stored(s.session_id, 'staged.png', 30 * DAY, now);
    await writeCaptureDraft(tmp, 'default', { text: '', attachments: [staged.path], session_id: s.session_id, destination: 'inbox' });
    expect(await sweepUnsentAttachments(tmp, store, { now: () => now })).toBe(0);
    expect(await exists(staged.path)).toBe(true);
    // Taken off the capture draft: abandoned like any other.
    await writeCaptureDraft(tmp, 'default', { text: '', attachments: [], session_id: null, destination: 'current' });
    expect(await sweepUnsentAttachments(tmp, store, { now: () => now })).toBe(1);
    expect(await exists(staged.path)).toBe(false);
  });

  it('keeps the age limit at a week', () => {
    expect(UNSENT_ATTACHMENT_MAX_AGE_MS).toBe(7 * DAY);
  });

  it('drops the record of an unsent upload whose file is already gone', async () => {
    const now = Date.now();
    const s = await store.create({ workspace: tmp, profile: 'default' });
    const a = await stored(s.session_id, 'vanished.txt', 0, now);
    await fs.rm(a.path);
    expect(await sweepUnsentAttachments(tmp, store, { now: () => now })).toBe(1);
    expect((await store.get(s.session_id))?.attachments).toEqual([]);
  });
});
