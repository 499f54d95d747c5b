/// <reference lib="dom" />
// What a chat attach does with what it cannot send as it came (issue 25), as the person sees it and as the agent
// gets it: a .gz (made by gzip) shows its decompressed name and what it came from, a .7z (made by 7z) is refused
// on its chip in red with what to do, and a second project.zip reads project-1.zip on its chip, on the sent
// message and in what the agent receives. Its own server and fake agent (it configures one).
import { test, expect } from '@playwright/test';
import fs from 'node:fs';
import path from 'node:path';
import { reply, type FakeAgent } from '../server/testing/fake-agent.js';
import { newSession } from './fixtures.js';
import { completionRequests, configureAgent, lastUserMessage, openApp, partsOf } from './helpers/chat.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import type { RunningServer } from './helpers/server.js';
import { madeBy, shownNames } from './helpers/fs.js';
import { buildZip } from './helpers/zip.js';
import { hasTool } from '../server/archive/testing/real-tools.js';

const KEY = 'sk-attach-kinds-key';
const LOG = 'GET /health 200 3ms\nGET /api/items 500 41ms\n';
const SEVEN_ZIP_REFUSED = "7z archives can't be read by Satchel yet. Extract it and drop the folder, or make a .zip.";

let server: RunningServer;
let agent: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  agent = a;
});


test('a .gz shows what it holds, a .7z is refused on its chip, a second project.zip is project-1.zip everywhere', async ({ page }) => {
  test.skip(!hasTool('gzip', 'gzip') || !hasTool('7z', 'p7zip-full'), 'gzip and 7z make the files this test drops; install them (gzip, p7zip-full)');
  await openApp(page, server);
  await configureAgent(page, agent, KEY);
  const id = await newSession(page, server.workspace);
  const attachDir = path.join(server.stateDir, 'attachments', id);

  // A project.zip is already stored in this conversation.
  const zip = await buildZip({ 'src/main.ts': 'console.log("hi");\n' });
  await page.getByTestId('file-input').setInputFiles([{ name: 'project.zip', mimeType: 'application/zip', buffer: zip }]);
  await expect(page.locator('[data-testid="attachment-chip"][data-filename="project.zip"]')).toHaveAttribute('data-status', 'done');

  const gz = madeBy({ 'server.log': LOG }, 'server.log.gz', 'gzip', ['-9', 'server.log']);
  const sevenZip = madeBy({ 'notes.txt': 'notes\n' }, 'notes.7z', '7z', ['a', '-bd', '-y', 'notes.7z', 'notes.txt']);
  await page.getByTestId('file-input').setInputFiles([
    { name: 'server.log.gz', mimeType: 'application/gzip', buffer: gz },
    { name: 'notes.7z', mimeType: 'application/x-7z-compressed', buffer: sevenZip },
    { name: 'project.zip', mimeType: 'application/zip', buffer: zip },
  ]);

  const log = page.locator('[data-testid="attachment-chip"][data-filename="server.log"]');
  await expect(log).toHaveAttribute('data-status', 'done');
  await expect(log.locator('.chip-name')).toHaveText('server.log');
  await expect(log.getByTestId('attachment-origin')).toHaveText('(from server.log.gz)');

  const refused = page.locator('[data-testid="attachment-chip"][data-filename="notes.7z"]');
  await expect(refused).toHaveAttribute('data-status', 'error');
  await expect(refused.getByTestId('attachment-error')).toHaveText(SEVEN_ZIP_REFUSED);
  // Red: the chip's error state and the page's error colour.
  await expect(refused).toHaveClass(/\bchip-error\b/);
  await expect(refused.getByTestId('attachment-error')).toHaveClass(/\berror-text\b/);

  const second = page.locator('[data-testid="attachment-chip"][data-filename="project-1.zip"]');
  await expect(second).toHaveAttribute('data-status', 'done');
  await expect(second.locator('.chip-name')).toHaveText('project-1.zip');
  expect(shownNames(attachDir)).toEqual(['project-1.zip', 'project.zip', 'server.log']);
  expect(fs.readFileSync(path.join(attachDir, 'server.log'), 'utf8')).toBe(LOG);

  // Send: the refused chip is removed first (it holds nothing to send).
  await refused.getByTestId('attachment-cancel').click();
  const before = completionRequests(agent).length;
  agent.next(reply('Two archives and a log.'));
  await page.getByTestId('composer-input').fill('What did I send?');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Two archives and a log.', { timeout: 15_000 });

  const sentMessage = page.getByTestId('message').filter({ hasText: 'What did I send?' }).last();
  await expect(sentMessage.getByTestId('message-attachment').locator('.chip-name')).toHaveText(['project.zip', 'server.log', 'project-1.zip']);
  await expect(sentMessage.getByTestId('message-attachment').nth(1).getByTestId('attachment-origin')).toHaveText('(from server.log.gz)');

  const sent = completionRequests(agent);
  expect(sent).toHaveLength(before + 1);
  const text = partsOf(lastUserMessage(sent.at(-1))).map((p) => p.text ?? '').join('\n');
  expect(text).toContain('"project-1.zip"');
  expect(text).toContain(`"server.log"`);
  expect(text).toContain(LOG.trim());
  // Named with the .gz it came from, so the agent knows the bytes were decompressed (issue 25).
  expect(text).toContain('Attached file "server.log" (decompressed from server.log.gz):');
  expect(text).not.toContain('notes.7z');
});
