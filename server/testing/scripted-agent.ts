// A scripted upstream for turn tests: each turn the server starts becomes a `ScriptedTurn` the test feeds event
// by event (push), then ends (finish) or fails (fail); it sees the request and the abort signal the server gave.
import type { AgentConfig, StreamTurn, TurnRequest, UpstreamEvent } from '../agent/types.js';

export const TEST_AGENT_CONFIG: AgentConfig = {
  baseUrl: 'http://127.0.0.1:9',
  model: 'test-model',
  kind: 'openai',
  idleTimeoutMs: 60_000,
  contextChars: 200_000,
};

export interface ScriptedTurn {
  request: TurnRequest;
  signal: AbortSignal;
  push(...events: UpstreamEvent[]): void;
  finish(): void;
  fail(err: unknown): void;
  /** The consumer stopped reading (return() called). */
  returned: boolean;
}

export interface ScriptedAgent {
  streamTurn: StreamTurn;
  turns: ScriptedTurn[];
  /** The n-th turn (0-based), once the server has asked for it. */
  turn(n: number, deadlineMs?: number): Promise<ScriptedTurn>;
}

export function scriptedAgent(): ScriptedAgent {
  const turns: ScriptedTurn[] = [];
  const waiting: (() => void)[] = [];
  const streamTurn: StreamTurn = (_config, request, signal) => {
    const queue: ({ event: UpstreamEvent } | { end: true } | { error: unknown })[] = [];
    let wake: (() => void) | undefined;
    const put = (item: (typeof queue)[number]): void => {
      queue.push(item);
      wake?.();
    };
    const turn: ScriptedTurn = {
      request,
      signal,
      push: (...events) => events.forEach((event) => put({ event })),
      finish: () => put({ end: true }),
      fail: (error) => put({ error }),
      returned: false,
    };
    turns.push(turn);
    waiting.splice(0).forEach((w) => w());
    return {
      [Symbol.asyncIterator]: () => ({
        async next(): Promise<IteratorResult<UpstreamEvent>> {
          while (queue.length === 0) await new Promise<void>((r) => (wake = r));
          const item = queue.shift()!;
          if ('event' in item) return { value: item.event, done: false };
          if ('error' in item) throw item.error;
          return { value: undefined, done: true };
        },
        async return(): Promise<IteratorResult<UpstreamEvent>> {
          turn.returned = true;
          return { value: undefined, done: true };
        },
      }),
    };
  };
  return {
    streamTurn,
    turns,
    async turn(n, deadlineMs = 5_000) {
      const deadline = Date.now() + deadlineMs;
      while (!turns[n]) {
        if (Date.now() > deadline) throw new Error(`turn ${n} never started`);
        await new Promise<void>((r) => {
          waiting.push(r);
          setTimeout(r, 50);
        });
      }
      return turns[n]!;
    },
  };
}
