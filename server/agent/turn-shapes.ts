// The turn manager's shapes (turns.ts): what a turn is started with, what it asks of the app (the agent's
// config, the request builder, the upstream stream), what it answers, and its refusal. Apart so the request
// builder, the chat handler and the app can name them without the manager's code.
import { HttpError, type RefusalDetails } from '../core/errors.js';
import type { Session } from '../store/sessions.js';
import type * as wire from '../core/wire.js';
import type { AgentConfig, StreamTurn, TurnRequest } from './types.js';
import type { HermesTurn } from './hermes-continuity.js';
import type { TurnTools } from './tools/loop.js';

export const MESSAGE_REQUIRED = 'message is required';

/** A refused turn, with fields beside `error` (409's `active_stream_id`, 503's `hint`): the lifecycle answers it. */
export class ChatRefusal extends HttpError {
  constructor(status: number, message: string, details: RefusalDetails) {
    super(status, message, details);
    this.name = 'ChatRefusal';
  }
}

export interface BuildRequestInput {
  /** The session as stored before this turn (its messages do not hold the new user row yet). */
  session: Session;
  config: AgentConfig;
  text: string;
  attachments: wire.ChatAttachment[];
  model?: string;
  /**
   * The conversation's system prompt, sent first in every turn. With Hermes' header too: the gateway takes the
   * body's `system` messages as an ephemeral prompt for that request and never stores them, so the history it
   * keeps stays in step whatever the prompt becomes (docs/spec-notes.md, "Chat: a conversation's settings").
   */
  systemPrompt?: string;
  signal: AbortSignal;
  /** Hermes' gateway keeps this turn's history under this id (hermes-continuity.ts); else the history is sent. */
  hermes?: HermesTurn;
  /** A preview of the turn (POST /api/chat/context): only its report is used; nothing is kept, indexed or waited for. */
  dry?: boolean;
}

export interface TurnDependencies {
  streamTurn: StreamTurn;
  /** Read at each start, so a changed setting applies to the next turn. */
  /** The connection's agent (`connection`: the conversation's; absent or deleted: the default), or none. */
  loadConfig: (connection?: string) => AgentConfig | undefined;
  buildRequest: (input: BuildRequestInput) => TurnRequest | Promise<TurnRequest>;
  /**
   * Called once a reply is stored whole (not for a failed or stopped turn): the desktop shell's hook for its
   * "reply ready" notification (main/tray-menu.ts). In process, so no event stream is opened for it; a hook
   * that throws is logged and changes nothing.
   */
  onReplyFinished?: (reply: FinishedReply) => void;
  /** Satchel's own in-turn tools (tools/loop.ts); absent: no turn is offered them. */
  tools?: TurnTools;
}

/** What onReplyFinished is told: which conversation, whose, and its title after the turn. */
export interface FinishedReply {
  session_id: string;
  profile: string;
  title: string;
}

/** One watcher of a stream: gets each frame's text, then `end` once nothing more will come. */
export interface FrameListener {
  frame(text: string): void;
  end(): void;
}




export interface StartInput {
  session: Session;
  profile: string;
  /** Undefined with `regenerate`: the dropped user row's text. */
  text?: string;
  /** Undefined with `regenerate`: the dropped user row's attachments; otherwise none. */
  attachments?: wire.ChatAttachment[];
  model?: string;
  /**
   * A new version of the conversation from a message of the person's on (store/versions.ts): that row and every
   * row after it are kept as an earlier version, and the turn's rows become the one shown. Regenerate without
   * text; Edit with it.
   */
  regenerate?: boolean;
  /** With `regenerate`: the user row the new version starts at (an index into `messages`); the last one by default. */
  messageIndex?: number;
  /**
   * A saved connection for this turn only ("Regenerate with…", issue 38, item 6): the conversation's own stays as
   * it is. Checked by the caller; one deleted since is the conversation's, as a turn always falls back.
   */
  connection?: string;
}

export interface StartResult {
  stream_id: string;
  session_id: string;
  pending_started_at: number;
  title: string;
}
