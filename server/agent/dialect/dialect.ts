// What differs between the agents Satchel speaks to, in one value per dialect (after openai-node's provider
// runtime): everything that once branched on `config.kind` reads a field of the connection's dialect here, so a
// third dialect is one new file beside hermes.ts and openai.ts, named in index.ts (and its name in the wire's
// AgentKind, which the compiler then asks index.ts to fill). The stream itself is decoded by stream/parser.ts
// for every dialect alike: it tells the dialects' events apart by their names, whatever the connection says.
import type { AgentConfig, AgentKind, TurnRequest } from '../types.js';

export interface Dialect {
  /** Its name in agent.json, SATCHEL_AGENT_KIND and the wire (`kind`). */
  readonly kind: AgentKind;
  /** How the server's sentences name it ("Connected to Hermes Agent’s gateway at …"). */
  readonly name: string;
  /** How the page names it ("Detected: OpenAI-compatible server"); sent to it in GET /api/agent/settings `kinds`. */
  readonly label: string;
  /** The model asked for when the settings name none ('': the server's own). */
  readonly defaultModel: string;
  /** An address on this port with no kind set is taken to be this dialect (config.ts guessKind). */
  readonly defaultPort?: string;
  /** Where a turn is posted. Throws AgentError for an address that is no http(s) URL. */
  turnUrl(baseUrl: string): URL;
  /** A turn's JSON body. */
  turnBody(model: string, request: TurnRequest): Record<string, unknown>;
  /** Headers beyond the common ones (accept, content type and length, the key's `authorization`). */
  turnHeaders(config: AgentConfig, request: TurnRequest): Record<string, string>;
  /**
   * Continuity: the agent keeps a conversation's history under an id Satchel sends (hermes-continuity.ts then
   * decides, turn by turn, whether the new user turn alone is sent). Needs a key on both sides.
   */
  readonly keepsHistory: boolean;
  /** Title policy: whether a title may be asked of it in the background (title.ts); else the derived one stays. */
  readonly asksForTitle: boolean;
  /**
   * Whether Test may send a one-token completion to check an open model list's key (discover.ts). Where every
   * request runs a whole agent with its tools, none is sent: one key guards every route, so an open list means
   * no key is needed.
   */
  readonly keyCheckByCompletion: boolean;
  /**
   * Whether Satchel's own in-turn tools (agent/tools/) may be offered to it. Not to an agent that runs its own
   * (Hermes: its tools are its business, and a second set under the same names would confuse its model).
   */
  readonly takesSatchelTools: boolean;
}
