// A scripted upstream for turn tests: each turn the server starts becomes a `ScriptedTurn` the test feeds event
// by event (push), then ends (finish) or fails (fail); it sees the request and the abort signal the server gave.
// The background title requests (agent/title.ts) are kept apart, in `titles`, so they never shift a test's turn
// numbers; one nobody scripts stays unanswered until its deadline or the server's stop.
import { isTitleRequest } from '../agent/title.js';
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
  /** Title requests, in the order the server made them. */
  titles: ScriptedTurn[];
  /** The n-th title request (0-based), once the server has made it. */
  title(n: number, deadlineMs?: number): Promise<ScriptedTurn>;
}

export function scriptedAgent(): ScriptedAgent {
  const turns: ScriptedTurn[] = [];
  const titles: ScriptedTurn[] = [];
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
    (isTitleRequest(request.messages) ? titles : turns).push(turn);
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
  const nth = async (list: ScriptedTurn[], n: number, what: string, deadlineMs: number): Promise<ScriptedTurn> => {
    const deadline = Date.now() + deadlineMs;
    while (!list[n]) {
      if (Date.now() > deadline) throw new Error(`${what} ${n} never started`);
      await new Promise<void>((r) => {
        waiting.push(r);
        setTimeout(r, 50);
      });
    }
    return list[n]!;
  };
  return {
    streamTurn,
    turns,
    turn: (n, deadlineMs = 5_000) => nth(turns, n, 'turn', deadlineMs),
    titles,
    title: (n, deadlineMs = 5_000) => nth(titles, n, 'title request', deadlineMs),
  };
}
