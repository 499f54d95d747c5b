// POST /api/transcribe (4.5) and GET /api/transcribe/capability (4.6) over real sockets: the fake command
// provider for every status mapping, and the real on-device model for what a user would say.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { isLocalModelPresent, defaultModelDir } from '../speech/local.js';
import { missingTools, synthFlite, toWebmOpus } from '../speech/testing/synth.js';
import { wordErrorRate } from '../speech/testing/wer.js';
import { multipartBody } from '../testing/harness.js';
import { testServerForFile } from '../testing/per-file-server.js';

const FAKE = fileURLToPath(new URL('../speech/testing/fake-command.mjs', import.meta.url));
const BOUNDARY = 'sttBoundary';
const STT_ENV = ['SATCHEL_STT_ENABLED', 'SATCHEL_STT_PROVIDER', 'SATCHEL_STT_COMMAND', 'SATCHEL_STT_LOCAL_COMMAND', 'OPENAI_API_KEY', 'GROQ_API_KEY', 'FAKE_COMMAND_MARKER'];

const srv = testServerForFile();
afterEach(() => {
  for (const name of STT_ENV) delete process.env[name];
});

function useCommand(mode: string, extra?: string): void {
  process.env.SATCHEL_STT_PROVIDER = 'command';
  process.env.SATCHEL_STT_COMMAND = JSON.stringify([process.execPath, FAKE, mode, '{input}', ...(extra === undefined ? [] : [extra])]);
}

async function transcribe(parts: Parameters<typeof multipartBody>[1]) {
  const res = await srv.api('/api/transcribe', {
    method: 'POST',
    body: new Uint8Array(multipartBody(BOUNDARY, parts)),
    headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const audio = (filename: string, content: string | Buffer = 'not really audio') => [{ name: 'file', filename, content }];

async function stagingEmpty(): Promise<void> {
  expect(await fs.readdir(path.join(srv.stateDir, 'staging'))).toEqual([]);
}

describe('4.5 transcription', () => {
  it.each([
    [[{ name: 'other', content: 'x' }], 400, 'No file field in request'],
    [audio(''), 400, 'No filename in upload'],
    // What a browser's MediaRecorder blob sent with an empty name looks like: busboy calls it a text field.
    [[{ name: 'file', filename: '', type: 'audio/webm', content: 'opus bytes' }], 400, 'No filename in upload'],
    [audio('...'), 400, 'Invalid filename'],
  ] as const)('%#: → %s %s', async (parts, status, error) => {
    useCommand('text');
    expect(await transcribe([...parts])).toEqual({ status, body: { error } });
    await stagingEmpty();
  });

  it('answers 503 when speech-to-text is disabled', async () => {
    process.env.SATCHEL_STT_ENABLED = '0';
    expect(await transcribe(audio('a.webm'))).toEqual({ status: 503, body: { error: 'Speech-to-text is unavailable on this server' } });
  });

  it('returns the trimmed transcript and deletes the temporary file, which kept the suffix', async () => {
    const marker = path.join(srv.tmp, 'marker.txt');
    process.env.FAKE_COMMAND_MARKER = marker;
    useCommand('text');
    expect(await transcribe(audio('voice memo.ogg', Buffer.alloc(1234, 1)))).toEqual({ status: 200, body: { ok: true, transcript: 'heard 1234 bytes' } });
    const argv = JSON.parse((await fs.readFile(marker, 'utf8')).trim()) as string[];
    expect(argv[1]).toMatch(/\.ogg$/);
    await expect(fs.stat(argv[1]!)).rejects.toThrow();
    await stagingEmpty();
  });

  it('defaults the temporary suffix to .webm', async () => {
    const marker = path.join(srv.tmp, 'marker2.txt');
    process.env.FAKE_COMMAND_MARKER = marker;
    useCommand('text');
    await transcribe(audio('recording'));
    expect(JSON.parse((await fs.readFile(marker, 'utf8')).trim())[1]).toMatch(/\.webm$/);
  });

  it('maps a falsy success: "not configured"/"unavailable" → 503, anything else → 400, empty → Transcription failed', async () => {
    useCommand('json-fail', 'Model not configured');
    expect(await transcribe(audio('a.webm'))).toEqual({ status: 503, body: { error: 'Model not configured' } });
    useCommand('json-fail', 'Engine UNAVAILABLE right now');
    expect((await transcribe(audio('a.webm'))).status).toBe(503);
    useCommand('json-fail', 'Speech was unclear');
    expect(await transcribe(audio('a.webm'))).toEqual({ status: 400, body: { error: 'Speech was unclear' } });
    useCommand('json-fail', '');
    expect(await transcribe(audio('a.webm'))).toEqual({ status: 400, body: { error: 'Transcription failed' } });
  });

  it('answers 500 Transcription failed when the provider crashes, without details', async () => {
    useCommand('exit', '3');
    expect(await transcribe(audio('a.webm'))).toEqual({ status: 500, body: { error: 'Transcription failed' } });
    await stagingEmpty();
  });

  it('redacts secrets in the transcript', async () => {
    useCommand('echo', '  my password=hunter2hunter2hunter2 ok ');
    const { body } = await transcribe(audio('a.webm'));
    expect(body.transcript).not.toContain('hunter2hunter2hunter2');
  });
});

describe('4.6 capability', () => {
  const probe = async () => (await (await srv.api('/api/transcribe/capability')).json()) as Record<string, unknown>;

  it('reports none when disabled', async () => {
    process.env.SATCHEL_STT_ENABLED = 'false';
    expect(await probe()).toEqual({ ok: true, available: false, provider: 'none' });
  });

  it('reports an explicit provider, and its name when it is unavailable', async () => {
    useCommand('text');
    expect(await probe()).toEqual({ ok: true, available: true, provider: 'command' });
    process.env.SATCHEL_STT_PROVIDER = 'openai';
    expect(await probe()).toEqual({ ok: true, available: false, provider: 'openai' });
  });

  const installed = isLocalModelPresent(defaultModelDir());
  if (!installed) console.log('transcribe.test: skipping the installed-model probe: model not fetched (node scripts/fetch-model.mjs)');
  it.skipIf(!installed)('reports local when the model is installed', async () => {
    expect(await probe()).toEqual({ ok: true, available: true, provider: 'local' });
  });
});

const missing = missingTools('flite', 'ffmpeg');
const modelPresent = isLocalModelPresent(defaultModelDir());
describe.skipIf(missing.length > 0 || !modelPresent)('on-device transcription through HTTP', () => {
  if (missing.length > 0 || !modelPresent) {
    console.log(`skipping on-device HTTP transcription: ${!modelPresent ? 'model not fetched (node scripts/fetch-model.mjs)' : `missing ${missing.join(', ')}`}`);
  }
  it('transcribes a spoken sentence recorded as webm/opus, as the browser sends it', async () => {
    const sentence = 'Please open the settings window and change the language to English';
    const wav = path.join(srv.tmp, 'spoken.wav');
    const webm = path.join(srv.tmp, 'spoken.webm');
    await synthFlite(sentence, 'slt', wav);
    await toWebmOpus(wav, webm);
    const { status, body } = await transcribe(audio('recording.webm', await fs.readFile(webm)));
    expect(status).toBe(200);
    expect(wordErrorRate(sentence, String(body.transcript))).toBeLessThanOrEqual(0.25);
    await stagingEmpty();
  }, 60_000);
});
