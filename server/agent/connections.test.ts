// connections.ts on a real state folder: the environment overlays the default connection (README's table keeps
// working), agent.json is read in place, a connection's key goes only to its own address, and a broken
// connections file costs the saved connections, never agent.json's agent.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CONNECTIONS_FILE,
  deleteConnection,
  listConnections,
  loadConnectionConfig,
  MAIN_CONNECTION_ID,
  publicConnections,
  saveConnection,
  setDefaultConnection,
} from './connections.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-connections-'));
  fs.writeFileSync(path.join(dir, 'agent.json'), JSON.stringify({ baseUrl: 'http://127.0.0.1:9001', apiKey: 'key-main-0123456789', model: 'm1' }), { mode: 0o600 });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const save = (next: Parameters<typeof saveConnection>[1]) => saveConnection(dir, next);

describe('agent connections', () => {
  it('the environment overlays the default connection, whichever it is', async () => {
    const env = { SATCHEL_AGENT_MODEL: 'from-env', SATCHEL_AGENT_API_KEY: 'key-env-0123456789' };
    expect(loadConnectionConfig(dir, env, undefined)).toMatchObject({ baseUrl: 'http://127.0.0.1:9001', model: 'from-env', apiKey: 'key-env-0123456789' });
    const other = await save({ name: 'Other', baseUrl: 'http://127.0.0.1:9002', model: 'm2', apiKey: 'key-other-0123456789' });
    // Not the default: its own fields.
    expect(loadConnectionConfig(dir, env, undefined, other)).toMatchObject({ model: 'm2', apiKey: 'key-other-0123456789' });
    await setDefaultConnection(dir, other, env);
    expect(loadConnectionConfig(dir, env, undefined)).toMatchObject({ baseUrl: 'http://127.0.0.1:9002', model: 'from-env', apiKey: 'key-env-0123456789' });
    expect(loadConnectionConfig(dir, env, undefined, MAIN_CONNECTION_ID)).toMatchObject({ model: 'm1', apiKey: 'key-main-0123456789' });
    const shown = publicConnections(dir, env);
    expect(shown.connections.map((c) => [c.id === other, c.is_default, c.from_env])).toEqual([
      [false, false, []],
      [true, true, ['apiKey', 'model']],
    ]);
  });

  it("a connection's key goes to its own address only: a new address drops it unless kept", async () => {
    const id = await save({ baseUrl: 'http://127.0.0.1:9002', model: '', apiKey: 'key-other-0123456789' });
    await save({ id, baseUrl: 'http://127.0.0.1:9003', model: '' });
    expect(loadConnectionConfig(dir, {}, undefined, id)).not.toHaveProperty('apiKey');
    await save({ id, baseUrl: 'http://127.0.0.1:9003', model: '', apiKey: 'key-third-0123456789' });
    await save({ id, baseUrl: 'http://127.0.0.1:9004', model: '', keepApiKey: true });
    expect(loadConnectionConfig(dir, {}, undefined, id)).toMatchObject({ baseUrl: 'http://127.0.0.1:9004', apiKey: 'key-third-0123456789' });
    // A connection's name defaults to its host; an unknown id is the default's agent.
    expect(listConnections(dir, {}).connections.find((c) => c.id === id)?.name).toBe('127.0.0.1:9004');
    expect(loadConnectionConfig(dir, {}, undefined, 'ffffffffffffffff')).toMatchObject({ baseUrl: 'http://127.0.0.1:9001' });
  });

  it("deleting agent.json's connection removes its address and key; a broken connections file leaves agent.json's agent", async () => {
    const id = await save({ baseUrl: 'http://127.0.0.1:9002', model: '' });
    await setDefaultConnection(dir, id, {});
    await deleteConnection(dir, MAIN_CONNECTION_ID, {});
    expect(fs.readFileSync(path.join(dir, 'agent.json'), 'utf8')).toBe('{}\n');
    expect(listConnections(dir, {}).connections.map((c) => c.id)).toEqual([id]);

    fs.writeFileSync(path.join(dir, 'agent.json'), JSON.stringify({ baseUrl: 'http://127.0.0.1:9001' }));
    fs.writeFileSync(path.join(dir, CONNECTIONS_FILE), '{not json');
    expect(listConnections(dir, {})).toMatchObject({ defaultId: MAIN_CONNECTION_ID, connections: [{ id: MAIN_CONNECTION_ID, isDefault: true }] });
  });

  it('the first connection of a state folder without an agent becomes the default', async () => {
    fs.rmSync(path.join(dir, 'agent.json'));
    expect(loadConnectionConfig(dir, {}, undefined)).toBeUndefined();
    const id = await save({ baseUrl: 'http://127.0.0.1:9002', model: '' });
    expect(listConnections(dir, {}).defaultId).toBe(id);
    const second = await save({ baseUrl: 'http://127.0.0.1:9003', model: '' });
    expect(listConnections(dir, {}).defaultId).toBe(id);
    expect(second).not.toBe(id);
  });
});
