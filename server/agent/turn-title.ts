// A better title than the one derived from the first message, asked of the agent after a turn (title.ts), in
// the background: at most MAX_CONCURRENT_TITLES at once, each with TITLE_DEADLINE_MS, all aborted and waited for
// at server stop so none writes after it.
import { log } from '../core/log.js';
import type { EventBus } from '../store/events.js';
import type { SessionStore } from '../store/sessions.js';
import { askTitle, TITLE_DEADLINE_MS } from './title.js';
import { AgentError, type AgentConfig, type StreamTurn } from './types.js';

/**
 * Title requests in the background at once. Each holds an upstream socket outside MAX_CONCURRENT_TURNS, and a
 * burst of new conversations must not double the load on a local model server; past this, the derived title
 * simply stays.
 */
export const MAX_CONCURRENT_TITLES = 2;

export interface TitleInput {
  sessionId: string;
  profile: string;
  /** The title derived from the first message, which the session has now. */
  derived: string;
  firstMessage: string;
  reply: string;
  model?: string;
}

export class BackgroundTitles {
  /** Running requests: aborted and waited for at stop. */
  private readonly running = new Map<AbortController, Promise<void>>();
  private stopped = false;

  constructor(
    private readonly sessions: SessionStore,
    private readonly events: EventBus,
    private readonly streamTurn: StreamTurn,
  ) {}

  /**
   * Asks, unless stopped or at the bound. Never waited for by the turn (its `title` frame carried the derived
   * title already); the answer lands only while the session still has the derived title, so a rename by the
   * person in the meantime wins. Any failure keeps the derived title.
   */
  ask(config: AgentConfig, input: TitleInput): void {
    if (this.stopped || this.running.size >= MAX_CONCURRENT_TITLES) return;
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(new AgentError('timeout', `No title within ${TITLE_DEADLINE_MS / 1000} s`)), TITLE_DEADLINE_MS);
    deadline.unref();
    const task = this.rename(config, input, controller.signal)
      .catch((err: unknown) => log.debug('the agent gave no title; the one from the first message stays:', err instanceof Error ? err.message : err))
      .finally(() => {
        clearTimeout(deadline);
        this.running.delete(controller);
      });
    this.running.set(controller, task);
  }

  /** Settles once every title request running now has ended. */
  async settled(): Promise<void> {
    await Promise.all(this.running.values());
  }

  /** Aborts every request and waits for them. */
  async stop(reason: Error): Promise<void> {
    this.stopped = true;
    for (const controller of this.running.keys()) controller.abort(reason);
    await this.settled();
  }

  private async rename(config: AgentConfig, input: TitleInput, signal: AbortSignal): Promise<void> {
    const title = await askTitle(this.streamTurn, config, input, signal);
    if (!title || title === input.derived) return;
    let renamed = false;
    await this.sessions.update(input.sessionId, (s) => {
      if (s.title !== input.derived) return;
      s.title = title;
      renamed = true;
    });
    if (renamed) this.events.publish({ name: 'session_renamed', profile: input.profile, data: { session_id: input.sessionId, title } });
  }
}
