import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setLogSink } from '../../core/log.js';
import { AudioFormatError } from '../audio.js';
import { CommandExitError, CommandOutputLimitError, CommandTimeoutError, KILL_GRACE_MS } from '../run-command.js';
import { MAX_COMMAND_ERROR_LENGTH, parseCommandOutput } from './command-output.js';
import { transcribeWithCommand } from './command.js';
import { transcribeWithLocalCommand } from './local-command.js';
import { writeToneWav } from '../testing/tone.js';

const FAKE = fileURLToPath(new URL('../testing/fake-command.mjs', import.meta.url));
const NODE = process.execPath;

let dir: string;
let tmp: string;
let savedTmp: string | undefined;
let logLines: string[];
let restoreLog: () => void;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-cmdprov-'));
  // A private temp root: the providers' temporary files must all be gone afterwards.
  tmp = path.join(dir, 'tmp');
  fs.mkdirSync(tmp);
  savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  logLines = [];
  restoreLog = setLogSink((l) => logLines.push(l));
});
afterEach(() => {
  restoreLog();
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('parseCommandOutput', () => {
  it('takes plain text as the transcript', () => {
    expect(parseCommandOutput('  hello there \n')).toEqual({ success: true, transcript: 'hello there' });
    expect(parseCommandOutput('')).toEqual({ success: true, transcript: '' });
    expect(parseCommandOutput('{not json')).toEqual({ success: true, transcript: '{not json' });
    expect(parseCommandOutput('{"text":"no success key"}')).toEqual({
      success: true,
      transcript: '{"text":"no success key"}',
    });
  });
  it('maps a JSON verdict onto 4.5 step 4', () => {
    expect(parseCommandOutput('{"success":true,"transcript":" hi "}')).toEqual({ success: true, transcript: 'hi' });
    expect(parseCommandOutput('{"success":true}')).toEqual({ success: true, transcript: '' });
    expect(parseCommandOutput('{"success":false,"error":"Model unavailable"}')).toEqual({
      success: false,
      error: 'Model unavailable',
    });
    expect(parseCommandOutput('{"success":0}')).toEqual({ success: false, error: 'Transcription failed' });
    expect(parseCommandOutput('{"success":false,"error":"bad /home/me/secret/x.wav\\nnext"}')).toEqual({
      success: false,
      error: 'bad <path> next',
    });
    const long = parseCommandOutput(JSON.stringify({ success: false, error: 'e'.repeat(1000) }));
    expect(long.error).toBe('e'.repeat(MAX_COMMAND_ERROR_LENGTH - 1) + '…');
  });
});

describe('command provider', () => {
  let audio: string;
  beforeEach(() => {
    audio = path.join(dir, 'rec.webm');
    fs.writeFileSync(audio, Buffer.alloc(1234, 7));
  });

  it('hands the uploaded file itself to the command and returns its text', async () => {
    const result = await transcribeWithCommand([NODE, FAKE, 'text', '{input}'], audio, { timeoutMs: 10_000 });
    expect(result).toEqual({ success: true, transcript: 'heard 1234 bytes' });
  });

  it('maps JSON success and failure', async () => {
    expect(await transcribeWithCommand([NODE, FAKE, 'json-ok', '{input}'], audio, { timeoutMs: 10_000 })).toEqual({
      success: true,
      transcript: 'json heard 1234 bytes',
    });
    expect(
      await transcribeWithCommand([NODE, FAKE, 'json-fail', '{input}', 'Backend not configured'], audio, {
        timeoutMs: 10_000,
      }),
    ).toEqual({ success: false, error: 'Backend not configured' });
  });

  it('throws on a non-zero exit, logging stderr but not putting it in the error', async () => {
    const err = await transcribeWithCommand([NODE, FAKE, 'exit', '{input}', '5'], audio, { timeoutMs: 10_000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CommandExitError);
    expect((err as Error).message).toBe('node exited with code 5');
    expect(logLines.join('\n')).toContain('speech: node exited with code 5: fake failure on stderr');
  });

  it('kills a hanging command at the time limit', async () => {
    const started = Date.now();
    await expect(
      transcribeWithCommand([NODE, FAKE, 'hang', '{input}'], audio, { timeoutMs: 300 }),
    ).rejects.toBeInstanceOf(CommandTimeoutError);
    expect(Date.now() - started).toBeLessThan(300 + KILL_GRACE_MS + 2000);
  });

  it('fails a command that floods stdout past the capture limit', async () => {
    await expect(
      transcribeWithCommand([NODE, FAKE, 'flood'], audio, { timeoutMs: 20_000 }),
    ).rejects.toBeInstanceOf(CommandOutputLimitError);
  });
});

describe('local_command provider', () => {
  it('converts the upload to a 16 kHz mono WAV, joins utterance lines, and removes the WAV', async () => {
    const audio = path.join(dir, 'in.wav');
    writeToneWav(audio, 1.5, 44_100, 2, 300, 4000);
    const marker = path.join(dir, 'marker');
    process.env.FAKE_COMMAND_MARKER = marker;
    try {
      const result = await transcribeWithLocalCommand([NODE, FAKE, 'text', '{input}'], audio, { timeoutMs: 10_000 });
      expect(result).toEqual({ success: true, transcript: `heard ${44 + 1.5 * 16_000 * 2} bytes wav 16000 Hz 1 ch` });
    } finally {
      delete process.env.FAKE_COMMAND_MARKER;
    }
    const [argv] = fs.readFileSync(marker, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]);
    expect(argv![0]).toBe('text');
    expect(argv![1]).not.toBe(audio);
    expect(path.dirname(path.dirname(argv![1]!))).toBe(tmp);
    expect(fs.existsSync(argv![1]!)).toBe(false);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it('joins multi-line output into one line', async () => {
    const audio = path.join(dir, 'in.wav');
    writeToneWav(audio, 0.5, 16_000, 1, 300, 4000);
    const result = await transcribeWithLocalCommand([NODE, FAKE, 'echo', '{input}', 'first part\n\n  second part \n'], audio, {
      timeoutMs: 10_000,
    });
    expect(result).toEqual({ success: true, transcript: 'first part second part' });
  });

  it('throws on a non-zero exit and still removes the WAV', async () => {
    const audio = path.join(dir, 'in.wav');
    writeToneWav(audio, 0.5, 16_000, 1, 300, 4000);
    await expect(
      transcribeWithLocalCommand([NODE, FAKE, 'exit', '{input}', '2'], audio, { timeoutMs: 10_000 }),
    ).rejects.toBeInstanceOf(CommandExitError);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });

  it('reports undecodable audio as AudioFormatError without running the command', async () => {
    const audio = path.join(dir, 'junk.wav');
    fs.writeFileSync(audio, '');
    const marker = path.join(dir, 'marker');
    process.env.FAKE_COMMAND_MARKER = marker;
    try {
      await expect(
        transcribeWithLocalCommand([NODE, FAKE, 'text', '{input}'], audio, { timeoutMs: 10_000 }),
      ).rejects.toBeInstanceOf(AudioFormatError);
    } finally {
      delete process.env.FAKE_COMMAND_MARKER;
    }
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });
});
