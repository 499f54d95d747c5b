import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAgent, type FakeAgent } from '../testing/fake-agent.js';
import { discoverLocalAgents, LOCAL_AGENT_CANDIDATES, LOCAL_PROBE_TIMEOUT_MS, testConnection } from './discover.js';

const KEY = 'sk-discover-0123456789abcdefghijkl';
let hermes: FakeAgent;
let ollama: FakeAgent;
let html: http.Server;
let htmlUrl: string;

beforeAll(async () => {
  hermes = await startFakeAgent({ apiKey: KEY, hermes: true, models: ['hermes-agent'] });
  ollama = await startFakeAgent({ models: ['llama3', 'qwen2'] });
  html = http.createServer((_req, res) => res.end('<html>a web page</html>'));
  await new Promise<void>((r) => html.listen(0, '127.0.0.1', r));
  htmlUrl = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await Promise.all([hermes.close(), ollama.close(), new Promise((r) => html.close(r))]);
});

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('testConnection', () => {
  it('gives up at its deadline on a server that trickles a byte at a time (the socket never idles)', async () => {
    const trickle = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const beat = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(beat));
    });
    await new Promise<void>((r) => trickle.listen(0, '127.0.0.1', r));
    try {
      const t0 = performance.now();
      const result = await testConnection({ baseUrl: `http://127.0.0.1:${(trickle.address() as AddressInfo).port}` }, 500);
      expect(result).toMatchObject({ ok: false, type: 'timeout' });
      expect(performance.now() - t0).toBeLessThan(3_000);
    } finally {
      trickle.closeAllConnections();
      await new Promise((r) => trickle.close(r));
    }
  });

  it('lists the models and detects Hermes through /v1/capabilities', async () => {
    expect(await testConnection({ baseUrl: `${hermes.baseUrl}/v1`, apiKey: KEY })).toEqual({ ok: true, models: ['hermes-agent'], kind: 'hermes' });
    expect(hermes.requests.map((r) => r.path)).toEqual(['/v1/models', '/v1/capabilities']);
    expect(hermes.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });
  it('a server without capabilities is openai; a set kind is kept without asking', async () => {
    expect(await testConnection({ baseUrl: ollama.baseUrl })).toEqual({ ok: true, models: ['llama3', 'qwen2'], kind: 'openai' });
    ollama.requests.length = 0;
    expect(await testConnection({ baseUrl: ollama.baseUrl, kind: 'hermes' })).toMatchObject({ ok: true, kind: 'hermes' });
    expect(ollama.requests.map((r) => r.path)).toEqual(['/v1/models']);
  });
  it('a wrong key is auth_error, and the key is not in the answer', async () => {
    const result = await testConnection({ baseUrl: hermes.baseUrl, apiKey: 'wrong-key-0123456789abcdefgh' });
    expect(result).toMatchObject({ ok: false, type: 'auth_error' });
    expect(JSON.stringify(result)).not.toContain('wrong-key');
  });
  it('refused is unreachable', async () => {
    expect(await testConnection({ baseUrl: `http://127.0.0.1:${await freePort()}` })).toMatchObject({ ok: false, type: 'unreachable' });
  });
  it('a web page is not an OpenAI-compatible server', async () => {
    const result = await testConnection({ baseUrl: htmlUrl });
    expect(result).toMatchObject({ ok: false, type: 'upstream_error' });
    expect((result as { message: string }).message).toMatch(/OpenAI-compatible/);
  });
});

describe('discoverLocalAgents', () => {
  it('probes only loopback ports, reporting who answers (and who wants a key)', async () => {
    const dead = await freePort();
    const found = await discoverLocalAgents([
      { kind: 'hermes', port: hermes.port, label: 'Hermes Agent' },
      { kind: 'openai', port: ollama.port, label: 'Ollama' },
      { kind: 'openai', port: dead, label: 'LM Studio' },
      { kind: 'openai', port: (html.address() as AddressInfo).port, label: 'llama.cpp' },
    ]);
    expect(found).toEqual([
      { kind: 'hermes', baseUrl: hermes.baseUrl, label: 'Hermes Agent', needsKey: true },
      { kind: 'openai', baseUrl: ollama.baseUrl, label: 'Ollama' },
    ]);
  });
  it('knows the four usual ports and gives up quickly', async () => {
    expect(LOCAL_AGENT_CANDIDATES.map((c) => c.port)).toEqual([8642, 11434, 1234, 8080]);
    const started = Date.now();
    await discoverLocalAgents();
    expect(Date.now() - started).toBeLessThan(LOCAL_PROBE_TIMEOUT_MS + 1_000);
  });
});
