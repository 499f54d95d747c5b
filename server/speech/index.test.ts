import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setLogSink } from '../core/log.js';
import { defaultModelDir, isLocalModelPresent, MODEL_FILE_BYTES, MODEL_FILES, unloadLocalModels } from './local.js';
import { CommandExitError } from './run-command.js';
import { startFakeOpenAi, type FakeOpenAi } from './testing/fake-openai.js';
import { loadSttConfig, probeCapability, SttUnavailableError, transcribeFile, type SttConfig } from './index.js';

const FAKE = fileURLToPath(new URL('./testing/fake-command.mjs', import.meta.url));
const NODE = process.execPath;
const OPENAI_KEY = 'sk-proj-TOPSECRET-openai-0123456789';
const GROQ_KEY = 'gsk_TOPSECRET-groq-0123456789';

let dir: string;
let stateDir: string;
let marker: string;
let fake: FakeOpenAi;
let restoreLog: () => void;
let fakeModelDir: string;
let emptyModelDir: string;

/** A model directory that passes the presence check (right names and sizes) without real weights: the
 *  probe must decide from the files alone, never by loading them. */
function makeFakeModelDir(where: string): string {
  fs.mkdirSync(where, { recursive: true });
  for (const { name } of MODEL_FILES) {
    const fd = fs.openSync(path.join(where, name), 'w');
    fs.ftruncateSync(fd, MODEL_FILE_BYTES[name]!);
    fs.closeSync(fd);
  }
  return where;
}

function cmd(mode: string, ...extra: string[]): string {
  return JSON.stringify([NODE, FAKE, mode, '{input}', ...extra]);
}

/** Build the configuration the way the server does: settings file + environment. */
function config(env: NodeJS.ProcessEnv, settings?: unknown): SttConfig {
  if (settings !== undefined) fs.writeFileSync(path.join(stateDir, 'stt.json'), JSON.stringify(settings));
  return loadSttConfig(stateDir, {
    SATCHEL_STT_MODEL_DIR: emptyModelDir,
    SATCHEL_STT_OPENAI_BASE_URL: fake.baseUrl,
    SATCHEL_STT_GROQ_BASE_URL: fake.baseUrl,
    ...env,
  });
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-stt-index-'));
  stateDir = path.join(dir, 'state');
  fs.mkdirSync(stateDir);
  marker = path.join(dir, 'command-ran');
  process.env.FAKE_COMMAND_MARKER = marker;
  fakeModelDir = makeFakeModelDir(path.join(dir, 'model'));
  emptyModelDir = path.join(dir, 'no-model');
  fake = await startFakeOpenAi();
  restoreLog = setLogSink(() => {});
});
afterEach(async () => {
  restoreLog();
  delete process.env.FAKE_COMMAND_MARKER;
  await fake.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
afterAll(async () => {
  await unloadLocalModels();
});

describe('probeCapability', () => {
  it('reports none when disabled, whatever is configured', async () => {
    const cfg = config({
      SATCHEL_STT_ENABLED: 'off',
      SATCHEL_STT_MODEL_DIR: fakeModelDir,
      OPENAI_API_KEY: OPENAI_KEY,
      SATCHEL_STT_PROVIDER: 'openai',
    });
    expect(await probeCapability(cfg)).toEqual({ available: false, provider: 'none' });
  });

  it('reports none when nothing is configured', async () => {
    expect(await probeCapability(config({}))).toEqual({ available: false, provider: 'none' });
  });

  it('follows the automatic order local → local_command → openai → groq', async () => {
    const all = {
      SATCHEL_STT_MODEL_DIR: fakeModelDir,
      SATCHEL_STT_LOCAL_COMMAND: cmd('text'),
      OPENAI_API_KEY: OPENAI_KEY,
      GROQ_API_KEY: GROQ_KEY,
    };
    expect(await probeCapability(config(all))).toEqual({ available: true, provider: 'local' });
    expect(await probeCapability(config({ ...all, SATCHEL_STT_MODEL_DIR: emptyModelDir }))).toEqual({
      available: true,
      provider: 'local_command',
    });
    expect(
      await probeCapability(config({ ...all, SATCHEL_STT_MODEL_DIR: emptyModelDir, SATCHEL_STT_LOCAL_COMMAND: '' })),
    ).toEqual({ available: true, provider: 'openai' });
    expect(await probeCapability(config({ GROQ_API_KEY: GROQ_KEY }))).toEqual({ available: true, provider: 'groq' });
  });

  it('never picks the custom command unless it is named', async () => {
    expect(await probeCapability(config({ SATCHEL_STT_COMMAND: cmd('text') }))).toEqual({
      available: false,
      provider: 'none',
    });
    expect(await probeCapability(config({ SATCHEL_STT_COMMAND: cmd('text'), SATCHEL_STT_PROVIDER: 'command' }))).toEqual({
      available: true,
      provider: 'command',
    });
  });

  it('tries an explicit provider alone and reports its name when it is unavailable', async () => {
    const env = { SATCHEL_STT_MODEL_DIR: fakeModelDir, GROQ_API_KEY: GROQ_KEY, SATCHEL_STT_LOCAL_COMMAND: cmd('text') };
    expect(await probeCapability(config({ ...env, SATCHEL_STT_PROVIDER: 'openai' }))).toEqual({
      available: false,
      provider: 'openai',
    });
    expect(await probeCapability(config({ ...env, SATCHEL_STT_PROVIDER: 'groq' }))).toEqual({
      available: true,
      provider: 'groq',
    });
    expect(await probeCapability(config({ ...env, SATCHEL_STT_PROVIDER: 'command' }))).toEqual({
      available: false,
      provider: 'command',
    });
    expect(
      await probeCapability(
        config({ SATCHEL_STT_PROVIDER: 'command', SATCHEL_STT_COMMAND: '["definitely-not-installed-stt-xyz","{input}"]' }),
      ),
    ).toEqual({ available: false, provider: 'command' });
  });

  it('lets local and local_command stand in for each other when named', async () => {
    expect(
      await probeCapability(config({ SATCHEL_STT_PROVIDER: 'local', SATCHEL_STT_LOCAL_COMMAND: cmd('text') })),
    ).toEqual({ available: true, provider: 'local_command' });
    expect(
      await probeCapability(
        config({
          SATCHEL_STT_PROVIDER: 'local_command',
          SATCHEL_STT_MODEL_DIR: fakeModelDir,
          SATCHEL_STT_LOCAL_COMMAND: '["definitely-not-installed-stt-xyz","{input}"]',
        }),
      ),
    ).toEqual({ available: true, provider: 'local' });
    expect(await probeCapability(config({ SATCHEL_STT_PROVIDER: 'local', OPENAI_API_KEY: OPENAI_KEY }))).toEqual({
      available: false,
      provider: 'local',
    });
    expect(await probeCapability(config({ SATCHEL_STT_PROVIDER: 'local_command' }))).toEqual({
      available: false,
      provider: 'local_command',
    });
  });

  it('finds a bare local_command program on PATH, and only if it is executable', async () => {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    const tool = path.join(bin, 'satchel-fake-stt');
    fs.writeFileSync(tool, '#!/bin/sh\necho ran > "$0.ran"\n', { mode: 0o644 });
    const savedPath = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${savedPath ?? ''}`;
    try {
      const cfg = config({ SATCHEL_STT_LOCAL_COMMAND: '["satchel-fake-stt","{input}"]' });
      expect(await probeCapability(cfg)).toEqual({ available: false, provider: 'none' });
      fs.chmodSync(tool, 0o755);
      expect(await probeCapability(cfg)).toEqual({ available: true, provider: 'local_command' });
    } finally {
      process.env.PATH = savedPath;
    }
    expect(fs.existsSync(`${tool}.ran`)).toBe(false);
  });

  it('reports an unknown configured provider by its name', async () => {
    expect(await probeCapability(config({ SATCHEL_STT_PROVIDER: 'whisper', OPENAI_API_KEY: OPENAI_KEY }))).toEqual({
      available: false,
      provider: 'whisper',
    });
    expect(await probeCapability(config({}, { provider: 'vosk' }))).toEqual({ available: false, provider: 'vosk' });
  });

  it('has no side effects: no request, no command run, no model load', async () => {
    const everything = {
      SATCHEL_STT_LOCAL_COMMAND: cmd('text'),
      SATCHEL_STT_COMMAND: cmd('text'),
      OPENAI_API_KEY: OPENAI_KEY,
      GROQ_API_KEY: GROQ_KEY,
    };
    const seen: string[] = [];
    for (const provider of ['', 'local', 'local_command', 'openai', 'groq', 'command']) {
      for (const modelDir of [fakeModelDir, emptyModelDir]) {
        const result = await probeCapability(
          config({ ...everything, SATCHEL_STT_PROVIDER: provider, SATCHEL_STT_MODEL_DIR: modelDir }),
        );
        expect(result.available).toBe(true);
        seen.push(result.provider);
      }
    }
    expect(new Set(seen)).toEqual(new Set(['local', 'local_command', 'openai', 'groq', 'command']));
    expect(fake.requests).toHaveLength(0);
    expect(fs.existsSync(marker)).toBe(false);
    // The fake model files hold zeros: had the probe loaded them, ONNX Runtime would have thrown.
  });

  it('returns exactly {available, provider} and never a secret', async () => {
    const cfg = config({}, { provider: 'openai', openai: { apiKey: OPENAI_KEY }, groq: { apiKey: GROQ_KEY } });
    const result = await probeCapability(cfg);
    expect(Object.keys(result).sort()).toEqual(['available', 'provider']);
    expect(JSON.stringify(result)).not.toContain('TOPSECRET');
  });

  it('answers none on an internal failure', async () => {
    const cfg = config({ SATCHEL_STT_PROVIDER: 'local' });
    Object.defineProperty(cfg, 'modelDir', {
      get() {
        throw new Error('disk on fire');
      },
    });
    expect(await probeCapability(cfg)).toEqual({ available: false, provider: 'none' });
  });
});

describe('transcribeFile', () => {
  let audio: string;
  beforeEach(() => {
    audio = path.join(dir, 'upload.webm');
    fs.writeFileSync(audio, Buffer.alloc(777, 1));
  });

  it('throws SttUnavailableError when disabled or when nothing is available', async () => {
    for (const cfg of [
      config({ SATCHEL_STT_ENABLED: '0', OPENAI_API_KEY: OPENAI_KEY }),
      config({}),
      config({ SATCHEL_STT_PROVIDER: 'groq', OPENAI_API_KEY: OPENAI_KEY }),
      config({ SATCHEL_STT_PROVIDER: 'nonsense', OPENAI_API_KEY: OPENAI_KEY }),
    ]) {
      const err = await transcribeFile(cfg, audio).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SttUnavailableError);
      expect((err as Error).message).toBe('Speech-to-text is unavailable on this server');
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('transcribes through OpenAI with the configured model, language and file name', async () => {
    const cfg = config({ OPENAI_API_KEY: OPENAI_KEY, SATCHEL_STT_LANGUAGE: 'en', SATCHEL_STT_OPENAI_MODEL: 'm-1' });
    const result = await transcribeFile(cfg, audio, { filename: 'recording.webm' });
    expect(result).toEqual({ success: true, transcript: 'fake transcript of 777 bytes via m-1' });
    expect(fake.requests[0]!.fields).toEqual({ model: 'm-1', language: 'en', response_format: 'json' });
    expect(fake.requests[0]!.file!.filename).toBe('recording.webm');
  });

  it('transcribes through Groq when it is the one configured', async () => {
    const result = await transcribeFile(config({ GROQ_API_KEY: GROQ_KEY }), audio);
    expect(result).toEqual({ success: true, transcript: 'fake transcript of 777 bytes via whisper-large-v3-turbo' });
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${GROQ_KEY}`);
  });

  it('returns provider failures as {success:false} with no secret in them', async () => {
    fake.reply = () => ({ status: 401, body: JSON.stringify({ error: { message: `Incorrect API key ${OPENAI_KEY}` } }) });
    const rejected = await transcribeFile(config({ OPENAI_API_KEY: OPENAI_KEY }), audio);
    expect(rejected).toEqual({ success: false, error: 'OpenAI rejected the API key' });
    fake.reply = () => ({ status: 400, body: JSON.stringify({ error: { message: `Bad request for ${OPENAI_KEY}` } }) });
    const bad = await transcribeFile(config({ OPENAI_API_KEY: OPENAI_KEY }), audio);
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad)).not.toContain('TOPSECRET');
  });

  it('runs the named custom command on the upload itself and maps its JSON verdict', async () => {
    const ok = await transcribeFile(config({ SATCHEL_STT_PROVIDER: 'command', SATCHEL_STT_COMMAND: cmd('json-ok') }), audio);
    expect(ok).toEqual({ success: true, transcript: 'json heard 777 bytes' });
    const failed = await transcribeFile(
      config({ SATCHEL_STT_PROVIDER: 'command', SATCHEL_STT_COMMAND: cmd('json-fail', 'Engine unavailable') }),
      audio,
    );
    expect(failed).toEqual({ success: false, error: 'Engine unavailable' });
    const ran = fs.readFileSync(marker, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]);
    expect(ran).toEqual([
      ['json-ok', audio],
      ['json-fail', audio, 'Engine unavailable'],
    ]);
  });

  it('applies SATCHEL_STT_TIMEOUT_MS to a hosted request', async () => {
    fake.reply = () => 'hang';
    const started = Date.now();
    const result = await transcribeFile(config({ OPENAI_API_KEY: OPENAI_KEY, SATCHEL_STT_TIMEOUT_MS: '300' }), audio);
    expect(result).toEqual({ success: false, error: 'OpenAI is unavailable (timed out)' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('passes the caller’s abort through (the client left)', async () => {
    const controller = new AbortController();
    const run = transcribeFile(config({ SATCHEL_STT_PROVIDER: 'command', SATCHEL_STT_COMMAND: cmd('hang') }), audio, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('client disconnected')), 200);
    await expect(run).rejects.toThrow('client disconnected');
  });

  it('throws (→ 500) when the command crashes', async () => {
    await expect(
      transcribeFile(config({ SATCHEL_STT_PROVIDER: 'command', SATCHEL_STT_COMMAND: cmd('exit', '9') }), audio),
    ).rejects.toBeInstanceOf(CommandExitError);
  });

  it('falls back from a named local to local_command when the model is missing', async () => {
    const wav = path.join(dir, 'in.wav');
    execFileSync(NODE, ['-e', WAV_SCRIPT, wav]);
    const result = await transcribeFile(config({ SATCHEL_STT_PROVIDER: 'local', SATCHEL_STT_LOCAL_COMMAND: cmd('text') }), wav);
    expect(result).toEqual({ success: true, transcript: `heard ${44 + 16_000 * 2} bytes wav 16000 Hz 1 ch` });
  });

  it('turns undecodable audio into a client-facing failure, not a crash', async () => {
    const empty = path.join(dir, 'empty.webm');
    fs.writeFileSync(empty, '');
    const result = await transcribeFile(config({ SATCHEL_STT_LOCAL_COMMAND: cmd('text') }), empty);
    expect(result).toEqual({ success: false, error: 'The audio file is empty' });
    expect(fs.existsSync(marker)).toBe(false);
  });

  const flite = ['/usr/bin/flite', '/usr/local/bin/flite'].find((p) => fs.existsSync(p));
  const realModel = isLocalModelPresent(defaultModelDir({}));
  if (!flite || !realModel) {
    console.log(`index.test: skipping on-device transcription: ${!realModel ? 'model not fetched (node scripts/fetch-model.mjs)' : 'flite is not installed (Debian package flite)'}`);
  }
  it.skipIf(!flite || !realModel)('transcribes on-device with the real model (flite speech)', async () => {
    const wav = path.join(dir, 'speech.wav');
    execFileSync(flite!, ['-voice', 'slt', '-t', 'Turn off the lights when you leave the room.', '-o', wav]);
    const result = await transcribeFile(config({ SATCHEL_STT_MODEL_DIR: defaultModelDir({}) }), wav);
    expect(result.success).toBe(true);
    expect(result.transcript?.toLowerCase()).toContain('lights');
  });
});

/** One second of a 440 Hz tone at 16 kHz mono, written by a child process (argv[1] = path). */
const WAV_SCRIPT = `
const fs = require('fs');
const n = 16000, d = Buffer.alloc(n * 2);
for (let i = 0; i < n; i++) d.writeInt16LE(Math.round(3000 * Math.sin(2 * Math.PI * 440 * i / 16000)), i * 2);
const h = Buffer.alloc(44);
h.write('RIFF', 0); h.writeUInt32LE(36 + d.length, 4); h.write('WAVEfmt ', 8); h.writeUInt32LE(16, 16);
h.writeUInt16LE(1, 20); h.writeUInt16LE(1, 22); h.writeUInt32LE(16000, 24); h.writeUInt32LE(32000, 28);
h.writeUInt16LE(2, 32); h.writeUInt16LE(16, 34); h.write('data', 36); h.writeUInt32LE(d.length, 40);
fs.writeFileSync(process.argv[1], Buffer.concat([h, d]));
`;
