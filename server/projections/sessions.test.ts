// The session projection against a real store: what GET /api/session sends of a stored session.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INTERNAL_MESSAGE_FIELDS } from '../store/sessions.js';
import { publicSession } from './sessions.js';
import { storedJson } from '../testing/stored-session.js';
import { openStore } from '../testing/fresh-store.js';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-projection-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('publicSession', () => {
  it('drops internal message fields from the public projection', async () => {
    const store = await openStore(dir);
    const s = await store.create({ workspace: '/w', profile: 'default' });
    await store.update(s.session_id, (d) => {
      d.messages.push({ role: 'user', content: 'hi', attachments: [], timestamp: 1, ...Object.fromEntries(INTERNAL_MESSAGE_FIELDS.map((f) => [f, 'secret'])) });
    });
    const [message] = publicSession((await store.get(s.session_id))!).messages;
    expect(message).toEqual({ role: 'user', content: 'hi', attachments: [], timestamp: 1 });
    // Not even as a key with nothing in it.
    expect(Object.keys(message!).filter((k) => (INTERNAL_MESSAGE_FIELDS as readonly string[]).includes(k))).toEqual([]);
  });

  it("drops Hermes' session id and counter, and an answer's mark, kept on disk", async () => {
    const store = await openStore(dir);
    const s = await store.create({ workspace: '/w', profile: 'default' });
    const hermes = { id: `satchel-${s.session_id}-0badf00d`, n: 2, base_url: 'http://127.0.0.1:8642' };
    await store.update(s.session_id, (d) => {
      Object.assign(d, { _hermes: hermes });
      d.messages.push({ role: 'assistant', content: 'ok', timestamp: 1, _hermes_turn: `${hermes.id}#2` });
    });
    const onDisk = await storedJson(dir, s.session_id);
    expect(onDisk._hermes).toEqual(hermes);
    const shown = publicSession((await store.get(s.session_id))!);
    expect(JSON.stringify(shown)).not.toContain('0badf00d');
    expect(Object.keys(shown)).not.toContain('_hermes');
    expect(shown.messages).toEqual([{ role: 'assistant', content: 'ok', timestamp: 1 }]);
  });
});
