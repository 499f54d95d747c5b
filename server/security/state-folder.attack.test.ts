// Satchel's own state folder read through a workspace. On macOS the state folder is
// `~/Library/Application Support/Satchel` and on Windows `%APPDATA%\Satchel` (no leading dot), so a workspace at
// the home folder would list and read agent.json, mcp-token and other profiles' session files, through the UI and
// MCP, and MCP search would find another profile's messages. Both layouts are made under a temporary home (HOME,
// APPDATA, LOCALAPPDATA set for the server), with a keychain and a browser profile beside them.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PROFILE_COOKIE } from '../http/profile-cookie.js';
import { PROTECTED_WORKSPACE } from '../store/protected.js';
import { PROTECTED_TARGET } from '../workspace/upload-target.js';
import { postMultipart, startTestServer, TEST_TOKEN, type TestServer } from '../testing/harness.js';

/** Words that exist only inside protected places: no answer may contain them. */
const AGENT_KEY = 'plainkeyQWERTYUIOPzxcvbnm0123456789';
const WORK_MESSAGE = 'the work profile whispers PELICANWORK';
const KEYCHAIN = 'KEYCHAINBYTES login item';
const BROWSER = 'BROWSERCOOKIE session=abc';
const NEEDLE = 'OPENNEEDLE';

interface Layout {
  name: string;
  /** The state folder below the home folder. */
  state: string[];
  /** A credential or browser place below the home folder, and a file in it. */
  places: { dir: string[]; file: string; content: string }[];
  /** A folder beside the state folder that lists normally. */
  sibling: string[];
}

const LAYOUTS: Layout[] = [
  {
    name: 'macOS',
    state: ['Library', 'Application Support', 'Satchel'],
    places: [
      { dir: ['Library', 'Keychains'], file: 'login.keychain-db', content: KEYCHAIN },
      { dir: ['Library', 'Application Support', 'Google', 'Chrome'], file: 'Cookies', content: BROWSER },
    ],
    sibling: ['Library', 'Application Support', 'SomeEditor'],
  },
  {
    name: 'Windows',
    state: ['AppData', 'Roaming', 'Satchel'],
    places: [
      { dir: ['AppData', 'Roaming', 'Microsoft', 'Credentials'], file: 'DFBE70A7E5CC19A398EBF1B96859CE5D', content: KEYCHAIN },
      { dir: ['AppData', 'Local', 'Google', 'Chrome', 'User Data'], file: 'Login Data', content: BROWSER },
    ],
    sibling: ['AppData', 'Roaming', 'SomeEditor'],
  },
];

const ENV_KEYS = ['HOME', 'APPDATA', 'LOCALAPPDATA', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'SATCHEL_WEBUI_ATTACHMENT_DIR'] as const;

describe.each(LAYOUTS)('$name layout under a temporary home', (layout) => {
  let home: string;
  let stateDir: string;
  let srv: TestServer;
  let session: string;
  let workSession: string;
  let mcpToken: string;
  let client: Client;
  const saved: Partial<Record<(typeof ENV_KEYS)[number], string>> = {};

  beforeAll(async () => {
    for (const k of ENV_KEYS) saved[k] = process.env[k];
    home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-home-')));
    process.env.HOME = home;
    process.env.APPDATA = path.join(home, 'AppData', 'Roaming');
    process.env.LOCALAPPDATA = path.join(home, 'AppData', 'Local');
    for (const k of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'SATCHEL_WEBUI_ATTACHMENT_DIR'] as const) delete process.env[k];
    stateDir = path.join(home, ...layout.state);
    await fs.mkdir(stateDir, { recursive: true, mode: 0o700 });
    await fs.writeFile(path.join(stateDir, 'agent.json'), JSON.stringify({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: AGENT_KEY }), { mode: 0o600 });
    for (const place of layout.places) {
      await fs.mkdir(path.join(home, ...place.dir), { recursive: true });
      await fs.writeFile(path.join(home, ...place.dir, place.file), place.content);
    }
    await fs.mkdir(path.join(home, ...layout.sibling), { recursive: true });
    await fs.writeFile(path.join(home, ...layout.sibling, 'settings.txt'), 'editor settings');
    await fs.writeFile(path.join(home, 'notes.txt'), `my notes ${NEEDLE}`);
    // A link in the home folder to the state folder, another spelling of the same directory.
    await fs.symlink(stateDir, path.join(home, 'state-link'));

    srv = await startTestServer({ stateDir });
    workSession = await srv.newSession({ profile: 'work' });
    const said = await srv.api('/api/session/message', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: `${PROFILE_COOKIE}=work` },
      body: JSON.stringify({ session_id: workSession, text: WORK_MESSAGE }),
    });
    expect(said.status).toBe(200);
    session = await srv.newSession({ workspace: home });
    mcpToken = (await fs.readFile(path.join(stateDir, 'mcp-token'), 'utf8')).trim();
    expect(mcpToken.length).toBeGreaterThan(16);
    client = new Client({ name: 'state-folder', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(srv.origin + '/mcp'), { requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } } }));
  });

  afterAll(async () => {
    await client?.close();
    await srv?.stop();
    for (const k of ENV_KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await fs.rm(home, { recursive: true, force: true });
  });

  /** Nothing that only a protected place holds. */
  function expectClean(text: string): void {
    for (const secret of [AGENT_KEY, mcpToken, 'PELICANWORK', 'KEYCHAINBYTES', 'BROWSERCOOKIE', workSession]) expect(text).not.toContain(secret);
  }

  const rel = (...parts: string[]) => parts.join('/');

  async function get(route: string, p: string, hidden = false) {
    const res = await srv.api(`/api/workspace/${route}?session_id=${session}&path=${encodeURIComponent(p)}${hidden ? '&hidden=1' : ''}`);
    const text = await res.text();
    return { status: res.status, text: res.headers.get('content-type')?.startsWith('application/json') ? JSON.stringify(JSON.parse(text)) : text };
  }

  it('refuses the state folder, a folder inside it, a link to it and the credential places as workspaces (400, exact text)', async () => {
    const refused = [
      stateDir,
      // A folder the server keeps in it (sessions/ was one before sessions moved into the database).
      path.join(stateDir, 'staging'),
      path.join(home, 'state-link'),
      ...layout.places.map((p) => path.join(home, ...p.dir)),
    ];
    for (const dir of refused) {
      for (const [route, body] of [
        ['/api/session/new', { workspace: dir }],
        ['/api/workspaces/add', { path: dir }],
      ] as const) {
        const res = await srv.json(route, body);
        expect({ dir, route, status: res.status, body: await res.json() }).toEqual({ dir, route, status: 400, body: { error: PROTECTED_WORKSPACE } });
      }
    }
    // Satchel's own default workspace inside the state folder stays a workspace; so does a folder beside it.
    await fs.mkdir(path.join(stateDir, 'workspace'), { recursive: true, mode: 0o700 });
    expect((await srv.json('/api/session/new', { workspace: path.join(stateDir, 'workspace') })).status).toBe(200);
    expect((await srv.json('/api/session/new', { workspace: path.join(home, ...layout.sibling) })).status).toBe(200);
  });

  it('lists the home folder without the state folder or the credential places, hidden entries shown or not', async () => {
    const parent = layout.state.slice(0, -1);
    for (const hidden of [false, true]) {
      const listing = await get('list', rel(...parent), hidden);
      expect(listing.status).toBe(200);
      const names = (JSON.parse(listing.text) as { entries: { name: string }[] }).entries.map((e) => e.name);
      expect(names).toContain(layout.sibling.at(-1));
      expect(names).not.toContain('Satchel');
      for (const place of layout.places) {
        const up = await get('list', rel(...place.dir.slice(0, -1)), hidden);
        expect(up.status).toBe(200);
        expect((JSON.parse(up.text) as { entries: { name: string }[] }).entries.map((e) => e.name)).not.toContain(place.dir.at(-1));
      }
    }
  });

  it('answers every read below a protected place like a missing file (404), by its path and through a link', async () => {
    const paths = [
      rel(...layout.state),
      rel(...layout.state, 'agent.json'),
      rel(...layout.state, 'mcp-token'),
      rel(...layout.state, 'sessions'),
      // The session database and its write-ahead log.
      rel(...layout.state, 'satchel.db'),
      rel(...layout.state, 'satchel.db-wal'),
      'state-link/agent.json',
      'state-link',
      ...layout.places.map((p) => rel(...p.dir, p.file)),
    ];
    for (const p of paths) {
      for (const route of ['file', 'preview', 'raw', 'list']) {
        for (const hidden of [false, true]) {
          const res = await get(route, p, hidden);
          expect({ p, route, status: res.status, text: res.text }).toEqual({ p, route, status: 404, text: JSON.stringify({ error: 'Not found' }) });
        }
      }
    }
    // The ordinary file beside them reads.
    expect(await get('file', 'notes.txt')).toEqual({ status: 200, text: `my notes ${NEEDLE}` });
  });

  it('writes no upload into a protected place (403, exact text), by its path or through a link', async () => {
    for (const target of [rel(...layout.state), rel(...layout.state, 'sessions'), rel(...layout.state, 'new-folder'), 'state-link', rel(...layout.places[0]!.dir)]) {
      const res = await postMultipart(srv, '/api/workspace/upload', [
        { name: 'session_id', content: session },
        { name: 'path', content: target },
        { name: 'file', filename: 'planted.txt', content: 'planted' },
      ]);
      expect({ target, status: res.status, body: res.body }).toEqual({ target, status: 403, body: { error: PROTECTED_TARGET } });
    }
    await expect(fs.access(path.join(stateDir, 'planted.txt'))).rejects.toThrow();
    await expect(fs.access(path.join(stateDir, 'new-folder'))).rejects.toThrow();
    await expect(fs.access(path.join(stateDir, 'sessions', 'planted.txt'))).rejects.toThrow();
  });

  it('MCP list_workspace, read_workspace_file, the workspace resource and search never show them', async () => {
    const call = async (name: string, args: Record<string, unknown>) => {
      const res = (await client.callTool({ name, arguments: { session_id: session, ...args } })) as { content: { type: string; text?: string }[]; isError?: boolean };
      // The first item is the answer; a successful one ends with the user-content note (mcp/server.ts).
      return { isError: res.isError ?? false, text: res.content[0]?.text ?? '' };
    };
    const parentListing = await call('list_workspace', { path: rel(...layout.state.slice(0, -1)) });
    expect(parentListing.isError).toBe(false);
    expect(parentListing.text).toContain(layout.sibling.at(-1));
    expect(parentListing.text).not.toContain('"Satchel"');
    for (const p of [rel(...layout.state), 'state-link', ...layout.places.map((x) => rel(...x.dir))]) {
      expect(await call('list_workspace', { path: p })).toEqual({ isError: true, text: 'Not found' });
    }
    for (const p of [rel(...layout.state, 'agent.json'), rel(...layout.state, 'mcp-token'), 'state-link/mcp-token', ...layout.places.map((x) => rel(...x.dir, x.file))]) {
      expect(await call('read_workspace_file', { path: p })).toEqual({ isError: true, text: 'Not found' });
      const uri = `satchel://session/${session}/workspace/${encodeURIComponent(p)}`;
      await expect(client.readResource({ uri })).rejects.toThrow('Not found');
    }
    for (const query of ['PELICANWORK', 'QWERTYUIOP', mcpToken.slice(0, 12), 'KEYCHAINBYTES', 'BROWSERCOOKIE', workSession, 'agent.json']) {
      const found = await call('search', { query });
      expect(found.isError).toBe(false);
      const { results } = JSON.parse(found.text) as { results: unknown[] };
      expect(results).toEqual([]);
      expectClean(JSON.stringify(results));
    }
    // The search did run over the home folder: the ordinary file is found.
    const open = await call('search', { query: NEEDLE });
    expect(JSON.parse(open.text).results).toMatchObject([{ where: 'workspace', ref: 'notes.txt' }]);
  });

  it("MCP search refuses another profile's session exactly as read_session does", async () => {
    for (const name of ['search', 'read_session']) {
      const res = (await client.callTool({ name, arguments: { session_id: workSession, ...(name === 'search' ? { query: 'PELICANWORK' } : {}) } })) as {
        content: { text: string }[];
        isError?: boolean;
      };
      expect({ name, isError: res.isError, text: res.content[0]!.text }).toEqual({ name, isError: true, text: 'Session not found' });
    }
  });
});
