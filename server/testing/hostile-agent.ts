// A hostile (or merely broken) agent for tests and benchmarks: script builders for the fake agent
// (fake-agent.ts), each one a behaviour an agent can show Satchel over a real socket:
//
//   const agent = await startFakeAgent();
//   agent.next(longLine());                 // 200,000 "a " tokens, no newline anywhere in the reply
//   agent.next(flood({ mib: 400 }));        // hundreds of MB of content, generated as it is written
//   agent.next(toolArgumentFlood({ mib: 30 }));  // one tool call whose arguments are 30 MB
//   agent.next(keepalivesOnly());           // `: keepalive` every second, never a token, until Satchel goes
//
// Every builder generates its frames lazily (a generator), and the fake agent writes them with backpressure,
// so a flood costs the test process a chunk at a time, and stops the moment Satchel closes the connection.
// Also used by bench/hostile.mjs (from dist/).
import { setTimeout as sleep } from 'node:timers/promises';
import { contentChunk, toolCallChunk, usageChunk, type Frame, type StreamScript } from './fake-agent.js';

/** The long-line case: 200,000 tokens of "a " (400 KB on one line). */
export const LONG_LINE_TOKENS = 200_000;
export const LONG_LINE_TOKEN = 'a ';
/** One flood chunk's text: 64 KiB, so a 400 MiB flood is 6,400 writes rather than millions. */
export const FLOOD_CHUNK_CHARS = 64 * 1024;
/** The comment a keepalive-only agent sends, and how often. */
export const KEEPALIVE_COMMENT = 'keepalive';
export const KEEPALIVE_EVERY_MS = 1_000;
export const FLOOD_TOOL_NAME = 'write_file';
export const FLOOD_TOOL_CALL_ID = 'call_flood';

const MIB = 1024 * 1024;

/** A generated script that says how much of its text it has made so far (a flood that was stopped made less). */
export interface Generated extends StreamScript {
  madeBytes(): number;
}
const roleChunk = (): Frame => ({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
const stopChunk = (): Frame => ({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });

/** `count` tokens of `token` as separate content chunks; no newline unless the token has one. */
export function longLine(opts: { tokens?: number; token?: string } = {}): StreamScript {
  const count = opts.tokens ?? LONG_LINE_TOKENS;
  const token = opts.token ?? LONG_LINE_TOKEN;
  return {
    frames: (function* () {
      yield roleChunk();
      for (let i = 0; i < count; i++) yield contentChunk(token);
      yield stopChunk();
      yield usageChunk(10, count);
    })(),
  };
}

/**
 * `mib` MiB of content (default 400) in FLOOD_CHUNK_CHARS pieces of readable words with newlines (a flood of
 * prose, not one line: the long line is its own case). `field: 'reasoning'` floods the reasoning instead.
 */
export function flood(opts: { mib?: number; field?: 'content' | 'reasoning' } = {}): Generated {
  const total = Math.round((opts.mib ?? 400) * MIB);
  const line = 'The quick brown fox jumps over the lazy dog again and again.\n';
  const piece = line.repeat(Math.ceil(FLOOD_CHUNK_CHARS / line.length)).slice(0, FLOOD_CHUNK_CHARS);
  const delta = (text: string) =>
    opts.field === 'reasoning'
      ? { choices: [{ index: 0, delta: { reasoning_content: text }, finish_reason: null }] }
      : contentChunk(text);
  let made = 0;
  return {
    frames: (function* () {
      yield roleChunk();
      for (; made < total; made += piece.length) yield delta(total - made >= piece.length ? piece : piece.slice(0, total - made));
      yield stopChunk();
    })(),
    madeBytes: () => made,
  };
}

/** One tool call (FLOOD_TOOL_NAME, FLOOD_TOOL_CALL_ID) whose arguments are `mib` MiB (default 30) of JSON text. */
export function toolArgumentFlood(opts: { mib?: number } = {}): Generated {
  const total = Math.round((opts.mib ?? 30) * MIB);
  const piece = 'x'.repeat(FLOOD_CHUNK_CHARS);
  let made = 0;
  return {
    madeBytes: () => made,
    frames: (function* () {
      yield roleChunk();
      yield toolCallChunk(0, { id: FLOOD_TOOL_CALL_ID, name: FLOOD_TOOL_NAME, arguments: '{"content": "' });
      for (; made < total; made += piece.length) yield toolCallChunk(0, { arguments: piece });
      yield toolCallChunk(0, { arguments: '"}' });
      yield { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] };
    })(),
  };
}

/**
 * The response head, then only `: keepalive` comments every `everyMs` (default 1 s): never a token, never an
 * end. Each comment is a byte from upstream, so an idle timeout alone never fires.
 */
export function keepalivesOnly(opts: { everyMs?: number } = {}): StreamScript {
  const every = opts.everyMs ?? KEEPALIVE_EVERY_MS;
  return {
    frames: (async function* () {
      for (;;) {
        yield { comment: KEEPALIVE_COMMENT };
        await sleep(every);
      }
    })(),
    end: 'stall',
  };
}
