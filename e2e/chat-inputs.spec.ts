/// <reference lib="dom" />
// What a conversation turn carries besides typed text, checked at the agent's end: attachments picked in the
// composer (an image inline as a data URL, a Word document as Markdown text) and a sentence dictated through
// Chromium's fake microphone, transcribed on-device. Its own server and fake agent, like chat.spec.ts, so the
// agent it configures never reaches the other specs.
import { test, expect } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildDocx, wBullet, wHeading, wPara, wRun, wTable } from '../server/office/testing/fixtures.js';
import { reply, type FakeAgent } from '../server/testing/fake-agent.js';
import { newSession } from './fixtures.js';
import { completionRequests, configureAgent, lastUserMessage, openApp, partsOf, type SentMessage } from './helpers/chat.js';
import { dictateWholeWav, KNOWN_SENTENCE, KNOWN_SENTENCE_WORDS, micBrowser, skipWithoutSpeechTools, skipWithoutTranscription } from './helpers/mic.js';
import { buildPng } from './helpers/png.js';
import { ownServerAndAgent } from './helpers/own-agent.js';
import type { RunningServer } from './helpers/server.js';
import { speechWav, words } from './helpers/speech.js';

const KEY = 'sk-inputs-key';
const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** Long enough for a transcript that sent itself to have reached the agent (a loopback request). */
const NO_AUTO_SEND_GRACE_MS = 1_000;

let server: RunningServer;
let agent: FakeAgent;
ownServerAndAgent(KEY, (s, a) => {
  server = s;
  agent = a;
});

/** Every part of every message sent, to prove no part type other than text and image_url is ever used. */
function allPartTypes(messages: readonly SentMessage[]): string[] {
  return messages.flatMap((m) => partsOf(m).map((p) => p.type));
}

test('send a message with an image and a docx: the image inline, the document as Markdown', async ({ page }) => {
  await openApp(page, server);
  await configureAgent(page, agent, KEY);
  // Wait until the new session is on screen: switching sessions clears the composer's attachments.
  await newSession(page, server.workspace);
  // A 12×8 picture: red left half, blue right half.
  const png = buildPng(12, 8, (x) => (x < 6 ? [220, 30, 30] : [30, 30, 220]));
  const docx = await buildDocx(
    wHeading(1, 'Quarterly report') +
      wPara([wRun('Sales rose '), wRun('12 percent', { bold: true }), wRun(' this quarter.')]) +
      wBullet('north region') +
      wBullet('south region') +
      wTable([
        ['Region', 'Units'],
        ['North', '40'],
      ]),
  );
  await page.getByTestId('file-input').setInputFiles([
    { name: 'square.png', mimeType: 'image/png', buffer: png },
    { name: 'report.docx', mimeType: DOCX_MIME, buffer: docx },
  ]);
  for (const name of ['square.png', 'report.docx']) {
    await expect(page.locator(`[data-testid="attachment-chip"][data-filename="${name}"]`)).toHaveAttribute('data-status', 'done');
  }

  const before = completionRequests(agent).length;
  agent.next(reply('A red and blue picture, and a report on sales.'));
  await page.getByTestId('composer-input').fill('What is in these?');
  await page.getByTestId('send').click();

  await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByTestId('assistant-text').last()).toHaveText('A red and blue picture, and a report on sales.');
  const sentMessage = page.getByTestId('message').filter({ hasText: 'What is in these?' }).last();
  await expect(sentMessage.getByTestId('message-attachment')).toHaveCount(2);

  const sent = completionRequests(agent);
  expect(sent).toHaveLength(before + 1);
  const parts = partsOf(lastUserMessage(sent.at(-1)));
  expect(parts[0]).toEqual({ type: 'text', text: 'What is in these?' });

  const images = parts.filter((p) => p.type === 'image_url');
  expect(images).toHaveLength(1);
  const url = images[0]?.image_url?.url ?? '';
  const prefix = 'data:image/png;base64,';
  expect(url.startsWith(prefix), url.slice(0, 40)).toBe(true);
  expect(Buffer.from(url.slice(prefix.length), 'base64').equals(png)).toBe(true);

  const doc = parts.find((p) => p.type === 'text' && p.text?.startsWith('Attached document "report.docx":\n'));
  expect(doc, JSON.stringify(parts.map((p) => p.text?.slice(0, 60) ?? p.type))).toBeDefined();
  const markdown = doc?.text ?? '';
  expect(markdown).toContain('# Quarterly report');
  expect(markdown).toContain('Sales rose **12 percent** this quarter.');
  expect(markdown).toContain('- north region\n- south region');
  expect(markdown).toContain('| Region | Units |\n| --- | --- |\n| North | 40 |');

  const messages = (sent.at(-1)?.body as { messages: SentMessage[] }).messages;
  const types = allPartTypes(messages);
  expect(types).not.toContain('file');
  expect(types).not.toContain('input_file');
  expect(new Set(types)).toEqual(new Set(['text', 'image_url']));
  // The document travelled as text only: its zip bytes (base64 of "PK\x03\x04" is "UEsDB") are nowhere.
  expect(JSON.stringify(sent.at(-1)?.body)).not.toContain(docx.toString('base64').slice(0, 40));
});

test('dictate a sentence with the fake microphone and send it', async () => {
  skipWithoutSpeechTools('chat-inputs/dictate');
  const wavDir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-wav-'));
  const wav = path.join(wavDir, 'sentence.wav');
  speechWav(KNOWN_SENTENCE, wav);
  const mic = await micBrowser(wav);
  try {
    await mic.ctx.grantPermissions(['microphone'], { origin: server.base });
    const page = mic.ctx.pages()[0] ?? (await mic.ctx.newPage());
    await openApp(page, server);
    await skipWithoutTranscription(page, 'chat-inputs/dictate');
    await configureAgent(page, agent, KEY);
    await newSession(page, server.workspace);
    const before = completionRequests(agent).length;

    await dictateWholeWav(page);

    // Dictation only fills the composer: nothing is sent until Send is pressed.
    await page.waitForTimeout(NO_AUTO_SEND_GRACE_MS);
    expect(completionRequests(agent), 'the dictated text was sent without Send').toHaveLength(before);
    await expect(page.getByTestId('message')).toHaveCount(0);
    const input = page.getByTestId('composer-input');
    const transcript = await input.inputValue();
    console.log(`chat-inputs/dictate transcript: "${transcript}"`);
    expect(words(transcript), `composer holds "${transcript}"`).toEqual(expect.arrayContaining(KNOWN_SENTENCE_WORDS));

    agent.next(reply('Opening the settings now.'));
    await page.getByTestId('send').click();
    await expect(page.getByTestId('assistant-live')).toHaveCount(0, { timeout: 15_000 });
    await expect(page.getByTestId('assistant-text').last()).toHaveText('Opening the settings now.');
    await expect(input).toHaveValue('');

    const sent = completionRequests(agent);
    expect(sent).toHaveLength(before + 1);
    const said = partsOf(lastUserMessage(sent.at(-1)))
      .map((p) => p.text ?? '')
      .join(' ');
    expect(said).toBe(transcript.trim());
    expect(words(said)).toEqual(expect.arrayContaining(KNOWN_SENTENCE_WORDS));
  } finally {
    await mic.close();
    fs.rmSync(wavDir, { recursive: true, force: true });
  }
});
