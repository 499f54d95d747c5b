// The preview shows what the agent gets (issue 35): a scanned PDF's page recognized by OCR (the chip said so, the
// preview said "This PDF has no text"), an unextracted zip's list and its small members' text (the preview was a
// bare card), a spoken recording's transcript (the preview called it binary), an image's recognized text. Real
// files: the PDF made by img2pdf from a rendered page, the zip by Info-ZIP's `zip`, the speech by flite.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prose, renderPage, wordRecall } from '../ocr/testing/render.js';
import { defaultModelDir, isLocalModelPresent } from '../speech/local.js';
import { missingTools, synthFlite } from '../speech/testing/synth.js';
import { wordErrorRate } from '../speech/testing/wer.js';
import { postMultipart, startTestServer, type TestServer } from '../testing/harness.js';

// OCR and on-device transcription take seconds of CPU each; a shared, loaded machine many times that.
const SLOW = 240_000;
const IMG2PDF = existsSync('/usr/bin/img2pdf') ? '/usr/bin/img2pdf' : null;

let srv: TestServer;
let session: string;
beforeAll(async () => {
  srv = await startTestServer();
  session = await srv.newSession();
});
afterAll(async () => {
  await srv.stop();
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function upload(filename: string, content: Buffer | string): Promise<string> {
  const up = await postMultipart(srv, '/api/upload', [{ name: 'session_id', content: session }, { name: 'file', filename, content }]);
  expect(up.status).toBe(200);
  return (up.body as Json).filename as string;
}

async function preview(name: string): Promise<Json> {
  const res = await srv.api(`/api/attachment/preview?${new URLSearchParams({ session_id: session, name })}`, { signal: AbortSignal.timeout(SLOW) });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

describe('the preview shows what the agent gets', () => {
  it.skipIf(!IMG2PDF)("a scanned PDF (img2pdf): the page's OCR text as the agent is sent it, and no \"This PDF has no text\"", async () => {
    const page = await renderPage(`Customer invoice 4471. ${prose(50, 30)}`, { points: 12, dpi: 150 });
    const dir = await fs.mkdtemp(path.join(srv.tmp, 'scan-'));
    await fs.writeFile(path.join(dir, 'page.png'), page.png);
    execFileSync(IMG2PDF!, [path.join(dir, 'page.png'), '-o', path.join(dir, 'scan.pdf')]);
    const name = await upload('scan.pdf', await fs.readFile(path.join(dir, 'scan.pdf')));
    const p = await preview(name);
    expect(p).toMatchObject({ kind: 'pdf', pages: 1 });
    expect(p.note).toBeUndefined();
    expect(p.agent.state).toBe('ready');
    expect(p.agent.summary).toMatch(/^1 page, [\d,]+ characters of text, the page recognized by OCR$/);
    const lines = (p.agent.text as string).split('\n');
    expect(lines.slice(0, 2)).toEqual(['Attached PDF "scan.pdf" (1 page):', '--- Page 1 (recognized by on-device OCR) ---']);
    // The words themselves, so a misread word is there to be seen.
    expect(p.agent.text).toContain('Customer invoice 4471');
    expect(wordRecall(page.text, p.agent.text)).toBeGreaterThanOrEqual(0.95);
    // The chip says the same words the preview heads its text with.
    const chip = (await (await srv.api(`/api/attachment/summary?${new URLSearchParams({ session_id: session, name })}`, { signal: AbortSignal.timeout(SLOW) })).json()) as Json;
    expect(chip).toEqual({ state: 'ready', text: p.agent.summary });
  }, SLOW);
  if (!IMG2PDF) it('a scanned PDF', () => console.log('skipped: img2pdf is not installed (apt-get install img2pdf)'));

  it('an unextracted zip (made by zip): its list and its small text members, as the agent is sent them', async () => {
    const dir = await fs.mkdtemp(path.join(srv.tmp, 'zip-'));
    await fs.mkdir(path.join(dir, 'logs'));
    await fs.writeFile(path.join(dir, 'readme.txt'), 'Field notes: a kittiwake nested on the ledge.\n');
    await fs.writeFile(path.join(dir, 'logs', 'day1.log'), 'counted 14 gannets\n');
    await fs.writeFile(path.join(dir, 'photo.bin'), Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0, 0]));
    execFileSync('zip', ['-q', '-r', 'bundle.zip', 'readme.txt', 'logs', 'photo.bin'], { cwd: dir });
    const name = await upload('bundle.zip', await fs.readFile(path.join(dir, 'bundle.zip')));
    const p = await preview(name);
    expect(p.kind).toBe('binary');
    expect(p.agent).toMatchObject({ state: 'ready', summary: 'file list of 3 files, 2 text files inline' });
    expect(p.agent.text).toBe(
      [
        'Archive "bundle.zip" (3 files, not extracted):',
        '- readme.txt (46 bytes)',
        '- logs/day1.log (19 bytes)',
        '- photo.bin (8 bytes)',
        'Attached file "bundle.zip/readme.txt":',
        'Field notes: a kittiwake nested on the ledge.',
        '',
        'Attached file "bundle.zip/logs/day1.log":',
        'counted 14 gannets',
        '',
      ].join('\n'),
    );
  });

  it('a file the agent gets only the name of says so', async () => {
    const name = await upload('blob.dat', Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0, 7, 9]));
    const p = await preview(name);
    expect(p.kind).toBe('binary');
    expect(p.agent.state).toBe('unreadable');
    expect(p.agent.summary).toBe('9 bytes the agent cannot read: only its name is sent');
  });

  it("an image: the text OCR recognizes in it, after the agent's line for the image", async () => {
    const page = await renderPage('Error 502 Bad Gateway while saving the quarterly report', { points: 14, dpi: 150 });
    const name = await upload('error.png', page.png);
    const p = await preview(name);
    expect(p.kind).toBe('image');
    expect(p.agent.summary).toMatch(/^image, sent at \d+×\d+, \d+ words of text recognized$/);
    expect(p.agent.text).toMatch(/^Attached image "error\.png":\nText recognized in "error\.png" \(on-device OCR\):\n/);
    expect(wordRecall(page.text, p.agent.text)).toBeGreaterThanOrEqual(0.9);
  }, SLOW);

  it('a workspace file previews what the agent would get too (a zip)', async () => {
    const dir = await fs.mkdtemp(path.join(srv.tmp, 'wzip-'));
    await fs.writeFile(path.join(dir, 'a.txt'), 'puffin burrow\n');
    execFileSync('zip', ['-q', 'w.zip', 'a.txt'], { cwd: dir });
    await fs.copyFile(path.join(dir, 'w.zip'), path.join(srv.workspace, 'w.zip'));
    const res = await srv.api(`/api/workspace/preview?${new URLSearchParams({ session_id: session, path: 'w.zip' })}`);
    const p = (await res.json()) as Json;
    expect(p.agent.summary).toBe('file list of 1 file, 1 text file inline');
    expect(p.agent.text).toContain('puffin burrow');
  });

  it('secrets in what the agent gets are masked in the preview', async () => {
    const dir = await fs.mkdtemp(path.join(srv.tmp, 'szip-'));
    await fs.writeFile(path.join(dir, 'env.txt'), 'OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123\n');
    execFileSync('zip', ['-q', 's.zip', 'env.txt'], { cwd: dir });
    const p = await preview(await upload('s.zip', await fs.readFile(path.join(dir, 's.zip'))));
    expect(p.agent.text).toContain('env.txt');
    expect(p.agent.text).not.toContain('abcdefghijklmnopqrstuvwxyz0123');
  });
});

const missing = missingTools('flite', 'ffmpeg');
const modelPresent = isLocalModelPresent(defaultModelDir());
describe.skipIf(missing.length > 0 || !modelPresent)('a spoken recording', () => {
  if (missing.length > 0 || !modelPresent) console.log(`skipping the transcript preview: ${!modelPresent ? 'model not fetched (node scripts/fetch-model.mjs)' : `missing ${missing.join(', ')}`}`);
  it('previews as its transcript, on-device, as the agent gets it', async () => {
    const before = process.env.SATCHEL_STT_PROVIDER;
    process.env.SATCHEL_STT_PROVIDER = 'local';
    try {
      const sentence = 'Please open the settings window and change the language to English';
      const wav = path.join(srv.tmp, 'memo.wav');
      await synthFlite(sentence, 'slt', wav);
      const name = await upload('memo.wav', await fs.readFile(wav));
      const p = await preview(name);
      expect(p.kind).toBe('binary');
      expect(p.agent.state).toBe('ready');
      expect(p.agent.summary).toMatch(/^transcript, \d+ words$/);
      const [head, ...said] = (p.agent.text as string).split('\n');
      expect(head).toBe('Attached audio, transcript of "memo.wav":');
      expect(wordErrorRate(sentence, said.join(' '))).toBeLessThanOrEqual(0.25);
    } finally {
      if (before === undefined) delete process.env.SATCHEL_STT_PROVIDER;
      else process.env.SATCHEL_STT_PROVIDER = before;
    }
  }, SLOW);
});
