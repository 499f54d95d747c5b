// Test harness: a real server on a free loopback port with its own state directory, and raw-socket helpers
// where fetch would hide the transport (framing, pipelining, connection close). Every wait has a deadline.
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AppOptions } from '../app.js';
import type { ServerConfig } from '../core/config.js';
import { startServer, type RunningServer } from '../index.js';

process.env.SATCHEL_LOG_LEVEL ??= 'warn';

// Satchel masks its own launch token wherever text leaves (redact/known.ts: the token, its halves, spaced
// forms): a token sharing a run with the tests' sample keys (`…0123456789abcdef`) would mask those too.
export const TEST_TOKEN = 'test-token-Vq8wLz3RkT5mYp2N';
export const RAW_DEADLINE_MS = 5_000;
/**
 * The MCP token of a harness-made state folder. It is masked wherever text leaves too, with its halves and
 * base64 forms: a random one would hold back a reply's last letters in one run in twenty (a form starting with
 * them), so which frames a test sees would vary from run to run. A fixed one makes every run the same.
 */
export const TEST_MCP_TOKEN = 'test-mcp-token-Hq4uJx7NcW2pBd9S';

export interface TestServer extends RunningServer {
  /** A trusted workspace root (SATCHEL_WEBUI_DEFAULT_WORKSPACE) inside the temp dir. */
  workspace: string;
  tmp: string;
  /** fetch with the token and a same-origin Host. */
  api(pathname: string, init?: RequestInit): Promise<Response>;
  json(pathname: string, body: unknown): Promise<Response>;
  newSession(body?: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

/** A test's changes to the server: configuration and the parts it swaps in (app.ts AppOptions), in one bag. */
export type TestServerOverrides = Partial<ServerConfig> & AppOptions;

/** The bag split into the configuration and the composition root's options, as startServer takes them. */
export function splitOverrides(overrides: TestServerOverrides): { config: Partial<ServerConfig>; options: AppOptions } {
  const { agentKeyStore, mcpTokenStore, agent, inbox, databaseCare, inboxSession, ...config } = overrides;
  return { config, options: { agentKeyStore, mcpTokenStore, agent, inbox, databaseCare, inboxSession } };
}

export async function startTestServer(overrides: TestServerOverrides = {}): Promise<TestServer> {
  const { config, options } = splitOverrides(overrides);
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-test-'));
  const workspace = path.join(tmp, 'workspace');
  await fs.mkdir(workspace);
  const stateDir = path.join(tmp, 'state');
  if (config.stateDir === undefined && options.mcpTokenStore === undefined) {
    await fs.mkdir(stateDir, { mode: 0o700 });
    await fs.writeFile(path.join(stateDir, 'mcp-token'), TEST_MCP_TOKEN + '\n', { mode: 0o600 });
  }
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    stateDir,
    token: TEST_TOKEN,
    maxUploadBytes: 100 * 1024 * 1024,
    defaultWorkspace: workspace,
    ...config,
  }, options);
  const api = (pathname: string, init: RequestInit = {}) =>
    fetch(server.origin + pathname, {
      ...init,
      headers: { Authorization: `Bearer ${TEST_TOKEN}`, ...(init.headers as Record<string, string> | undefined) },
      signal: init.signal ?? AbortSignal.timeout(30_000),
    });
  const json = (pathname: string, body: unknown) =>
    api(pathname, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
  return {
    ...server,
    workspace,
    tmp,
    api,
    json,
    async newSession(body = {}) {
      const res = await json('/api/session/new', body);
      if (res.status !== 200) throw new Error(`session/new: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { session: { session_id: string } }).session.session_id;
    },
    async stop() {
      await server.close();
      // A background write that began before the close (a sidecar, an index entry) may still land a file while the
      // tree is removed (ENOTEMPTY): rm retries then, as it is made to.
      await fs.rm(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

export interface RawResponse {
  status: number;
  headers: [string, string][];
  header(name: string): string | undefined;
  body: string;
}

/** Parse every HTTP/1.1 response in `text` (Content-Length framed, as this server always sends). */
export function parseResponses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) break;
    const lines = rest.slice(0, end).split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    const headers = lines.slice(1).map((l) => {
      const i = l.indexOf(':');
      return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()] as [string, string];
    });
    const length = Number(headers.find(([n]) => n === 'content-length')?.[1] ?? 0);
    const body = rest.slice(end + 4, end + 4 + length);
    out.push({ status, headers, body, header: (name) => headers.find(([n]) => n === name.toLowerCase())?.[1] });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

/**
 * Write raw bytes, then read until the server closes the connection (or the deadline passes, which is
 * reported as `closed: false`).
 */
export function rawExchange(port: number, payload: string | Buffer, deadlineMs = RAW_DEADLINE_MS): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closed: false });
    }, deadlineMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code === 'ECONNRESET') return;
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closed: true });
    });
    socket.write(payload);
  });
}

export function multipartBody(boundary: string, parts: { name?: string; filename?: string; content: string | Buffer; type?: string }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let disposition = 'form-data';
    if (p.name !== undefined) disposition += `; name="${p.name}"`;
    if (p.filename !== undefined) disposition += `; filename="${p.filename}"`;
    let head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n`;
    if (p.filename !== undefined) head += `Content-Type: ${p.type ?? 'application/octet-stream'}\r\n`;
    chunks.push(Buffer.from(head + '\r\n', 'utf8'), Buffer.isBuffer(p.content) ? p.content : Buffer.from(p.content, 'utf8'), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export interface Conversation {
  /** Every byte the server sent, latin1. */
  text: string;
  responses: RawResponse[];
  /** The server closed the connection before the deadline. */
  closed: boolean;
}

/**
 * Write raw bytes (in pieces, with optional pauses, so a test can play a slow or a `100-continue` client),
 * then read until `responses` answers have arrived and the server has been quiet for `settleMs` (to catch a
 * second answer that should not exist), the server closes, or the deadline passes.
 */
export function converse(
  port: number,
  pieces: (string | Buffer | { waitFor: string } | { pauseMs: number })[],
  opts: { responses?: number; settleMs?: number; deadlineMs?: number } = {},
): Promise<Conversation> {
  const { responses = 1, settleMs = 150, deadlineMs = RAW_DEADLINE_MS } = opts;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled: NodeJS.Timeout | undefined;
    let waiting: { text: string; go: () => void } | undefined;
    const text = (): string => Buffer.concat(chunks).toString('latin1');
    const finish = (closed: boolean): void => {
      clearTimeout(deadline);
      clearTimeout(settled);
      socket.destroy();
      const all = text();
      resolve({ text: all, responses: parseResponses(all.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '')), closed });
    };
    const deadline = setTimeout(() => finish(false), deadlineMs);
    socket.on('data', (c) => {
      chunks.push(c);
      if (waiting && text().includes(waiting.text)) {
        const { go } = waiting;
        waiting = undefined;
        go();
      }
      if (parseResponses(text().replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '')).length >= responses) {
        clearTimeout(settled);
        settled = setTimeout(() => finish(false), settleMs);
      }
    });
    socket.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code === 'ECONNRESET' || (err as NodeJS.ErrnoException).code === 'EPIPE') return;
      clearTimeout(deadline);
      reject(err);
    });
    socket.on('close', () => finish(true));
    const send = async (): Promise<void> => {
      for (const piece of pieces) {
        if (socket.destroyed) return;
        if (typeof piece === 'string' || Buffer.isBuffer(piece)) socket.write(piece);
        else if ('pauseMs' in piece) await new Promise((r) => setTimeout(r, piece.pauseMs));
        else if (!text().includes(piece.waitFor)) await new Promise<void>((go) => (waiting = { text: piece.waitFor, go }));
      }
    };
    socket.once('connect', () => void send());
  });
}

/** One part of a multipart body, as `multipartBody` takes it. */
export type Part = Parameters<typeof multipartBody>[1][number];
export const TEST_BOUNDARY = 'satchelBoundary7MA4YWxk';

/** POST a multipart form with the token; the status and the parsed JSON answer. */
export async function postMultipart(
  srv: Pick<TestServer, 'api'>,
  pathname: string,
  parts: Part[],
  headers: Record<string, string> = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: Record<string, any> }> {
  const res = await srv.api(pathname, {
    method: 'POST',
    body: new Uint8Array(multipartBody(TEST_BOUNDARY, parts)),
    headers: { 'Content-Type': `multipart/form-data; boundary=${TEST_BOUNDARY}`, ...headers },
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/**
 * Background work (a purge, an index entry, a sidecar) waited for at most this long: a deadline that only a stall
 * reaches. 10 s was reached at load 12 on two cores with the work still going (an Office sidecar indexed).
 */
export const BACKGROUND_DEADLINE_MS = 25_000;

/** Poll `check` every 25 ms until it holds; fails naming `what` after `deadlineMs` (a purge, a background write). */
export async function waitUntil(check: () => Promise<boolean>, what: string, deadlineMs = BACKGROUND_DEADLINE_MS): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
