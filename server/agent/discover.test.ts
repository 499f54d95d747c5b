import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAgent, type FakeAgent } from '../testing/fake-agent.js';
import { connectedSentence, detectKind, discoverLocalAgents, LOCAL_AGENT_CANDIDATES, LOCAL_PROBE_TIMEOUT_MS, testConnection } from './discover.js';

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

  it('lists the models and detects Hermes (its keyless /v1/health); a list that needs the key proves it', async () => {
    hermes.requests.length = 0;
    const result = await testConnection({ baseUrl: `${hermes.baseUrl}/v1`, apiKey: KEY });
    expect(result).toEqual({ ok: true, models: ['hermes-agent'], kind: 'hermes', keyChecked: true, host: `127.0.0.1:${hermes.port}` });
    expect(connectedSentence(result as Extract<typeof result, { ok: true }>, true)).toBe(`Connected to Hermes Agent’s gateway at 127.0.0.1:${hermes.port}: 1 model, key accepted.`);
    // Without a key, then with it; the kind from /v1/health: no completion runs the agent.
    expect(hermes.requests.map((r) => [r.path, r.headers.authorization ?? null])).toEqual([
      ['/v1/models', null],
      ['/v1/models', `Bearer ${KEY}`],
      ['/v1/health', null],
    ]);
  });
  it('a key typed for a server that asks for none is said to be not needed, not silently "no key needed"', () => {
    const keyless = { ok: true as const, models: ['hermes-agent'], kind: 'hermes' as const, keyChecked: true, keyless: true, host: '127.0.0.1:8642' };
    expect(connectedSentence(keyless, true)).toBe('Connected to Hermes Agent’s gateway at 127.0.0.1:8642: 1 model, the server asks for no key, so the one typed is not needed.');
    expect(connectedSentence(keyless, false)).toBe('Connected to Hermes Agent’s gateway at 127.0.0.1:8642: 1 model, no key needed.');
    expect(connectedSentence({ ...keyless, keyless: undefined }, true)).toBe('Connected to Hermes Agent’s gateway at 127.0.0.1:8642: 1 model, key accepted.');
  });
  it('a server without capabilities is openai; the kind is detected again, whatever it was', async () => {
    ollama.requests.length = 0;
    expect(await testConnection({ baseUrl: ollama.baseUrl })).toMatchObject({ ok: true, models: ['llama3', 'qwen2'], kind: 'openai', keyChecked: true });
    // The key check, then the same offering one tool (whether turns may offer Satchel's tools).
    expect(ollama.requests.map((r) => r.path)).toEqual(['/v1/models', '/v1/health', '/v1/capabilities', '/v1/chat/completions', '/v1/chat/completions']);
  });
  it('an open model list: a one-token completion to the chosen model checks the key, and a wrong one is reported', async () => {
    const open = await startFakeAgent({ apiKey: KEY, openModels: true, models: ['m1', 'm2'] });
    try {
      const wrong = await testConnection({ baseUrl: open.baseUrl, apiKey: 'wrong-key-0123456789abcdefgh', model: 'm2' });
      expect(wrong).toEqual({ ok: false, type: 'auth_error', message: `The agent at 127.0.0.1:${open.port} refused the API key (401).`, hint: 'Check the key, or paste it again.' });
      const completion = open.requests.find((r) => r.path === '/v1/chat/completions')!;
      expect(completion.body).toMatchObject({ model: 'm2', max_tokens: 1, stream: false });
      expect(completion.body).not.toHaveProperty('tools');
      const none = await testConnection({ baseUrl: open.baseUrl });
      expect(none).toMatchObject({ ok: false, type: 'auth_error', message: `The agent at 127.0.0.1:${open.port} needs an API key (401).` });
      const right = await testConnection({ baseUrl: open.baseUrl, apiKey: KEY, model: 'm2' });
      expect(right).toMatchObject({ ok: true, kind: 'openai', keyChecked: true });
      expect(connectedSentence(right as Extract<typeof right, { ok: true }>, true)).toBe(`Connected to an OpenAI-compatible server at 127.0.0.1:${open.port}: 2 models, key accepted.`);
    } finally {
      await open.close();
    }
  });
  it('a model the server does not list is reported with the ones it has', async () => {
    expect(await testConnection({ baseUrl: ollama.baseUrl, model: 'gpt-5' })).toEqual({
      ok: false,
      type: 'model_not_found',
      message: `The agent at 127.0.0.1:${ollama.port} has no model “gpt-5”.`,
      hint: 'Pick one of its 2 models: llama3, qwen2.',
      models: ['llama3', 'qwen2'],
    });
  });
  it('says plainly when the key could not be checked (the completion is refused for another reason)', async () => {
    const odd = await startFakeAgent({ models: ['m1'] });
    odd.fallback = { status: 400, body: { error: { message: 'max_tokens is not supported' } } };
    try {
      const result = await testConnection({ baseUrl: odd.baseUrl, apiKey: 'sk-some-key-0123456789abcdef' });
      expect(result).toMatchObject({ ok: true, keyChecked: false });
      expect(connectedSentence(result as Extract<typeof result, { ok: true }>, true)).toBe(`Connected to an OpenAI-compatible server at 127.0.0.1:${odd.port}: 1 model, the key could not be checked.`);
    } finally {
      await odd.close();
    }
  });
  it('a Hermes gateway with an open list needs no key, and gets no completion (it would run the agent)', async () => {
    const open = await startFakeAgent({ hermes: true, models: ['hermes-agent'] });
    try {
      expect(await testConnection({ baseUrl: open.baseUrl })).toMatchObject({ ok: true, kind: 'hermes', keyChecked: true, keyless: true });
      expect(open.requests.some((r) => r.path === '/v1/chat/completions')).toBe(false);
    } finally {
      await open.close();
    }
  });
  it('detectKind: hermes, openai, or undefined when nothing answers', async () => {
    expect(await detectKind(hermes.baseUrl, undefined)).toBe('hermes');
    expect(await detectKind(ollama.baseUrl, undefined)).toBe('openai');
    expect(await detectKind(`http://127.0.0.1:${await freePort()}`, undefined)).toBeUndefined();
  });
  it('a wrong key is auth_error, and the key is not in the answer', async () => {
    const result = await testConnection({ baseUrl: hermes.baseUrl, apiKey: 'wrong-key-0123456789abcdefgh' });
    expect(result).toMatchObject({ ok: false, type: 'auth_error' });
    expect(JSON.stringify(result)).not.toContain('wrong-key');
  });
  it('refused is unreachable: nothing listens', async () => {
    const port = await freePort();
    expect(await testConnection({ baseUrl: `http://127.0.0.1:${port}` })).toEqual({
      ok: false,
      type: 'unreachable',
      message: `Nothing is listening at 127.0.0.1:${port}.`,
      hint: 'Start the agent, or check the address and port.',
    });
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
