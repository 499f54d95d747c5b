import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModelDir, isLocalModelPresent, MODEL_FILES } from '../server/speech/local.js';

const run = promisify(execFile);
const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fetch-model.mjs');
const FETCH_TIMEOUT_MS = 120_000;

const sha256 = async (file: string) => createHash('sha256').update(await fs.readFile(file)).digest('hex');

const source = defaultModelDir({});
const present = isLocalModelPresent(source);
if (!present) console.log(`fetch-model.test: skipping: no model in ${source} to copy (run node scripts/fetch-model.mjs)`);

describe.skipIf(!present)('scripts/fetch-model.mjs', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-fetch-'));
    for (const { name } of MODEL_FILES) await fs.copyFile(path.join(source, name), path.join(dir, name));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('leaves verified files alone and says so', async () => {
    const before = await fs.stat(path.join(dir, 'encoder_model.onnx'));
    const { stdout } = await run(process.execPath, [script, '--dir', dir], { timeout: FETCH_TIMEOUT_MS });
    expect(stdout.trim()).toBe(`fetch-model: Moonshine tiny already present and verified in ${dir}`);
    expect((await fs.stat(path.join(dir, 'encoder_model.onnx'))).mtimeMs).toBe(before.mtimeMs);
  });

  it('replaces a corrupted file (same size, wrong bytes) from the npm tarball, and only that one', async () => {
    const decoder = path.join(dir, 'decoder_model_merged.onnx');
    const handle = await fs.open(decoder, 'r+');
    await handle.write(Buffer.from('corrupt'), 0, 7, 1000);
    await handle.close();
    const { stdout } = await run(process.execPath, [script, `--dir=${dir}`], { timeout: FETCH_TIMEOUT_MS });
    expect(stdout).toContain('fetch-model: npm pack @moonshine-ai/moonshine-js@0.1.29 (for decoder_model_merged.onnx)');
    expect(stdout).toContain(`fetch-model: wrote ${decoder} (sha256 verified)`);
    expect(stdout).not.toContain('encoder_model.onnx');
    for (const { name, sha256: expected } of MODEL_FILES) expect(await sha256(path.join(dir, name))).toBe(expected);
    expect((await fs.readdir(dir)).sort()).toEqual(['decoder_model_merged.onnx', 'encoder_model.onnx']); // no temp files
  }, FETCH_TIMEOUT_MS);

  it('rejects unknown arguments with a clear message', async () => {
    const error = await run(process.execPath, [script, '--bogus'], { timeout: FETCH_TIMEOUT_MS }).catch((err: unknown) => err);
    expect((error as { code: number }).code).toBe(1);
    expect((error as { stderr: string }).stderr.trim()).toBe('fetch-model: Unknown argument: --bogus');
  });
});
