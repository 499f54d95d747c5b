// Real encoded images for the image tests (downscale.test.ts, downscale-child.test.ts): ffmpeg's test pattern in
// any format its encoders write, and ffprobe's reading of what came back, so a result is checked by a decoder
// other than the one that made it.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Whether ffmpeg (and ffprobe, its package's) can run here: the tests that need it skip, saying so, without. */
export const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;

export interface FfmpegImages {
  /** ffmpeg's test pattern at `size` (`WxH`), written as `name` in the folder (the extension picks the encoder). */
  ffmpegImage(name: string, size: string, extra?: string[]): Buffer;
  /** Width, height and codec of an encoded image, as ffprobe sees it. */
  probe(bytes: Buffer): { width: number; height: number; codec: string };
}

/** The two, writing their files in the folder `dir()` names (a test's own, made in its beforeAll). */
export function ffmpegImages(dir: () => string): FfmpegImages {
  return {
    ffmpegImage(name, size, extra = []) {
      const file = path.join(dir(), name);
      execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=${size}`, ...extra, '-frames:v', '1', file]);
      return readFileSync(file);
    },
    probe(bytes) {
      const file = path.join(dir(), `probe-${Math.random().toString(36).slice(2)}`);
      writeFileSync(file, bytes);
      const out = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height,codec_name', '-of', 'json', file], { encoding: 'utf8' });
      const stream = (JSON.parse(out) as { streams: { width: number; height: number; codec_name: string }[] }).streams[0]!;
      return { width: stream.width, height: stream.height, codec: stream.codec_name };
    },
  };
}
