// On-device speech-to-text (`local` provider, Moonshine tiny on onnxruntime-node), measured on synthetic
// speech from Debian's flite (voices slt, kal, kal16, awb, rms) and espeak-ng (en-us):
//   rtf         inference time / audio duration per clip (median of --runs per clip), pinned to one core
//   wer         word error rate per voice (corpus WER: all edits / all reference words)
//   rss         peak resident memory of the measuring process (model loaded, all clips transcribed)
//   long        a 60 s recording of sentences with pauses (chunked at silences), RTF and WER
//   webm        a WebM/Opus clip decoded in-process: decode time / audio duration
//   cold        first request in a fresh process: import + model load + one transcription (median of --cold)
// Needs `npm run build` (imports dist/), the model (node scripts/fetch-model.mjs), flite, espeak-ng, ffmpeg.
// Usage: node bench/stt.mjs [--runs 3] [--cold 5] [--json out.json]
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { hasCommand, machine, median } from './lib.mjs';

const dist = new URL('../dist/server/speech/', import.meta.url);
const FLITE_VOICES = ['slt', 'kal', 'kal16', 'awb', 'rms'];
const ESPEAK_VOICES = ['en-us'];
const PAUSE_SECONDS = 1;
const LONG_TARGET_SECONDS = 60;
const CHILD_TIMEOUT_MS = 10 * 60_000;

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    cold: { type: 'string', default: '5' },
    json: { type: 'string' },
    worker: { type: 'string' }, // internal: the pinned measuring process, given the clip list file
    'cold-child': { type: 'string' }, // internal: one cold-start measurement of this clip
    preload: { type: 'boolean', default: false }, // internal: the cold child preloads first (server start)
  },
});
const execFileP = promisify(execFile);
const pin = (args) => (hasCommand('taskset') ? ['taskset', ['-c', '0', ...args]] : [args[0], args.slice(1)]);

if (values['cold-child']) {
  // Everything a first /api/transcribe pays in a fresh server process: module import, model load, inference.
  // With --preload, the model loads first (as at server start) and only the request itself is timed.
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  const { transcribeLocalFile, preloadLocalModel, defaultModelDir } = await import(new URL('local.js', dist).href);
  const imported = performance.now();
  if (values.preload) await preloadLocalModel(defaultModelDir());
  const requested = performance.now();
  const cpuRequested = process.cpuUsage();
  const text = await transcribeLocalFile(values['cold-child'], { modelDir: defaultModelDir() });
  const done = performance.now();
  const cpu = process.cpuUsage(values.preload ? cpuRequested : cpuStart);
  const firstCpuMs = (cpu.user + cpu.system) / 1000;
  const maxRssMiB = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify({ importMs: imported - started, loadMs: requested - imported, firstMs: done - (values.preload ? requested : started), firstCpuMs, maxRssMiB, text }));
  process.exit(0);
}

if (values.worker) {
  const clips = JSON.parse(fs.readFileSync(values.worker, 'utf8'));
  const { transcribePcm, defaultModelDir } = await import(new URL('local.js', dist).href);
  const { decodeToPcm16k, SAMPLE_RATE } = await import(new URL('audio.js', dist).href);
  const modelDir = defaultModelDir();
  const runs = Number(values.runs);
  const results = [];
  for (const clip of clips) {
    const decodeStart = performance.now();
    const pcm = await decodeToPcm16k(clip.file);
    const decodeMs = performance.now() - decodeStart;
    const decodeCpu = process.cpuUsage();
    // The first Opus decode in a process compiles the WASM decoder; the second shows the steady cost.
    const warmStart = performance.now();
    await decodeToPcm16k(clip.file);
    const decodeWarmMs = performance.now() - warmStart;
    const decodeWarmCpuMs = ((u) => (u.user + u.system) / 1000)(process.cpuUsage(decodeCpu));
    const times = [];
    const cpuTimes = [];
    let text = '';
    for (let r = 0; r < runs; r++) {
      const t = performance.now();
      const cpu = process.cpuUsage();
      text = await transcribePcm(pcm, { modelDir });
      const used = process.cpuUsage(cpu);
      times.push(performance.now() - t);
      cpuTimes.push((used.user + used.system) / 1000);
    }
    results.push({ ...clip, seconds: pcm.length / SAMPLE_RATE, decodeMs, decodeWarmMs, decodeWarmCpuMs, inferMs: median(times), inferCpuMs: median(cpuTimes), text });
  }
  console.log(JSON.stringify({ results, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

// The orchestrator: make the clips, run the pinned worker and the cold starts, print the summary.
const { SENTENCES } = await import(new URL('testing/synth.js', dist).href);
const { wordErrorRate, normalizeWords, editDistance } = await import(new URL('testing/wer.js', dist).href);
const { decodeToPcm16k, writeWav16k } = await import(new URL('audio.js', dist).href);
const { isLocalModelPresent, defaultModelDir } = await import(new URL('local.js', dist).href);
for (const tool of ['flite', 'espeak-ng', 'ffmpeg']) if (!hasCommand(tool)) throw new Error(`bench/stt: ${tool} is not installed`);
if (!isLocalModelPresent(defaultModelDir())) throw new Error('bench/stt: no model (node scripts/fetch-model.mjs)');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-bench-stt-'));
try {
  const clips = [];
  for (const voice of FLITE_VOICES) {
    for (const [i, text] of SENTENCES.entries()) {
      const file = path.join(dir, `flite-${voice}-${i}.wav`);
      await execFileP('flite', ['-voice', voice, '-t', text, '-o', file]);
      clips.push({ group: `flite ${voice}`, file, reference: text });
    }
  }
  for (const voice of ESPEAK_VOICES) {
    for (const [i, text] of SENTENCES.entries()) {
      const file = path.join(dir, `espeak-${voice}-${i}.wav`);
      await execFileP('espeak-ng', ['-v', voice, '-w', file, text]);
      clips.push({ group: `espeak-ng ${voice}`, file, reference: text });
    }
  }
  // A long recording: slt sentences with pauses until it passes LONG_TARGET_SECONDS.
  const parts = [];
  const spoken = [];
  let seconds = 0;
  for (let i = 0; seconds < LONG_TARGET_SECONDS; i++) {
    const clip = clips[i % SENTENCES.length];
    const pcm = await decodeToPcm16k(clip.file);
    parts.push(pcm, new Float32Array(PAUSE_SECONDS * 16000));
    spoken.push(clip.reference);
    seconds += pcm.length / 16000 + PAUSE_SECONDS;
  }
  const long = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((offset, p) => (long.set(p, offset), offset + p.length), 0);
  const longFile = path.join(dir, 'long.wav');
  await writeWav16k(long, longFile);
  const webmFile = path.join(dir, 'clip.webm');
  await execFileP('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', clips[1].file, '-c:a', 'libopus', '-b:a', '48k', '-ar', '48000', webmFile]);
  const measured = [...clips, { group: 'long', file: longFile, reference: spoken.join(' ') }, { group: 'webm', file: webmFile, reference: clips[1].reference }];
  const listFile = path.join(dir, 'clips.json');
  fs.writeFileSync(listFile, JSON.stringify(measured));

  const [cmd, args] = pin([process.execPath, new URL(import.meta.url).pathname, '--worker', listFile, '--runs', values.runs]);
  const { stdout } = await execFileP(cmd, args, { env: { ...process.env, SATCHEL_LOG_LEVEL: 'error' }, timeout: CHILD_TIMEOUT_MS, maxBuffer: 64 << 20 });
  const { results, maxRssMiB } = JSON.parse(stdout.trim().split('\n').pop());

  const coldRun = async (preload) => {
    const extra = preload ? ['--preload'] : [];
    const [c, a] = pin([process.execPath, new URL(import.meta.url).pathname, '--cold-child', webmFile, ...extra]);
    const wallStart = performance.now();
    const out = await execFileP(c, a, { env: { ...process.env, SATCHEL_LOG_LEVEL: 'error' }, timeout: CHILD_TIMEOUT_MS });
    return { ...JSON.parse(out.stdout.trim().split('\n').pop()), wallMs: performance.now() - wallStart };
  };
  const cold = [];
  const preloaded = [];
  for (let i = 0; i < Number(values.cold); i++) {
    cold.push(await coldRun(false));
    preloaded.push(await coldRun(true));
  }

  const clipResults = results.filter((r) => r.group !== 'long' && r.group !== 'webm');
  const groups = [...new Set(clipResults.map((r) => r.group))].map((group) => {
    const rows = clipResults.filter((r) => r.group === group);
    const edits = rows.reduce((n, r) => n + editDistance(normalizeWords(r.reference), normalizeWords(r.text)), 0);
    const words = rows.reduce((n, r) => n + normalizeWords(r.reference).length, 0);
    return {
      group,
      clips: rows.length,
      wer: edits / words,
      medianRtf: median(rows.map((r) => r.inferMs / 1000 / r.seconds)),
      medianCpuRtf: median(rows.map((r) => r.inferCpuMs / 1000 / r.seconds)),
      medianSeconds: median(rows.map((r) => r.seconds)),
    };
  });
  const fliteRows = clipResults.filter((r) => r.group.startsWith('flite'));
  const corpusWer = (rows) =>
    rows.reduce((n, r) => n + editDistance(normalizeWords(r.reference), normalizeWords(r.text)), 0) /
    rows.reduce((n, r) => n + normalizeWords(r.reference).length, 0);
  const longRow = results.find((r) => r.group === 'long');
  const webmRow = results.find((r) => r.group === 'webm');
  const summary = {
    machine: machine(),
    command: `node bench/stt.mjs --runs ${values.runs} --cold ${values.cold}`,
    clips: clipResults.length,
    medianRtf: median(clipResults.map((r) => r.inferMs / 1000 / r.seconds)),
    // CPU time per audio second: what one core of our own would take, whatever else shares the machine.
    medianCpuRtf: median(clipResults.map((r) => r.inferCpuMs / 1000 / r.seconds)),
    loadAverage: os.loadavg()[0],
    werFlite: corpusWer(fliteRows),
    werAll: corpusWer(clipResults),
    peakRssMiB: maxRssMiB,
    groups,
    long: { seconds: longRow.seconds, rtf: longRow.inferMs / 1000 / longRow.seconds, cpuRtf: longRow.inferCpuMs / 1000 / longRow.seconds, wer: wordErrorRate(longRow.reference, longRow.text) },
    webm: {
      seconds: webmRow.seconds,
      firstDecodeMs: webmRow.decodeMs,
      warmDecodeMs: webmRow.decodeWarmMs,
      warmDecodeRtf: webmRow.decodeWarmMs / 1000 / webmRow.seconds,
      warmDecodeCpuMs: webmRow.decodeWarmCpuMs,
      wer: wordErrorRate(webmRow.reference, webmRow.text),
    },
    cold: {
      runs: cold.length,
      clip: `${webmRow.seconds.toFixed(2)} s WebM/Opus`,
      medianFirstRequestMs: median(cold.map((c) => c.firstMs)),
      medianFirstRequestCpuMs: median(cold.map((c) => c.firstCpuMs)),
      medianImportMs: median(cold.map((c) => c.importMs)),
      medianProcessWallMs: median(cold.map((c) => c.wallMs)),
      medianPeakRssMiB: median(cold.map((c) => c.maxRssMiB)),
      medianFirstRequestAfterPreloadMs: median(preloaded.map((c) => c.firstMs)),
      medianFirstRequestAfterPreloadCpuMs: median(preloaded.map((c) => c.firstCpuMs)),
      medianPreloadMs: median(preloaded.map((c) => c.loadMs)),
    },
    worst: clipResults
      .map((r) => ({ group: r.group, wer: wordErrorRate(r.reference, r.text), reference: r.reference, text: r.text }))
      .filter((r) => r.wer > 0)
      .sort((a, b) => b.wer - a.wer)
      .slice(0, 8),
  };
  if (values.json) fs.writeFileSync(values.json, JSON.stringify({ summary, results }, null, 2));
  console.log(JSON.stringify(summary, null, 2));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
