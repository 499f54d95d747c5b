// The built entry under plain Node, as the e2e tests and remote users start it:
// `node dist/main/index.js --server-only`. Compiled here into a private folder inside the project (so
// node_modules and "type": "module" resolve as in dist/) rather than relying on someone's last `npm run build`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, compileProject } from '../server/testing/compile.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// A full tsc pass; on the shared 2-core machine under load it has taken 30 s.
const READY_TIMEOUT_MS = 20_000;
const EXIT_TIMEOUT_MS = 15_000;

let outDir: string;
let entry: string;
const children: ChildProcess[] = [];
const tempDirs: string[] = [];

beforeAll(() => {
  outDir = compileProject('entry-test-');
  entry = path.join(outDir, 'main', 'index.js');
  expect(existsSync(entry), 'the entry compiled').toBe(true);
}, BUILD_TIMEOUT_MS + 5_000);

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'satchel-entry-'));
  tempDirs.push(dir);
  return dir;
}

interface Started {
  child: ChildProcess;
  url: URL;
  stdout: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[]): Promise<Started> {
  const env: NodeJS.ProcessEnv = { ...process.env, SATCHEL_LOG_LEVEL: 'warn' };
  delete env.SATCHEL_WEBUI_TOKEN;
  const child = spawn(process.execPath, [entry, ...args], { cwd: outDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line in ${READY_TIMEOUT_MS} ms; stderr: ${err}`)), READY_TIMEOUT_MS);
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^Satchel is running at (\S+)$/m.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: new URL(match[1]!), stdout: () => out, exited });
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready; stderr: ${err}`));
    });
  });
}

function get(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
  });
}

function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
    }),
  ]);
}

describe('node dist/main/index.js --server-only', () => {
  it('prints the tokened URL once, serves on 127.0.0.1, and stops with exit 0 on SIGTERM', async () => {
    const stateDir = tempDir();
    const server = await start(['--server-only', '--port', '0', '--state-dir', stateDir]);
    expect(server.url.protocol).toBe('http:');
    expect(server.url.hostname).toBe('127.0.0.1');
    expect(server.url.pathname).toBe('/');
    const token = server.url.searchParams.get('token');
    expect(token).toMatch(/^\S{16,}$/);

    const health = await get(new URL('/health', server.url).href);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ ok: true });

    // The printed link is the way in: it sets the access cookie and drops the token from the address.
    const link = await get(server.url.href);
    expect([302, 303]).toContain(link.status);
    expect(link.headers.location).toBe('/');
    expect(String(link.headers['set-cookie'])).toMatch(/^satchel_access=/);
    expect(String(link.headers['set-cookie'])).toMatch(/HttpOnly/i);
    // Without it, the API is closed.
    expect((await get(new URL('/api/sessions', server.url).href)).status).toBe(401);

    expect(existsSync(stateDir)).toBe(true);
    server.child.kill('SIGTERM');
    expect(await withDeadline(server.exited, EXIT_TIMEOUT_MS, 'exit after SIGTERM')).toEqual({ code: 0, signal: null });
    expect(server.stdout().match(/Satchel is running at/g)).toHaveLength(1);
  }, READY_TIMEOUT_MS + EXIT_TIMEOUT_MS + 10_000);

  it('stops with exit 0 on SIGINT', async () => {
    const server = await start(['--server-only', '--state-dir', tempDir()]);
    // An answered request proves the code after the ready line (installing signal handlers) has run:
    // server/cli.ts prints first, so a signal sent on the line alone could beat the handler.
    expect((await get(new URL('/health', server.url).href)).status).toBe(200);
    server.child.kill('SIGINT');
    expect(await withDeadline(server.exited, EXIT_TIMEOUT_MS, 'exit after SIGINT')).toEqual({ code: 0, signal: null });
  }, READY_TIMEOUT_MS + EXIT_TIMEOUT_MS + 10_000);

  it('without --server-only explains that the window needs Electron (exit 2)', () => {
    const result = spawnSync(process.execPath, [entry], { cwd: outDir, encoding: 'utf8', timeout: EXIT_TIMEOUT_MS });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'The Satchel window needs Electron (npm start). Under plain Node run: node dist/main/index.js --server-only [--port N] [--host H] [--state-dir DIR]\n',
    );
  });

  it('only the Electron-path modules import electron', () => {
    // Under plain Node, 'electron' resolves to the npm package, whose index.js tries to download a binary.
    const mainDir = path.join(outDir, 'main');
    const source = (name: string) => readFileSync(path.join(mainDir, name), 'utf8');
    const importers = readdirSync(mainDir)
      .filter((name) => name.endsWith('.js'))
      .filter((name) => /from ['"]electron['"]|import\(['"]electron['"]\)|require\(['"]electron['"]\)/.test(source(name)));
    // electron-main.js, and the glue it alone imports (desktop-shell.js: tray, shortcuts, menu, notifications;
    // screen-capture-electron.js: quick capture's screenshots).
    expect(importers).toEqual(['desktop-shell.js', 'electron-main.js', 'screen-capture-electron.js']);
    const importedBy = (name: string) =>
      readdirSync(mainDir).filter((other) => other.endsWith('.js') && other !== name && source(other).includes(`from './${name}'`));
    expect(importedBy('desktop-shell.js')).toEqual(['electron-main.js']);
    expect(importedBy('screen-capture-electron.js')).toEqual(['electron-main.js']);
    expect(readFileSync(entry, 'utf8')).toContain("await import('./electron-main.js')");
    expect(readFileSync(entry, 'utf8')).not.toContain('desktop-shell');
  });
});
