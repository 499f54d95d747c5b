// The test server most test files share: started before the file's first test and stopped after its last. The
// value returned stands for it (every property read goes to the running server), so a file writes
// `const srv = testServerForFile(...)` in place of a `let`, a beforeAll and an afterAll of its own.
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer, type TestServerOverrides } from './harness.js';

export function testServerForFile(overrides: TestServerOverrides = {}): TestServer {
  let current: TestServer | undefined;
  beforeAll(async () => {
    current = await startTestServer(overrides);
  });
  afterAll(async () => {
    await current?.stop();
  });
  return new Proxy({} as TestServer, {
    get(_target, key) {
      if (!current) throw new Error('the test server starts before the first test (beforeAll)');
      return Reflect.get(current, key);
    },
  });
}
