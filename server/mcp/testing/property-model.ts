// The model both of issue 39's grant properties run (grants.property.test.ts over HTTP, ledger.property.test.ts in
// process): 3 agent keys, each with a grant of all conversations or of a few, and random commands (a tool call,
// a grant changed, a key revoked); what a key may see, and the tool call each command makes.
import fc from 'fast-check';

/** Agent keys a run makes. */
export const KEYS = 3;
/** The word every conversation's first message holds, which a `search` command asks for. */
export const SEARCHED = 'heron';
/** Conversation `i`'s first message: its marker, then the searched word. */
export const markerText = (i: number): string => `marker-${i} ${SEARCHED}`;

/** A key's grant: everything, or the conversations of these indexes. */
export type Grant = { all: true } | { all: false; ids: number[] };
export type Command =
  | { op: 'read'; key: number; conversation: number }
  | { op: 'search'; key: number }
  | { op: 'list'; key: number }
  | { op: 'grant'; key: number; grant: Grant }
  | { op: 'revoke'; key: number };
export type CallCommand = Extract<Command, { op: 'read' | 'search' | 'list' }>;

/** How often each command comes, relative to the others. */
export type Weights = Record<Command['op'], number>;

/** A grant over `conversations` conversations. */
export const grantOf = (conversations: number): fc.Arbitrary<Grant> =>
  fc.oneof(
    fc.constant({ all: true as const }),
    fc.subarray(Array.from({ length: conversations }, (_, i) => i)).map((ids) => ({ all: false as const, ids })),
  );

/** A command of one of the KEYS keys over `conversations` conversations. */
export function commandOf(conversations: number, weights: Weights): fc.Arbitrary<Command> {
  const key = fc.integer({ min: 0, max: KEYS - 1 });
  return fc.oneof(
    { weight: weights.read, arbitrary: fc.record({ op: fc.constant('read' as const), key, conversation: fc.integer({ min: 0, max: conversations - 1 }) }) },
    { weight: weights.search, arbitrary: fc.record({ op: fc.constant('search' as const), key }) },
    { weight: weights.list, arbitrary: fc.record({ op: fc.constant('list' as const), key }) },
    { weight: weights.grant, arbitrary: fc.record({ op: fc.constant('grant' as const), key, grant: grantOf(conversations) }) },
    { weight: weights.revoke, arbitrary: fc.record({ op: fc.constant('revoke' as const), key }) },
  );
}

/** Whether a key of grant `g` may see conversation `i`. */
export const sees = (g: Grant, i: number): boolean => g.all || g.ids.includes(i);

/** The MCP tool call a command makes, `sessions` being the conversations' ids by index. */
export function toolCall(c: CallCommand, sessions: readonly string[]): { name: string; arguments: Record<string, unknown> } {
  if (c.op === 'read') return { name: 'read_session', arguments: { session_id: sessions[c.conversation] } };
  if (c.op === 'search') return { name: 'search', arguments: { query: SEARCHED } };
  return { name: 'list_sessions', arguments: {} };
}
