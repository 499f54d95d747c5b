#!/usr/bin/env node
// A stand-in speech command for tests: `node fake-command.mjs <mode> <input> [extra]`.
// Every mode first appends its argv to $FAKE_COMMAND_MARKER (when set), so a test can prove whether it ran.
import { spawn } from 'node:child_process';
import fs from 'node:fs';

const [mode, input, extra] = process.argv.slice(2);
if (process.env.FAKE_COMMAND_MARKER) {
  fs.appendFileSync(process.env.FAKE_COMMAND_MARKER, JSON.stringify(process.argv.slice(2)) + '\n');
}

function describeInput() {
  const bytes = fs.readFileSync(input);
  const riff = bytes.subarray(0, 4).toString('latin1') === 'RIFF';
  // For a WAV, report the sample rate and channel count the converter produced.
  const rate = riff ? bytes.readUInt32LE(24) : 0;
  const channels = riff ? bytes.readUInt16LE(22) : 0;
  return { size: bytes.length, riff, rate, channels };
}

switch (mode) {
  case 'text': {
    const d = describeInput();
    process.stdout.write(`  heard ${d.size} bytes${d.riff ? ` wav ${d.rate} Hz ${d.channels} ch` : ''}\n\n`);
    break;
  }
  case 'echo':
    process.stdout.write(extra ?? '');
    break;
  case 'json-ok':
    process.stdout.write(JSON.stringify({ success: true, transcript: `json heard ${describeInput().size} bytes` }));
    break;
  case 'json-fail':
    process.stdout.write(JSON.stringify({ success: false, error: extra ?? 'Speech was unclear' }) + '\n');
    break;
  case 'exit':
    process.stderr.write('fake failure on stderr\n');
    process.exit(Number(extra ?? 3));
    break;
  case 'hang': {
    // Ignore SIGTERM, so only the SIGKILL escalation can stop it; a grandchild in the same process group
    // records its pid so the test can check the whole group died.
    process.on('SIGTERM', () => {});
    const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    if (extra) fs.writeFileSync(extra, String(grandchild.pid));
    process.stdout.write('started\n');
    setInterval(() => {}, 1000);
    break;
  }
  case 'flood': {
    const block = Buffer.alloc(64 * 1024, 'x');
    const pump = () => {
      while (process.stdout.write(block));
      process.stdout.once('drain', pump);
    };
    pump();
    break;
  }
  default:
    process.stderr.write(`unknown mode ${mode}\n`);
    process.exit(64);
}
