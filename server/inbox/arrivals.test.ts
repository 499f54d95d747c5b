// The Inbox's arrival rows: grouping (pure), one store write per burst (a real store), and the row as the API,
// search and export show it, kept after a restart (a real server, files opened with Satchel).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileAttachment } from '../core/wire.js';
import { startServer } from '../index.js';
import { EventBus, type ServerEvent } from '../store/events.js';
import type { Message, Session } from '../store/sessions.js';
import { postMultipart, TEST_TOKEN } from '../testing/harness.js';
import { appendArrivals, arrivalFrom, ARRIVAL_GROUP_MS, arrivalText, ArrivalLog, MAX_FILES_PER_ARRIVAL_ROW } from './arrivals.js';
import { openStore } from '../testing/fresh-store.js';

const file = (name: string): FileAttachment => ({ kind: 'file', filename: name, path: `/state/${name}`, size: 1, mime: 'text/plain', is_image: false });
const downloads = { source: 'folder' as const, from: 'Downloads' };

function session(messages: Message[] = []): Session {
  return { session_id: 'aaaaaaaaaaaa', title: 'Inbox', workspace: '/w', profile: 'default', created_at: '', updated_at: '', messages, attachments: [] } as unknown as Session;
}

describe('arrival rows (pure)', () => {
  it('says what arrived and from where', () => {
    expect(arrivalText(downloads, [file('report.pdf')])).toBe('report.pdf arrived from Downloads');
    expect(arrivalText(downloads, [file('a'), file('b'), file('c')])).toBe('3 files arrived from Downloads');
    expect(arrivalText({ source: 'open-with' }, [file('x.png')])).toBe('x.png arrived (opened with Satchel)');
    expect(arrivalText(downloads, Array.from({ length: 1200 }, (_, i) => file(`${i}`)))).toBe('1,200 files arrived from Downloads');
  });

  it('files from one folder within the window join one row; another folder, a message, or the window passed start a new one', () => {
    const s = session();
    const t = 1_800_000_000;
    appendArrivals(s, [
      { source: downloads, file: file('a.pdf'), at: t },
      { source: downloads, file: file('b.pdf'), at: t + 1 },
    ]);
    const first = s.messages[0];
    appendArrivals(s, [{ source: downloads, file: file('c.pdf'), at: t + 2 }]);
    expect(s.messages).toHaveLength(1);
    expect(s.messages[0]).toEqual({
      role: 'system',
      content: '3 files arrived from Downloads',
      timestamp: t,
      attachments: [file('a.pdf'), file('b.pdf'), file('c.pdf')],
      arrival: { source: 'folder', from: 'Downloads', last_at: t + 2 },
    });
    // A stored row is never changed in place (the store freezes them): it is replaced.
    expect(first).not.toBe(s.messages[0]);
    expect(first!.attachments).toHaveLength(2);

    appendArrivals(s, [{ source: { source: 'folder', from: 'Scans' }, file: file('scan.pdf'), at: t + 3 }]);
    appendArrivals(s, [{ source: downloads, file: file('d.pdf'), at: t + 4 }]);
    s.messages.push({ role: 'user', content: 'what came in?', timestamp: t + 5 });
    appendArrivals(s, [{ source: downloads, file: file('e.pdf'), at: t + 6 }]);
    appendArrivals(s, [{ source: downloads, file: file('f.pdf'), at: t + 6 + ARRIVAL_GROUP_MS / 1000 + 1 }]);
    expect(s.messages.map((m) => m.content)).toEqual([
      '3 files arrived from Downloads',
      'scan.pdf arrived from Scans',
      'd.pdf arrived from Downloads',
      'what came in?',
      'e.pdf arrived from Downloads',
      'f.pdf arrived from Downloads',
    ]);
  });

  it('an imported row keeps an arrival only of the shape this version writes', () => {
    expect(arrivalFrom({ source: 'folder', from: 'Scans', last_at: 5 })).toEqual({ source: 'folder', from: 'Scans', last_at: 5 });
    expect(arrivalFrom({ source: 'open-with', last_at: 5, extra: '<x>' })).toEqual({ source: 'open-with', last_at: 5 });
    for (const bad of [null, [], 'folder', { source: 'mail', last_at: 1 }, { source: 'folder', last_at: '1' }, { source: 'folder', from: 7, last_at: 1 }, { source: 'folder', from: 'x'.repeat(256), last_at: 1 }]) {
      expect(arrivalFrom(bad)).toBeUndefined();
    }
  });

  it(`a row holds at most ${MAX_FILES_PER_ARRIVAL_ROW} files`, () => {
    const s = session();
    appendArrivals(s, Array.from({ length: MAX_FILES_PER_ARRIVAL_ROW + 1 }, (_, i) => ({ source: downloads, file: file(`${i}.txt`), at: 1 })));
    expect(s.messages.map((m) => m.attachments?.length)).toEqual([MAX_FILES_PER_ARRIVAL_ROW, 1]);
  });
});

describe('ArrivalLog with a real store', () => {
  let dir: string;
  afterEach(async () => fsp.rm(dir, { recursive: true, force: true }));

  it('a burst of 1,000 files is one store write and one session_updated, and survives a reopen', async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-arrivals-'));
    const store = await openStore(dir);
    const s = await store.create({ workspace: dir, profile: 'default' });
    const events = new EventBus();
    const seen: ServerEvent[] = [];
    events.subscribe((e) => seen.push(e));
    const log = new ArrivalLog(store, events, 50);
    for (let i = 0; i < 1000; i++) log.record('default', s.session_id, downloads, { filename: `f${i}.txt`, path: `${dir}/f${i}.txt`, size: 1, mime: 'text/plain', is_image: false });
    await log.flush();
    expect(log.writeCount).toBe(1);
    expect(seen.map((e) => e.name)).toEqual(['session_updated']);
    await store.close();

    const reopened = await openStore(dir);
    const rows = (await reopened.get(s.session_id))!.messages;
    expect(rows.map((m) => m.content)).toEqual([`${MAX_FILES_PER_ARRIVAL_ROW} files arrived from Downloads`, `${1000 - MAX_FILES_PER_ARRIVAL_ROW} files arrived from Downloads`]);
    expect(rows[1]!.attachments!.at(-1)).toMatchObject({ kind: 'file', filename: 'f999.txt' });
    await reopened.close();
  });
});

describe('arrival rows through the server', () => {
  let tmp: string;
  afterEach(async () => fsp.rm(tmp, { recursive: true, force: true }));

  it('a file opened with Satchel is a row with its chip: in GET /api/session, search and export, and after a restart', async () => {
    tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'satchel-arrivals-srv-'));
    const workspace = path.join(tmp, 'workspace');
    fs.mkdirSync(workspace);
    const config = { host: '127.0.0.1', port: 0, stateDir: path.join(tmp, 'state'), token: TEST_TOKEN, defaultWorkspace: workspace, maxUploadBytes: 1024 * 1024 };
    const get = (origin: string, p: string) => fetch(origin + p, { headers: { Authorization: `Bearer ${TEST_TOKEN}` } });
    const report = path.join(tmp, 'quarterly report.txt');
    fs.writeFileSync(report, 'revenue went up');

    const first = await startServer(config);
    const result = await first.desktop.addToInbox([report]);
    await first.close();

    const again = await startServer(config);
    try {
      const body = (await (await get(again.origin, `/api/session?session_id=${result.sessionId}`)).json()) as { session: Session };
      expect(body.session.messages).toHaveLength(1);
      const row = body.session.messages[0]!;
      expect(row).toMatchObject({ role: 'system', content: 'quarterly_report.txt arrived (opened with Satchel)', arrival: { source: 'open-with' } });
      expect(row.attachments).toEqual([{ ...body.session.attachments[0], kind: 'file' }]);
      expect(fs.readFileSync((row.attachments![0] as FileAttachment).path, 'utf8')).toBe('revenue went up');

      // The file counts as sent: it cannot be deleted from under its row.
      const del = await fetch(`${again.origin}/api/session/attachment?session_id=${result.sessionId}&path=${encodeURIComponent((row.attachments![0] as FileAttachment).path)}`, { method: 'DELETE', headers: { Authorization: `Bearer ${TEST_TOKEN}` } });
      expect([del.status, await del.json()]).toEqual([409, { error: 'This attachment belongs to a sent message and cannot be deleted' }]);

      const search = (await (await get(again.origin, '/api/search?q=arrived')).json()) as { results: { kind: string; message_index?: number }[] };
      expect(search.results).toContainEqual(expect.objectContaining({ kind: 'message', message_index: 0 }));

      // With files to carry, the JSON export is a zip of conversation.json and attachments/ (docs/API.md).
      const zipPath = path.join(tmp, 'export.zip');
      fs.writeFileSync(zipPath, Buffer.from(await (await get(again.origin, `/api/session/export?session_id=${result.sessionId}&format=json`)).arrayBuffer()));
      const exported = JSON.parse(execFileSync('unzip', ['-p', zipPath, 'conversation.json'], { encoding: 'utf8' })) as { messages: Message[] };
      expect(exported.messages[0]).toMatchObject({ role: 'system', content: 'quarterly_report.txt arrived (opened with Satchel)', arrival: { source: 'open-with' } });
      expect(exported.messages[0]!.attachments![0]).toMatchObject({ filename: 'quarterly_report.txt', path: 'attachments/quarterly_report.txt' });

      // Imported back, the row is still an arrival, its file in the new conversation's folder.
      const imported = await postMultipart({ api: (p, init) => fetch(again.origin + p, { ...init, headers: { Authorization: `Bearer ${TEST_TOKEN}`, ...(init?.headers as Record<string, string>) } }) }, '/api/session/import', [{ name: 'file', filename: 'x.zip', content: fs.readFileSync(zipPath) }]);
      expect(imported.status).toBe(200);
      const copy = (await (await get(again.origin, `/api/session?session_id=${imported.body.session.session_id}`)).json()) as { session: Session };
      expect(copy.session.messages[0]).toMatchObject({ role: 'system', arrival: { source: 'open-with', last_at: row.arrival!.last_at } });
      expect(fs.readFileSync((copy.session.messages[0]!.attachments![0] as FileAttachment).path, 'utf8')).toBe('revenue went up');
    } finally {
      await again.close();
    }
  });
});
