import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAi } from '../testing/fake-openai.js';
import { randomBytes } from 'node:crypto';
import { HOSTED_MAX_FILE_BYTES, IN_MEMORY_UPLOAD_BYTES, MAX_ERROR_TEXT_LENGTH, transcribeHosted } from './hosted.js';
import { writeToneWav } from '../testing/tone.js';

const KEY = 'sk-test-0123456789abcdefSECRET';

let dir: string;
let fake: FakeOpenAi;
let audio: string;
const AUDIO_BYTES = Buffer.from('not really webm but the fake does not care \x00\x01\x02\xff', 'latin1');

function openai(extra: Partial<{ apiKey: string; baseUrl: string; model: string }> = {}) {
  return { apiKey: KEY, baseUrl: fake.baseUrl, model: 'whisper-1', ...extra };
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-hosted-'));
  audio = path.join(dir, 'upload.webm');
  fs.writeFileSync(audio, AUDIO_BYTES);
  fake = await startFakeOpenAi();
});
afterEach(async () => {
  await fake.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('transcribeHosted', () => {
  it('posts the documented multipart request and returns the trimmed text', async () => {
    const result = await transcribeHosted('openai', openai(), audio, {
      timeoutMs: 10_000,
      language: 'en-US',
      filename: 'recording.webm',
    });
    expect(result).toEqual({ success: true, transcript: `fake transcript of ${AUDIO_BYTES.length} bytes via whisper-1` });
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/audio/transcriptions');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(req.fields).toEqual({ model: 'whisper-1', language: 'en', response_format: 'json' });
    expect(req.file?.field).toBe('file');
    expect(req.file?.filename).toBe('recording.webm');
    expect(req.file?.mimeType).toBe('audio/webm');
    expect(req.file?.bytes.equals(AUDIO_BYTES)).toBe(true);
  });

  it('streams a file above the in-memory threshold from disk with the exact bytes', async () => {
    const bytes = randomBytes(IN_MEMORY_UPLOAD_BYTES + 12345);
    const file = path.join(dir, 'big.ogg');
    fs.writeFileSync(file, bytes);
    const result = await transcribeHosted('openai', openai(), file, { timeoutMs: 20_000 });
    expect(result).toEqual({ success: true, transcript: `fake transcript of ${bytes.length} bytes via whisper-1` });
    expect(fake.requests[0]!.file!.bytes.equals(bytes)).toBe(true);
    expect(fake.requests[0]!.file!.mimeType).toBe('audio/ogg');
  });

  it('omits language when none is configured and names the file after its path', async () => {
    await transcribeHosted('openai', openai(), audio, { timeoutMs: 10_000 });
    expect(fake.requests[0]!.fields).toEqual({ model: 'whisper-1', response_format: 'json' });
    expect(fake.requests[0]!.file?.filename).toBe('upload.webm');
  });

  it('talks to Groq through its own base URL, model and label', async () => {
    const result = await transcribeHosted(
      'groq',
      { apiKey: 'gsk_groqkey', baseUrl: fake.baseUrl, model: 'whisper-large-v3-turbo' },
      audio,
      { timeoutMs: 10_000 },
    );
    expect(result.transcript).toBe(`fake transcript of ${AUDIO_BYTES.length} bytes via whisper-large-v3-turbo`);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer gsk_groqkey');
    fake.reply = () => ({ status: 401, body: '{"error":{"message":"Invalid API Key"}}' });
    expect(
      await transcribeHosted('groq', { apiKey: 'gsk_groqkey', baseUrl: fake.baseUrl, model: 'm' }, audio, {
        timeoutMs: 10_000,
      }),
    ).toEqual({ success: false, error: 'Groq rejected the API key' });
  });

  it.each([
    [401, 'OpenAI rejected the API key'],
    [403, 'OpenAI rejected the API key'],
    [429, 'OpenAI rate limit reached; try again later'],
    [500, 'OpenAI is unavailable (HTTP 500)'],
    [503, 'OpenAI is unavailable (HTTP 503)'],
  ])('maps HTTP %i to a failure text', async (status, error) => {
    fake.reply = () => ({ status, body: JSON.stringify({ error: { message: `boom ${KEY}` } }) });
    const result = await transcribeHosted('openai', openai(), audio, { timeoutMs: 10_000 });
    expect(result).toEqual({ success: false, error });
  });

  it('passes other 4xx messages on, redacted, without paths, shortened', async () => {
    fake.reply = () => ({
      status: 400,
      body: JSON.stringify({ error: { message: `Invalid file format.\n  Key ${KEY} file /tmp/uploads/x.webm` } }),
    });
    const result = await transcribeHosted('openai', openai(), audio, { timeoutMs: 10_000 });
    expect(result.success).toBe(false);
    expect(result.error).toBe('OpenAI: Invalid file format. Key [REDACTED] file <path>');

    fake.reply = () => ({ status: 413, body: 'x'.repeat(5000), contentType: 'text/plain' });
    const long = await transcribeHosted('openai', openai(), audio, { timeoutMs: 10_000 });
    expect(long.error).toBe(`OpenAI: ${'x'.repeat(MAX_ERROR_TEXT_LENGTH - 1)}…`);

    fake.reply = () => ({ status: 415, body: '' });
    expect((await transcribeHosted('openai', openai(), audio, { timeoutMs: 10_000 })).error).toBe(
      'OpenAI refused the audio (HTTP 415)',
    );
  });

  it('treats a non-JSON or text-less success as the service being unavailable', async () => {
    fake.reply = () => ({ status: 200, body: '<html>gateway</html>', contentType: 'text/html' });
    expect(await transcribeHosted('openai', openai(), audio, { timeoutMs: 10_000 })).toEqual({
      success: false,
      error: 'OpenAI is unavailable (unreadable response)',
    });
    fake.reply = () => ({ status: 200, body: '{"transcript":"wrong key"}' });
    expect((await transcribeHosted('openai', openai(), audio, { timeoutMs: 10_000 })).error).toBe(
      'OpenAI is unavailable (unreadable response)',
    );
  });

  it.each(['hang', 'hang-body'] as const)('gives up on a %s response at the time limit', async (mode) => {
    fake.reply = () => mode;
    const started = Date.now();
    const result = await transcribeHosted('openai', openai(), audio, { timeoutMs: 400 });
    expect(result).toEqual({ success: false, error: 'OpenAI is unavailable (timed out)' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('reports a refused or reset connection as unavailable', async () => {
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(
      await transcribeHosted('openai', openai({ baseUrl: `http://127.0.0.1:${port}/v1` }), audio, { timeoutMs: 5000 }),
    ).toEqual({ success: false, error: 'OpenAI is unavailable (network error)' });

    fake.reply = () => 'reset';
    expect((await transcribeHosted('openai', openai(), audio, { timeoutMs: 5000 })).error).toBe(
      'OpenAI is unavailable (network error)',
    );
  });

  it('rejects with the caller’s abort reason (the client left), not a service failure', async () => {
    fake.reply = () => 'hang';
    const controller = new AbortController();
    const run = transcribeHosted('openai', openai(), audio, { timeoutMs: 30_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('client gone')), 100);
    await expect(run).rejects.toThrow('client gone');
  });

  it('says "not configured" without a key and makes no request', async () => {
    expect(await transcribeHosted('openai', openai({ apiKey: '' }), audio, { timeoutMs: 1000 })).toEqual({
      success: false,
      error: 'OpenAI API key is not configured',
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('re-encodes a file over 25 MB as 16 kHz mono WAV before uploading', async () => {
    const big = path.join(dir, 'long.wav');
    const size = writeToneWav(big, 140, 48_000, 2);
    expect(size).toBeGreaterThan(HOSTED_MAX_FILE_BYTES);
    // A private temp root, so the clean-up check cannot see other tests' files.
    const tmp = path.join(dir, 'tmp');
    fs.mkdirSync(tmp);
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    let result;
    try {
      result = await transcribeHosted('openai', openai(), big, { timeoutMs: 30_000, filename: 'long.wav' });
      expect(fs.readdirSync(tmp)).toEqual([]);
    } finally {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    }
    expect(result.success).toBe(true);
    const file = fake.requests[0]!.file!;
    expect(file.filename).toBe('long.wav');
    expect(file.mimeType).toBe('audio/wav');
    expect(file.bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(file.bytes.readUInt16LE(22)).toBe(1);
    expect(file.bytes.readUInt32LE(24)).toBe(16_000);
    expect(Math.abs(file.bytes.length - (44 + 140 * 16_000 * 2))).toBeLessThan(1024);
  });

  it('refuses audio that stays over 25 MB even as 16 kHz mono WAV, without a request', async () => {
    const big = path.join(dir, 'very-long.wav');
    writeToneWav(big, 830, 16_000, 1);
    const result = await transcribeHosted('groq', { apiKey: 'k', baseUrl: fake.baseUrl, model: 'm' }, big, {
      timeoutMs: 30_000,
    });
    expect(result).toEqual({ success: false, error: 'Audio is too long for Groq (max 25 MB)' });
    expect(fake.requests).toHaveLength(0);
  });
});
