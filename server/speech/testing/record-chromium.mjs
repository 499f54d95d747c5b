#!/usr/bin/env node
// Record a real Chromium MediaRecorder WebM/Opus file from a WAV played through Chromium's fake microphone,
// as the web UI would upload it. Used once to make the committed fixture (testing/fixtures/), so unit tests
// can prove the in-process demuxer handles a browser's own output; re-run to refresh it.
//
// Usage: node server/speech/testing/record-chromium.mjs <in.wav> <out.webm> [seconds]
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright';

const [input, output, secondsArg] = process.argv.slice(2);
if (!input || !output) {
  console.error('Usage: record-chromium.mjs <in.wav> <out.webm> [seconds]');
  process.exit(2);
}
const seconds = Number(secondsArg ?? 5);

const server = http.createServer((_, res) => {
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end('<!doctype html><title>rec</title>');
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const profile = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: [
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${path.resolve(input)}%noloop`,
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
});
try {
  await context.grantPermissions(['microphone'], { origin });
  const page = await context.newPage();
  await page.goto(origin);
  const base64 = await page.evaluate(async (ms) => {
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
    });
    const recorder = new MediaRecorder(stream, { mimeType: 'audio/webm;codecs=opus' });
    const parts = [];
    recorder.ondataavailable = (e) => parts.push(e.data);
    const stopped = new Promise((resolve) => (recorder.onstop = resolve));
    recorder.start(250);
    await new Promise((resolve) => setTimeout(resolve, ms));
    recorder.stop();
    await stopped;
    stream.getTracks().forEach((t) => t.stop());
    const bytes = new Uint8Array(await new Blob(parts).arrayBuffer());
    let text = '';
    for (const b of bytes) text += String.fromCharCode(b);
    return btoa(text);
  }, seconds * 1000);
  await fs.writeFile(output, Buffer.from(base64, 'base64'));
  console.log(`record-chromium: wrote ${output} (${Buffer.byteLength(base64, 'base64')} bytes)`);
} finally {
  await context.close();
  server.close();
  await fs.rm(profile, { recursive: true, force: true });
}
