// The transcriber opens a path, so it is handed a private copy of the audio file that was opened through the
// anchored walk: a file swapped in at the same path afterwards (a symlink to another recording, a key file a
// hosted provider would receive) is never what it reads.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TRANSCRIBED_BYTES, transcriptOf } from './audio.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('transcriptOf', () => {
  it('transcribes the file it was handed open, not whatever its path holds by then, and leaves no copy behind', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-audio-test-'));
    dirs.push(dir);
    const memo = path.join(dir, 'memo.wav');
    fs.writeFileSync(memo, 'RIFF the recording that was opened');
    fs.writeFileSync(path.join(dir, 'secret'), 'a key file elsewhere');
    const handle = await fsp.open(memo, 'r');
    try {
      // Swapped after the open: the path now leads elsewhere.
      fs.rmSync(memo);
      fs.symlinkSync(path.join(dir, 'secret'), memo);
      let given = '';
      const transcript = await transcriptOf(handle, (await handle.stat()).size, 'memo.wav', {
        transcribe: async (file) => {
          given = file;
          return fs.readFileSync(file, 'utf8');
        },
      });
      expect(transcript).toBe('RIFF the recording that was opened');
      expect(given).not.toBe(memo);
      expect(path.extname(given)).toBe('.wav');
      expect(fs.existsSync(given)).toBe(false);
    } finally {
      await handle.close();
    }
  });

  it('refuses a file larger than it transcribes, and says nothing can transcribe without a transcriber', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-audio-test-'));
    dirs.push(dir);
    const file = path.join(dir, 'a.wav');
    fs.writeFileSync(file, 'RIFF');
    const handle = await fsp.open(file, 'r');
    try {
      await expect(transcriptOf(handle, MAX_TRANSCRIBED_BYTES + 1, 'a.wav', { transcribe: async () => 'never' })).rejects.toThrow('audio larger than 256 MiB is not transcribed');
      expect(await transcriptOf(handle, 4, 'a.wav', {})).toBeUndefined();
    } finally {
      await handle.close();
    }
  });
});
