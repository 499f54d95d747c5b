// Speech-to-text plumbing costs (everything except the recognizer itself), each beside its floor:
//   probe      probeCapability() per call vs. the bare fs.statSync pair it must do anyway
//   command    runCommand() of a no-op node script vs. child_process.execFile of the same
//   hosted     transcribeHosted() of a 1 MiB file to a loopback fake vs. a bare fetch + FormData of the same
//   convert    local_command's conversion (decode + 16 kHz WAV write) of a 30 s 44.1 kHz stereo WAV
//   reencode   the hosted >25 MB path: a 26 MB 48 kHz stereo WAV decoded and written as 16 kHz mono
// Needs `npm run build` (imports dist/). Usage: node bench/stt-providers.mjs [--runs 7]
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { machine, median } from './lib.mjs';
// ffmpeg (Debian package) is the floor for the conversions; the probe, command and hosted rows do not need it.

const dist = new URL('../dist/server/speech/', import.meta.url);
const { probeCapability, loadSttConfig } = await import(new URL('index.js', dist).href);
const { runCommand } = await import(new URL('run-command.js', dist).href);
const { transcribeHosted } = await import(new URL('providers/hosted.js', dist).href);
const { decodeToPcm16k, writeWav16k } = await import(new URL('audio.js', dist).href);
const { startFakeOpenAi } = await import(new URL('testing/fake-openai.js', dist).href);
const { MODEL_FILES, MODEL_FILE_BYTES } = await import(new URL('local.js', dist).href);

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const runs = Number(values.runs);
const execFileP = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-bench-stt-'));
process.env.SATCHEL_LOG_LEVEL = 'error';

async function timeMs(fn, reps = 1) {
  const t = process.hrtime.bigint();
  for (let i = 0; i < reps; i++) await fn();
  return Number(process.hrtime.bigint() - t) / 1e6 / reps;
}
async function measure(fn, reps = 1) {
  await fn(); // warm-up
  const xs = [];
  for (let i = 0; i < runs; i++) xs.push(await timeMs(fn, reps));
  return median(xs);
}
/** Ours and its floor, alternating run by run so machine noise and JIT warm-up hit both alike. */
async function pair(ours, floor, reps = 1) {
  for (let i = 0; i < 3; i++) {
    await ours();
    await floor();
  }
  const a = [];
  const b = [];
  for (let i = 0; i < runs; i++) {
    a.push(await timeMs(ours, reps));
    b.push(await timeMs(floor, reps));
  }
  return [median(a), median(b)];
}

const { writeToneWav: wav } = await import(new URL('testing/tone.js', dist).href);

const rows = [];
const row = (name, ours, floor, unit = 'ms') =>
  rows.push(`| ${name} | ${ours.toFixed(3)} ${unit} | ${floor === undefined ? '—' : `${floor.toFixed(3)} ${unit}`} | ${floor === undefined ? '—' : (ours / floor).toFixed(2)} |`);

try {
  // probe: a present (sparse) model, so the automatic order stops at `local` after two stats.
  const modelDir = path.join(dir, 'model');
  fs.mkdirSync(modelDir);
  for (const { name } of MODEL_FILES) {
    fs.writeFileSync(path.join(modelDir, name), '');
    fs.truncateSync(path.join(modelDir, name), MODEL_FILE_BYTES[name]);
  }
  const cfgLocal = loadSttConfig(dir, { SATCHEL_STT_MODEL_DIR: modelDir });
  const cfgCommand = loadSttConfig(dir, { SATCHEL_STT_MODEL_DIR: path.join(dir, 'none'), SATCHEL_STT_LOCAL_COMMAND: '["ffmpeg","{input}"]' });
  const PROBES = 2000;
  const [probeLocal, statPair] = await pair(
    () => probeCapability(cfgLocal),
    () => MODEL_FILES.forEach(({ name }) => fs.statSync(path.join(modelDir, name))),
    PROBES,
  );
  const probePath = await measure(() => probeCapability(cfgCommand), PROBES);
  row('probe, local model present (per call)', probeLocal * 1000, statPair * 1000, 'µs');
  row('probe, local_command found on PATH (per call)', probePath * 1000, undefined, 'µs');

  // command: spawn overhead of our runner vs. execFile.
  const noop = [process.execPath, '-e', ''];
  const [ours, floor] = await pair(
    () => runCommand(noop, { timeoutMs: 10_000 }),
    () => execFileP(noop[0], noop.slice(1)),
  );
  row('runCommand no-op node vs execFile', ours, floor);

  // hosted: 1 MiB upload to a loopback fake.
  const fake = await startFakeOpenAi();
  const audio = path.join(dir, 'a.webm');
  fs.writeFileSync(audio, Buffer.alloc(1024 * 1024, 5));
  const settings = { apiKey: 'k', baseUrl: fake.baseUrl, model: 'whisper-1' };
  const [hosted, bareFetch] = await pair(() => transcribeHosted('openai', settings, audio, { timeoutMs: 10_000 }), async () => {
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(audio)], { type: 'audio/webm' }), 'a.webm');
    form.append('model', 'whisper-1');
    form.append('response_format', 'json');
    const res = await fetch(fake.baseUrl + '/audio/transcriptions', { method: 'POST', body: form, headers: { Authorization: 'Bearer k' } });
    await res.json();
  });
  await fake.close();
  row('hosted 1 MiB upload vs bare fetch+FormData', hosted, bareFetch);

  // convert: what local_command adds before the recognizer runs.
  const clip = path.join(dir, 'clip.wav');
  wav(clip, 30, 44_100, 2);
  const out = path.join(dir, 'clip-16k.wav');
  const ffmpegTo16k = (input) => () => execFileP('ffmpeg', ['-v', 'error', '-y', '-i', input, '-ac', '1', '-ar', '16000', out]);
  const [convert, ffmpeg] = await pair(async () => writeWav16k(await decodeToPcm16k(clip), out), ffmpegTo16k(clip));
  row('local_command conversion, 30 s 44.1 kHz stereo WAV (vs ffmpeg CLI)', convert, ffmpeg);

  // reencode: the hosted path for a file over 25 MB.
  const big = path.join(dir, 'big.wav');
  wav(big, 140, 48_000, 2);
  const [reencode, ffmpegBig] = await pair(async () => writeWav16k(await decodeToPcm16k(big), out), ffmpegTo16k(big));
  row(`re-encode ${(fs.statSync(big).size / 1e6).toFixed(1)} MB WAV to 16 kHz mono (vs ffmpeg CLI)`, reencode, ffmpegBig);

  console.log(`Machine: ${machine()}; medians of ${runs} runs after one warm-up\n`);
  console.log('| what | Satchel | floor | ratio |\n|---|---|---|---|');
  console.log(rows.join('\n'));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
