// Ended turns stay replayable (a reconnecting page asks for their frames) for ENDED_TURN_TTL_MS, at most
// ENDED_TURNS_KEPT of them: one evicted by the count is let go at once, not held to the end of its time window by the
// timer that would have dropped it (issue 37, finding 8: after a 623-turn soak the turns' frames held 12 MiB, two
// minutes after the last one ended).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fullCollection } from '../core/idle-collect.js';
import { EventBus } from '../store/events.js';
import type { SessionStore } from '../store/sessions.js';
import { openStore } from '../testing/fresh-store.js';
import { scriptedAgent, TEST_AGENT_CONFIG, type ScriptedAgent } from '../testing/scripted-agent.js';
import { ENDED_TURNS_KEPT, TurnManager } from './turns.js';

let dir: string;
let sessions: SessionStore;
let agent: ScriptedAgent;
let turns: TurnManager;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-turns-ended-'));
  sessions = await openStore(dir);
  agent = scriptedAgent();
  // Hermes kind: the title is derived from the message, so the scripted upstream sees only the turns.
  turns = new TurnManager(sessions, new EventBus(), {
    streamTurn: agent.streamTurn,
    loadConfig: () => ({ ...TEST_AGENT_CONFIG, kind: 'hermes' }),
    buildRequest: ({ session, text }) => ({ sessionId: session.session_id, messages: [{ role: 'user', content: text }] }),
  });
});
afterEach(async () => {
  await turns.stop();
  await fs.rm(dir, { recursive: true, force: true });
});

/** One whole turn in a conversation of its own, its reply `size` characters; returns its stream id. */
async function endedTurn(n: number, size: number): Promise<string> {
  const session = await sessions.create({ workspace: dir, profile: 'default' });
  const started = await turns.start({ session, profile: 'default', text: `question ${n}`, attachments: [] });
  const upstream = await agent.turn(n);
  upstream.push({ kind: 'token', text: `${n} `.padEnd(size, 'x') });
  upstream.finish();
  await turns.find(started.stream_id)!.finished;
  return started.stream_id;
}

describe('ended turns', () => {
  it(`keeps the last ${ENDED_TURNS_KEPT} replayable and lets the ones before them go at once`, async () => {
    const first = await endedTurn(0, 100_000);
    const firstTurn = new WeakRef(turns.find(first)!);
    expect(firstTurn.deref()!.log.size).toBeGreaterThan(0);
    const ids = [first];
    for (let n = 1; n <= ENDED_TURNS_KEPT + 3; n++) ids.push(await endedTurn(n, 1_000));
    // The newest ENDED_TURNS_KEPT answer a replay; the older ones no longer do.
    expect(ids.map((id) => turns.find(id) !== undefined)).toEqual(ids.map((_, i) => i >= ids.length - ENDED_TURNS_KEPT));
    // And nothing holds the first one any more: a collection takes it (a WeakRef's target lives to the end of the task).
    await new Promise((resolve) => setImmediate(resolve));
    fullCollection()!();
    expect(firstTurn.deref()).toBeUndefined();
  });
});
