// `npm run serve` restarted under a tab that stays open: the headless server comes back on the port it had
// (remembered in its state folder) with a new token, and the page, whose cookie now holds a stale token,
// says what to do instead of failing silently. The server runs as `npm run serve` runs it: dist/server/cli.js.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { START_DEADLINE_MS, stopChild } from './helpers/server.js';

const URL_LINE = /Satchel is running at (http:\/\/[^\s/]+)\/\?token=([^\s]+)/;
const RESTARTED_TEXT = 'Satchel restarted: open the new link printed in the terminal.';

interface Launched {
  base: string;
  token: string;
  stop(): Promise<void>;
}

/** Start `node dist/server/cli.js` on `stateDir` (no --port: the remembered one is tried first). */
async function serve(stateDir: string, workspace: string): Promise<Launched> {
  const child: ChildProcess = spawn(process.execPath, [path.resolve('dist/server/cli.js'), '--state-dir', stateDir], {
    env: { ...process.env, SATCHEL_WEBUI_DEFAULT_WORKSPACE: workspace, SATCHEL_WEBUI_TOKEN: '', SATCHEL_WEBUI_PORT: '', SATCHEL_STT_PRELOAD: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const found = await new Promise<{ base: string; token: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within ${START_DEADLINE_MS} ms:\n${output}`)), START_DEADLINE_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const m = URL_LINE.exec(output);
      if (m?.[1] && m[2]) {
        clearTimeout(timer);
        resolve({ base: m[1], token: m[2] });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return { ...found, stop: () => stopChild(child) };
}

test('after a restart the open tab says to open the new link, and the new link works in it', async ({ page }) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-restart-'));
  const stateDir = path.join(root, 'state');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const running: Launched[] = [];
  try {
    const first = await serve(stateDir, workspace);
    running.push(first);
    await page.goto(`${first.base}/?token=${first.token}`);
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await expect(page.getByTestId('access-restarted')).toHaveCount(0);

    await first.stop();
    const second = await serve(stateDir, workspace);
    running.push(second);
    expect(second.base).toBe(first.base);
    expect(second.token).not.toBe(first.token);

    // The live-updates stream drops with the old server and is refused by the new one.
    const notice = page.getByTestId('access-restarted');
    await expect(notice).toBeVisible({ timeout: 20_000 });
    await expect(notice).toContainText(RESTARTED_TEXT);
    await expect(page.getByTestId('app')).toBeHidden();
    await expect(page.getByTestId('auth-required')).toBeHidden();

    await page.goto(`${second.base}/?token=${second.token}`);
    await expect(page.getByTestId('app')).toHaveAttribute('data-ready', 'true');
    await expect(page.getByTestId('access-restarted')).toHaveCount(0);
  } finally {
    for (const server of running) await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
