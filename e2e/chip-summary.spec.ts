/// <reference lib="dom" />
// Each chip tells what the agent will get, before sending (issue 25, finding 2): dropped files of every kind the
// agent reads show under their name the agent reader's own summary, by colour and by a word (Ready / Partly /
// Not readable); a .7z stays refused in red; the chip's controls are described by the summary; the composer has
// no serious accessibility violation in either scheme. Its own server and fake agent (it sets a small budget).
//
// To add a kind (a PDF, a scanned page): one row in KINDS, with the file's bytes and what its chip must say.
import { test, expect, type Browser, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import path from 'node:path';
import { reply, type FakeAgent } from '../server/testing/fake-agent.js';
import { hasTool } from '../server/archive/testing/real-tools.js';
import { newSession } from './fixtures.js';
import { openApp } from './helpers/chat.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import { screenshotDir } from './helpers/screenshot-dir.js';
import type { RunningServer } from './helpers/server.js';
import { madeBy } from './helpers/fs.js';
import { buildZip } from './helpers/zip.js';
import { readFile } from 'node:fs/promises';
import { FIXTURES as PDF_FIXTURES } from '../server/content/testing/pdf-tools.js';

const KEY = 'sk-chip-summary-key';
/** The agent's budget for this spec: small, so the long file below is cut. */
const CONTEXT_CHARS = 2_000;
const SEVEN_ZIP_REFUSED = "7z archives can't be read by Satchel yet. Extract it and drop the folder, or make a .zip.";
const LOG = 'GET /health 200 3ms\nGET /api/items 500 41ms\n';

let server: RunningServer;
let agent: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  agent = a;
});


interface Kind {
  /** The name the file is dropped under. */
  drop: string;
  mime: string;
  bytes: () => Buffer | Promise<Buffer>;
  /** The chip's name once stored (a .gz is stored decompressed). */
  chip: string;
  /** Extract the archive first: the chip then tells what the agent gets from the extraction. */
  extract?: boolean;
  state: 'ready' | 'partial' | 'unreadable';
  /** The line under the name, whole (a pattern where OCR's word count may vary). */
  says: string | RegExp;
}

/** Every kind the agent reads today, and what its chip says before sending. */
const KINDS: Kind[] = [
  { drop: 'notes.txt', mime: 'text/plain', bytes: () => Buffer.from('Meeting at ten.\n'), chip: 'notes.txt', state: 'ready', says: 'Ready: 16 characters of text' },
  {
    drop: 'broken.docx',
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    bytes: () => Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(200, 7)]),
    chip: 'broken.docx',
    state: 'unreadable',
    says: 'Not readable: its text could not be extracted: the file may be damaged or encrypted',
  },
  { drop: 'blob.bin', mime: 'application/octet-stream', bytes: () => Buffer.from([0, 1, 2, 3, 0, 255, 254, 0]), chip: 'blob.bin', state: 'unreadable', says: 'Not readable: 8 bytes the agent cannot read: only its name is sent' },
  { drop: 'server.log.gz', mime: 'application/gzip', bytes: () => madeBy({ 'server.log': LOG }, 'server.log.gz', 'gzip', ['-9', 'server.log']), chip: 'server.log', state: 'ready', says: `Ready: ${LOG.length} characters of text, decompressed from server.log.gz` },
  {
    drop: 'project.zip',
    mime: 'application/zip',
    bytes: () => buildZip({ 'readme.txt': 'hello archive', 'src/main.ts': 'export {};\n' }),
    chip: 'project.zip',
    extract: true,
    state: 'ready',
    says: 'Ready: file list of 2 files, 2 text files inline',
  },
  // Not extracted: the agent still gets the list and the small text members, read from the archive itself.
  {
    drop: 'bundle.zip',
    mime: 'application/zip',
    bytes: () => buildZip({ 'todo.txt': 'buy osprey feed', 'docs/plan.md': '# Plan\n' }),
    chip: 'bundle.zip',
    state: 'ready',
    says: 'Ready: file list of 2 files, 2 text files inline',
  },
  // A text page and a page that is only a picture (ps2pdf, committed: server/content/testing/pdf-tools.ts).
  // A scan as scanning software writes one: a page image wrapped by img2pdf, no text layer; OCR reads it.
  { drop: 'scan.pdf', mime: 'application/pdf', bytes: () => scannedByImg2pdf(), chip: 'scan.pdf', state: 'ready', says: /^Ready: 1 page, [\d,]+ characters of text, the page recognized by OCR$/ },
  // A real screenshot of text (Chromium's own): sent as an image, with the words OCR finds.
  { drop: 'screenshot.png', mime: 'image/png', bytes: () => screenshotOfText(), chip: 'screenshot.png', state: 'ready', says: /^Ready: image, sent at 800×300, [\d,]+ words of text recognized$/ },
  { drop: 'memo-scan.pdf', mime: 'application/pdf', bytes: () => readFile(path.join(PDF_FIXTURES, 'memo-scan.pdf')), chip: 'memo-scan.pdf', state: 'partial', says: 'Partly: 1 of 2 pages have no text (scanned?)' },
  // Last: the turn's budget is shared in order, and this one takes the rest of it.
  { drop: 'long.txt', mime: 'text/plain', bytes: () => Buffer.from('word '.repeat(1_000)), chip: 'long.txt', state: 'partial', says: 'Partly: cut at 2,000 of 5,000 characters' },
];

const SCREENSHOT_TEXT = 'Deployment failed: the database migration timed out after thirty seconds.';
const SCAN_TEXT = 'The quarterly report describes how the team shipped the new archive reader.';

/** Chromium's screenshot of a sentence, as a person's screenshot of an error holds one. */
async function screenshotOfText(): Promise<Buffer> {
  const shooter = await browserRef!.newPage({ viewport: { width: 800, height: 300 } });
  try {
    await shooter.setContent(`<body style="margin:40px;font:20px sans-serif;background:#fff;color:#111"><p>${SCREENSHOT_TEXT}</p></body>`);
    return await shooter.screenshot();
  } finally {
    await shooter.close();
  }
}

/** A page of text rendered by Chromium, printed to PNG, wrapped into a PDF by img2pdf: a scan's shape. */
async function scannedByImg2pdf(): Promise<Buffer> {
  const png = await (async () => {
    const shooter = await browserRef!.newPage({ viewport: { width: 1275, height: 1650 } });
    try {
      await shooter.setContent(`<body style="margin:150px;font:25px serif;background:#fff;color:#111"><p>${SCAN_TEXT}</p></body>`);
      return await shooter.screenshot();
    } finally {
      await shooter.close();
    }
  })();
  return madeBy({ 'page.png': png }, 'scan.pdf', 'img2pdf', ['page.png', '-o', 'scan.pdf']);
}

let browserRef: Browser | undefined;

const chipOf = (page: Page, name: string) => page.locator(`[data-testid="attachment-chip"][data-filename="${name}"]`);

test('each chip says what the agent will get, by a word and a colour, before sending', async ({ page, browser }, info) => {
  test.skip(!hasTool('gzip', 'gzip') || !hasTool('7z', 'p7zip-full') || !hasTool('img2pdf', 'img2pdf'), 'gzip, 7z and img2pdf make the files this test drops; install them (gzip, p7zip-full, img2pdf)');
  // OCR of a page takes seconds of CPU, and the chips are checked one after another.
  test.setTimeout(180_000);
  browserRef = browser;
  await openApp(page, server);
  // The connection, with the budget the chips use, saved through the settings route (the dialog itself is
  // chat.spec.ts's); the page is loaded again to know it.
  const saved = await page.evaluate(async ({ base, size, key }) => {
    const res = await fetch('/api/agent/settings', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ base_url: base, model: 'fake-model', api_key: key, context_chars: size }) });
    return res.status;
  }, { base: agent.baseUrl, size: CONTEXT_CHARS, key: KEY });
  expect(saved).toBe(200);
  await page.reload();
  await newSession(page, server.workspace);

  const files = await Promise.all(KINDS.map(async (k) => ({ name: k.drop, mimeType: k.mime, buffer: await k.bytes() })));
  const sevenZip = madeBy({ 'notes.txt': 'notes\n' }, 'notes.7z', '7z', ['a', '-bd', '-y', 'notes.7z', 'notes.txt']);
  await page.getByTestId('file-input').setInputFiles([...files, { name: 'notes.7z', mimeType: 'application/x-7z-compressed', buffer: sevenZip }]);

  for (const k of KINDS) {
    const chip = chipOf(page, k.chip);
    await expect(chip, k.drop).toHaveAttribute('data-status', 'done');
    if (k.extract) {
      await chip.getByTestId('attachment-extract').click();
      await expect(chip.getByTestId('extract-result')).toBeVisible();
    }
    const line = chip.getByTestId('agent-view');
    await expect(line.getByTestId('agent-view-text'), k.drop).toHaveText(k.says, { timeout: 60_000 });
    await expect(line, k.drop).toHaveAttribute('data-state', k.state);
    // Not colour alone: the word says it; and the chip's controls are described by it.
    const id = await line.getAttribute('id');
    await expect(chip.getByTestId('attachment-cancel')).toHaveAttribute('aria-describedby', id!);
    const described = typeof k.says === 'string' ? new RegExp(k.says.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : new RegExp(k.says.source.replace(/^\^|\$$/g, ''));
    await expect(chip.getByTestId('attachment-cancel')).toHaveAccessibleDescription(described);
  }
  await expect(chipOf(page, 'server.log').getByTestId('attachment-origin')).toHaveText('(from server.log.gz)');
  // The promise nothing kept is gone.
  await expect(page.getByText('Attached', { exact: true })).toHaveCount(0);
  // Colours by state: green for ready, amber for partly, red for not readable (the theme's own colours).
  const colour = (name: string) => chipOf(page, name).getByTestId('agent-view').evaluate((el) => getComputedStyle(el).color);
  const [ok, warn, danger] = await page.evaluate(() => ['--ok', '--warn', '--danger'].map((v) => {
    const probe = document.createElement('span');
    probe.style.color = `var(${v})`;
    document.body.append(probe);
    const c = getComputedStyle(probe).color;
    probe.remove();
    return c;
  }));
  expect([await colour('notes.txt'), await colour('long.txt'), await colour('broken.docx')]).toEqual([ok, warn, danger]);

  const refused = chipOf(page, 'notes.7z');
  await expect(refused).toHaveAttribute('data-status', 'error');
  await expect(refused.getByTestId('attachment-error')).toHaveText(SEVEN_ZIP_REFUSED);
  await expect(refused).toHaveClass(/\bchip-error\b/);
  await expect(refused.getByTestId('agent-view')).toHaveCount(0);

  const violations: Record<string, string[]> = {};
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const scan = await new AxeBuilder({ page }).include('#composer').analyze();
    violations[scheme] = scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }
  expect(violations).toEqual({ dark: [], light: [] });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.locator('#composer').screenshot({ path: path.join(screenshotDir(info), 'chip-summary.png') });

  // Sent, each chip of the message says the same (from the same sidecar).
  await refused.getByTestId('attachment-cancel').click();
  agent.next(reply('Got them.'));
  await page.getByTestId('composer-input').fill('What can you read?');
  await page.getByTestId('send').click();
  await expect(page.getByTestId('assistant-text').last()).toHaveText('Got them.', { timeout: 15_000 });
  const sent = page.getByTestId('message').filter({ hasText: 'What can you read?' }).last();
  const sentLine = (name: string) => sent.getByTestId('message-attachment').filter({ hasText: name }).getByTestId('agent-view-text');
  await expect(sentLine('notes.txt')).toHaveText('Ready: 16 characters of text');
  await expect(sentLine('broken.docx')).toHaveText('Not readable: its text could not be extracted: the file may be damaged or encrypted');
  await expect(sentLine('project.zip was extracted')).toHaveText('Ready: file list of 2 files, 2 text files inline');
  // What the agent got: the unextracted zip's list and member text, the PDF's page text with its markers.
  const turn = JSON.stringify(agent.requests.at(-1)!.body);
  expect(turn).toContain('todo.txt');
  expect(turn).toContain('buy osprey feed');
  expect(turn).toContain('--- Page 1 ---');
  expect(turn).toContain('Revenue rose by 12 percent.');
  // And the words on-device OCR found: in the screenshot, and on the scanned page.
  expect(turn).toContain('Text recognized in \\"screenshot.png\\" (on-device OCR)');
  expect(turn).toMatch(/database migration timed out/);
  expect(turn).toContain('--- Page 1 (recognized by on-device OCR) ---');
  expect(turn).toMatch(/quarterly report describes/);
});
