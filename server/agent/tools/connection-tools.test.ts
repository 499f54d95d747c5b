// The tools' fields of a connection (connections.ts, config.ts): the person's switch kept across saves, a refusal
// remembered on the connection the turn or Test was about (agent.json's or a saved one), dropped with a new
// address, and what a turn then gets (`satchelTools`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listConnections, loadConnectionConfig, MAIN_CONNECTION_ID, publicConnections, rememberToolsRefused, saveConnection } from '../connections.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-connection-tools-'));
  fs.writeFileSync(path.join(dir, 'agent.json'), JSON.stringify({ baseUrl: 'http://127.0.0.1:9001', model: 'm1' }), { mode: 0o600 });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const tools = (id: string) => loadConnectionConfig(dir, {}, undefined, id)?.satchelTools;
const shown = (id: string) => publicConnections(dir, {}).connections.find((c) => c.id === id)!;

describe("a connection's tools", () => {
  it('are on by default; the switch is kept by a save that does not name it', async () => {
    const id = await saveConnection(dir, { baseUrl: 'http://127.0.0.1:9002', model: 'm2' });
    expect([tools(id), shown(id).tools, shown(id).tools_refused]).toEqual([true, true, false]);
    await saveConnection(dir, { id, baseUrl: 'http://127.0.0.1:9002', model: 'm2', tools: false });
    expect([tools(id), shown(id).tools]).toEqual([false, false]);
    await saveConnection(dir, { id, baseUrl: 'http://127.0.0.1:9002', model: 'm3' });
    expect(tools(id)).toBe(false);
    await saveConnection(dir, { id: MAIN_CONNECTION_ID, baseUrl: 'http://127.0.0.1:9001', model: 'm1', tools: false });
    expect([tools(MAIN_CONNECTION_ID), tools(id)]).toEqual([false, false]);
  });

  it('a refusal is remembered on the connection named (else the default), kept at its address, dropped at a new one', async () => {
    const id = await saveConnection(dir, { baseUrl: 'http://127.0.0.1:9002', model: 'm2' });
    await rememberToolsRefused(dir, id, true, {});
    expect([tools(id), tools(MAIN_CONNECTION_ID), shown(id).tools_refused]).toEqual([false, true, true]);
    await rememberToolsRefused(dir, undefined, true, {});
    expect(tools(MAIN_CONNECTION_ID)).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'agent.json'), 'utf8'))).toMatchObject({ baseUrl: 'http://127.0.0.1:9001', toolsRefused: true });
    // The same address saved again keeps it; another address may take tools.
    await saveConnection(dir, { id, baseUrl: 'http://127.0.0.1:9002/v1', model: 'm2' });
    expect(tools(id)).toBe(false);
    await saveConnection(dir, { id, baseUrl: 'http://127.0.0.1:9003', model: 'm2' });
    expect(tools(id)).toBe(true);
    // A Test that finds tools taken clears it; a connection since deleted is the default's, as its turn used the default.
    await rememberToolsRefused(dir, MAIN_CONNECTION_ID, false, {});
    expect(tools(MAIN_CONNECTION_ID)).toBe(true);
    await rememberToolsRefused(dir, 'ffffffffffffffff', true, {});
    expect(listConnections(dir, {}).connections.map((c) => c.settings.toolsRefused === true)).toEqual([true, false]);
  });
});
