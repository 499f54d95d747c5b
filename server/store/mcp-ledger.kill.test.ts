// The ledger's writer killed (SIGKILL, a real child process) while reads are being recorded, several at once: every
// read that was answered (its `ack` printed after its batch committed) is in the ledger after a restart, and no
// call is half there (a two-row call has both rows or neither). Rows of reads not answered yet may be missing:
// their reads were never served.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleChild } from '../testing/compile.js';
import { openStore } from '../testing/fresh-store.js';

const ROUNDS = 8;
const CHILD_TIMEOUT_MS = 20_000;

let work: string;
let child: string;

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-ledger-kill-'));
  child = await bundleChild('server/store/mcp-ledger-child.ts', 'mcp-ledger-child-');
}, 120_000);

afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

/** Runs the child until it has acknowledged `acks` reads (and then some more time at random), kills it, and gives
 *  the reads acknowledged before the kill. */
function killedAfter(stateDir: string, acks: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, stateDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked: number[] = [];
    let buffered = '';
    let killing = false;
    const timer = setTimeout(() => proc.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) if (line.startsWith('ack ')) acked.push(Number(line.slice(4)));
      if (!killing && acked.length >= acks) {
        killing = true;
        // Somewhere inside the next batches, not at the edge of one: a random few hundred microseconds on.
        setTimeout(() => proc.kill('SIGKILL'), randomInt(0, 3));
      }
    });
    proc.on('error', reject);
    proc.on('exit', (_code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL' || !killing) reject(new Error(`the child ended on its own (${signal ?? _code})`));
      else resolve(acked);
    });
  });
}

it('keeps every answered read after a kill, and no call half-written', async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const stateDir = path.join(work, `r${round}`);
    await fs.mkdir(stateDir);
    const acked = await killedAfter(stateDir, randomInt(50, 400));
    const store = await openStore(stateDir);
    try {
      const names = new Set(
        (await store.transaction((q) => q.all<{ name: string }>('SELECT name FROM mcp_ledger'))).map((r) => r.name),
      );
      const missing = acked.filter((n) => (n % 2 === 0 ? !names.has(`${n}`) : !names.has(`${n}a`) || !names.has(`${n}b`)));
      expect(missing, `round ${round}: answered reads missing`).toEqual([]);
      const halves = [...names].filter((n) => (n.endsWith('a') && !names.has(`${n.slice(0, -1)}b`)) || (n.endsWith('b') && !names.has(`${n.slice(0, -1)}a`)));
      expect(halves, `round ${round}: calls half-written`).toEqual([]);
      expect(names.size).toBeGreaterThanOrEqual(acked.length);
    } finally {
      await store.close();
    }
  }
}, 240_000);
