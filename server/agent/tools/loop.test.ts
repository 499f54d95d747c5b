// The tool loop on its own, with a scripted stream and runner: the rounds' text joined with a break, the usage
// summed, the results of a turn bounded in characters, a refusal of tools remembered and the turn sent again.
import { describe, expect, it } from 'vitest';
import type { BuildRequestInput } from '../turn-shapes.js';
import type { AgentConfig, StreamTurn, TurnRequest, UpstreamEvent } from '../types.js';
import { MAX_TOOL_RESULT_CHARS, MAX_TOOL_RESULT_CHARS_PER_TURN } from './limits.js';
import { ROUND_BREAK, TOO_MUCH_READ, toolTurn, type TurnTools } from './loop.js';
import { ToolsRefused } from './refusal.js';

const config: AgentConfig = { baseUrl: 'http://127.0.0.1:1', model: 'm', kind: 'openai', idleTimeoutMs: 1000, contextChars: 200_000 };
const build = { session: { session_id: 's', connection: 'c1' } } as unknown as BuildRequestInput;
const signal = new AbortController().signal;
const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, function: { name: 'read_file', arguments: '{"name":"a.txt"}' } }));

/** A server answering each request with the next script; the requests it got are kept. */
function scripted(scripts: (UpstreamEvent[] | Error)[]): { streamTurn: StreamTurn; requests: TurnRequest[] } {
  const requests: TurnRequest[] = [];
  const streamTurn: StreamTurn = async function* (_config, request) {
    requests.push(request);
    const next = scripts.shift()!;
    if (next instanceof Error) throw next;
    yield* next;
  };
  return { streamTurn, requests };
}

async function all(events: AsyncIterable<UpstreamEvent>): Promise<UpstreamEvent[]> {
  const out: UpstreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('toolTurn', () => {
  it(`joins the rounds' text, sums the usage, and stops running calls past ${MAX_TOOL_RESULT_CHARS_PER_TURN} characters of results`, async () => {
    const { streamTurn, requests } = scripted([
      [{ kind: 'token', text: 'Let me look.' }, { kind: 'tool_calls', calls: calls(8) }, { kind: 'usage', inputTokens: 10, outputTokens: 2 }],
      [{ kind: 'token', text: 'Found it.' }, { kind: 'usage', inputTokens: 30, outputTokens: 3 }],
    ]);
    const tools: TurnTools = { runner: () => ({ run: async () => ({ text: 'x'.repeat(MAX_TOOL_RESULT_CHARS), isError: false }) }), refused: async () => {} };
    const events = await all(toolTurn({ streamTurn, tools }, config, build, { messages: [{ role: 'user', content: 'hi' }] }, signal));
    expect(events.filter((e) => e.kind === 'token').map((e) => (e as { text: string }).text).join('')).toBe(`Let me look.${ROUND_BREAK}Found it.`);
    expect(events.filter((e) => e.kind === 'usage').at(-1)).toEqual({ kind: 'usage', inputTokens: 40, outputTokens: 5 });
    const ran = MAX_TOOL_RESULT_CHARS_PER_TURN / MAX_TOOL_RESULT_CHARS;
    expect(events.filter((e) => e.kind === 'tool_complete')).toHaveLength(ran);
    const results = requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(results.filter((t) => t === TOO_MUCH_READ)).toHaveLength(8 - ran);
    expect(requests[1]!.messages.at(-9)).toMatchObject({ role: 'assistant', content: 'Let me look.' });
  });

  it('a request refused for its tools is remembered and sent again without them; Hermes and a switched-off connection get none', async () => {
    const { streamTurn, requests } = scripted([new ToolsRefused(400), [{ kind: 'token', text: 'Plain.' }]]);
    const remembered: (string | undefined)[] = [];
    const tools: TurnTools = { runner: () => ({ run: async () => ({ text: '', isError: false }) }), refused: async (c) => void remembered.push(c) };
    const events = await all(toolTurn({ streamTurn, tools }, config, build, { messages: [] }, signal));
    expect(events).toEqual([{ kind: 'token', text: 'Plain.' }]);
    expect([requests[0]!.tools?.length, requests[1]!.tools, remembered]).toEqual([3, undefined, ['c1']]);
    for (const other of [{ ...config, kind: 'hermes' as const }, { ...config, satchelTools: false }]) {
      const plain = scripted([[{ kind: 'token', text: 'ok' }]]);
      await all(toolTurn({ streamTurn: plain.streamTurn, tools }, other, build, { messages: [] }, signal));
      expect(plain.requests[0]!.tools).toBeUndefined();
    }
  });
});
