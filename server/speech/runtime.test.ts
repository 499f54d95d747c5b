// A build without this machine's ONNX Runtime binding (an Intel Mac; an installer for another architecture)
// must start, and say in its capability probe that on-device speech is not available, instead of crashing at
// start-up the way a binding imported at module load did.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('./runtime.js', async (original) => ({
  ...(await original<typeof import('./runtime.js')>()),
  isRuntimePresent: () => false,
  loadRuntime: () => Promise.reject(new Error('Cannot find module onnxruntime_binding.node')),
}));

const { runtimeBindingPath } = await vi.importActual<typeof import('./runtime.js')>('./runtime.js');
const { startTestServer, TEST_TOKEN } = await import('../testing/harness.js');
type TestServer = Awaited<ReturnType<typeof startTestServer>>;

describe('the binding on disk', () => {
  it('is found for this machine and not for a platform the package ships none for', () => {
    expect(runtimeBindingPath()).toMatch(/onnxruntime_binding\.node$/);
    // onnxruntime-node 1.30 ships no binding for Intel Macs.
    expect(runtimeBindingPath('darwin', 'x64')).toBeUndefined();
  });
});

describe('a build without the binding', () => {
  let srv: TestServer;
  const saved = { ...process.env };
  beforeAll(async () => {
    // Only the on-device provider could answer; the model files themselves are present (npm install fetched them).
    process.env.SATCHEL_STT_PROVIDER = 'local';
    delete process.env.OPENAI_API_KEY;
    delete process.env.GROQ_API_KEY;
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv.stop();
    process.env = saved;
  });

  it('starts, and the capability probe says on-device speech is not available', async () => {
    expect((await fetch(`${srv.origin}/health`)).status).toBe(200);
    const res = await fetch(`${srv.origin}/api/transcribe/capability`, { headers: { Authorization: `Bearer ${TEST_TOKEN}` } });
    expect(await res.json()).toEqual({ ok: true, available: false, provider: 'local' });
  });
});
