// The probe's look at the model's files (capability.ts): remembered for MODEL_CHECK_TTL_MS per folder, so a model
// installed or removed while Satchel runs shows in the probe within that time, and not a request later.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isProviderAvailable, MODEL_CHECK_TTL_MS } from './capability.js';
import { loadSttConfig } from './config.js';
import { MODEL_FILE_BYTES, MODEL_FILES } from './local.js';
import { isRuntimePresent } from './runtime.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satchel-capability-'));
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The model's files with their exact sizes (no weights: the probe looks at names and sizes only). */
function installModel(where: string): void {
  fs.mkdirSync(where, { recursive: true });
  for (const { name } of MODEL_FILES) fs.writeFileSync(path.join(where, name), '');
  for (const { name } of MODEL_FILES) fs.truncateSync(path.join(where, name), MODEL_FILE_BYTES[name]!);
}

const runtime = isRuntimePresent();
if (!runtime) console.log(`skipping the local model check: onnxruntime-node has no binding for ${process.platform}/${process.arch} here`);

describe.skipIf(!runtime)('the local model check', () => {
  it('sees a model installed, and then removed, once MODEL_CHECK_TTL_MS has passed', () => {
    const modelDir = path.join(dir, 'model');
    const cfg = loadSttConfig(path.join(dir, 'state'), { SATCHEL_STT_MODEL_DIR: modelDir });
    expect(isProviderAvailable(cfg, 'local')).toBe(false);
    installModel(modelDir);
    vi.advanceTimersByTime(MODEL_CHECK_TTL_MS);
    expect(isProviderAvailable(cfg, 'local')).toBe(true);
    fs.rmSync(modelDir, { recursive: true });
    expect(isProviderAvailable(cfg, 'local')).toBe(true);
    vi.advanceTimersByTime(MODEL_CHECK_TTL_MS);
    expect(isProviderAvailable(cfg, 'local')).toBe(false);
  });
});
