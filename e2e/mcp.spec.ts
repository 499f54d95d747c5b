/// <reference lib="dom" />
// "Drop it in Satchel, then ask your agent": a Word document dropped on the conversation and a sentence
// dictated through Chromium's fake microphone (no chat agent configured, so Send keeps the message in the
// session), then both read back through the MCP SDK's own client at /mcp, as an agent outside the window would.
// Its own server, so the session list it reads holds only what this test put there.
import { test, expect } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildDocx, wHeading, wPara, wRun } from '../server/office/testing/fixtures.js';
import { newSession } from './fixtures.js';
import { openApp } from './helpers/chat.js';
import { callJson, callText, mcpClient } from './helpers/mcp.js';
import { dictateWholeWav, KNOWN_SENTENCE, KNOWN_SENTENCE_WORDS, micBrowser, skipWithoutSpeechTools, skipWithoutTranscription } from './helpers/mic.js';
import { startServer, type RunningServer } from './helpers/server.js';
import { speechWav, words } from './helpers/speech.js';

const DOCX_NAME = 'harbour.docx';
/** Words that exist only inside the document, so finding them proves the document itself was read. */
const DOCX_HEADING = 'Harbour inventory';
const DOCX_BOLD = 'seventeen lanterns';
const DOCX_SEARCH_WORD = 'lanterns';

let server: RunningServer;

test.beforeAll(async () => {
  server = await startServer();
});

test.afterAll(async () => {
  await server?.stop();
});

interface SessionRow {
  session_id: string;
  message_count: number;
  attachment_count: number;
}
interface SessionRead {
  messages: { role: string; text: string; attachments: { name: string; uri: string }[] }[];
  attachments: { name: string }[];
}
interface SearchHit {
  where: string;
  ref: string;
  snippet: string;
}

test('a dropped .docx and a dictated sentence, read back by an agent over MCP', async () => {
  test.setTimeout(120_000);
  skipWithoutSpeechTools('mcp/e2e');
  const wavDir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-wav-'));
  const wav = path.join(wavDir, 'sentence.wav');
  speechWav(KNOWN_SENTENCE, wav);
  const docx = await buildDocx(
    wHeading(1, DOCX_HEADING) + wPara([wRun('The east pier holds '), wRun(DOCX_BOLD, { bold: true }), wRun(' and two ropes.')]),
  );
  const mic = await micBrowser(wav);
  let transcript = '';
  let sessionId = '';
  try {
    await mic.ctx.grantPermissions(['microphone'], { origin: server.base });
    const page = mic.ctx.pages()[0] ?? (await mic.ctx.newPage());
    await openApp(page, server);
    await skipWithoutTranscription(page, 'mcp/e2e');
    sessionId = await newSession(page, server.workspace);

    // Drop the document on the conversation, as a person would from a file manager.
    await page.evaluate(
      ([b64, name]) => {
        const bin = Uint8Array.from(atob(b64 ?? ''), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bin], name ?? '', { type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }));
        const target = document.querySelector('[data-testid="messages"]');
        for (const type of ['dragenter', 'dragover', 'drop']) target?.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      },
      [docx.toString('base64'), DOCX_NAME],
    );
    await expect(page.locator(`[data-testid="attachment-chip"][data-filename="${DOCX_NAME}"]`)).toHaveAttribute('data-status', 'done');

    await dictateWholeWav(page);
    const input = page.getByTestId('composer-input');
    transcript = await input.inputValue();
    console.log(`mcp/e2e transcript: "${transcript}"`);
    expect(words(transcript), `composer holds "${transcript}"`).toEqual(expect.arrayContaining(KNOWN_SENTENCE_WORDS));

    // No agent is configured: Send keeps the message (text and the document) in the session.
    await page.getByTestId('send').click();
    await expect(input).toHaveValue('');
    const sent = page.getByTestId('message').last();
    await expect(sent.getByTestId('message-attachment')).toHaveCount(1);
  } finally {
    await mic.close();
    fs.rmSync(wavDir, { recursive: true, force: true });
  }

  const client = await mcpClient(server);
  try {
    const sessions = await callJson<SessionRow[]>(client, 'list_sessions', {});
    expect(sessions.map((s) => s.session_id)).toEqual([sessionId]);
    expect(sessions[0]).toMatchObject({ message_count: 1, attachment_count: 1 });

    const markdown = await callText(client, 'read_attachment', { session_id: sessionId, name: DOCX_NAME });
    expect(markdown).toContain(`# ${DOCX_HEADING}`);
    expect(markdown).toContain(`**${DOCX_BOLD}**`);

    const read = await callJson<SessionRead>(client, 'read_session', { session_id: sessionId });
    expect(read.messages).toHaveLength(1);
    const message = read.messages[0]!;
    expect(message.role).toBe('user');
    expect(words(message.text), `message "${message.text}"`).toEqual(expect.arrayContaining(KNOWN_SENTENCE_WORDS));
    expect(message.text).toBe(transcript.trim());
    expect(message.attachments.map((a) => a.name)).toEqual([DOCX_NAME]);
    expect(read.attachments.map((a) => a.name)).toContain(DOCX_NAME);

    const found = await callJson<{ results: SearchHit[] }>(client, 'search', { session_id: sessionId, query: DOCX_SEARCH_WORD });
    const inDocx = found.results.filter((r) => r.ref.startsWith(DOCX_NAME));
    expect(inDocx.length, JSON.stringify(found.results)).toBeGreaterThan(0);
    expect(inDocx[0]!.snippet.toLowerCase()).toContain(DOCX_BOLD);
  } finally {
    await client.close();
  }
});
