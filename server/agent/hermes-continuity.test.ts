// When Hermes' gateway may keep the history (header + the new turn) and when the body must carry it.
import { describe, expect, it } from 'vitest';
import type { Message, Session } from '../store/sessions.js';
import { beginHermesTurn, freshHermesId, markHermesAnswer, type HermesState } from './hermes-continuity.js';
import type { AgentConfig } from './types.js';

const GATEWAY = 'http://127.0.0.1:8642';
const HERMES: AgentConfig = { baseUrl: GATEWAY, apiKey: 'gateway-key-0123456789', model: 'hermes-agent', kind: 'hermes', idleTimeoutMs: 60_000, contextChars: 200_000 };
const SID = 'abcdef012345';
let draws = 0;
const random = () => (++draws).toString(16).padStart(8, '0');

function session(messages: Message[] = [], hermes?: HermesState): Session {
  return { session_id: SID, title: 'Untitled', workspace: '/w', profile: 'default', created_at: 'x', updated_at: 'x', messages, attachments: [], ...(hermes ? { _hermes: hermes } : {}) } as Session;
}
const user = (content: string): Message => ({ role: 'user', content });
const answer = (content: string, mark?: string): Message => ({ role: 'assistant', content, ...(mark ? { _hermes_turn: mark } : {}) });
const hermesOf = (s: Session) => (s as Session & { _hermes?: HermesState })._hermes;

/** A session whose gateway id X has seen n requests, each answered and shown. */
function inStep(n = 1): Session {
  const id = `satchel-${SID}-00000abc`;
  const rows = Array.from({ length: n }, (_, k) => [user(`hi ${k + 1}`), answer(`hello ${k + 1}`, `${id}#${k + 1}`)]).flat();
  return session(rows, { id, n, base_url: GATEWAY });
}

describe('beginHermesTurn', () => {
  it('first turn: a fresh id, counted from 1, marked #1', () => {
    const s = session();
    const turn = beginHermesTurn(s, HERMES, random);
    expect(turn).toEqual({ id: `satchel-${SID}-00000001`, mark: `satchel-${SID}-00000001#1` });
    expect(hermesOf(s)).toEqual({ id: turn!.id, n: 1, base_url: GATEWAY });
  });

  it('in step (the last shown row carries the last request’s mark): the same id, the counter bumped', () => {
    const s = inStep(3);
    const turn = beginHermesTurn(s, HERMES, random);
    expect(turn).toEqual({ id: `satchel-${SID}-00000abc`, mark: `satchel-${SID}-00000abc#4` });
    expect(hermesOf(s)!.n).toBe(4);
  });

  it('a base URL written another way (/v1, a trailing slash) is the same gateway', () => {
    expect(beginHermesTurn(inStep(), { ...HERMES, baseUrl: `${GATEWAY}/v1/` }, random)).toBeDefined();
  });

  it('a request that failed or was stopped bumped the counter: the older marked answer is out of step', () => {
    const s = inStep(1);
    beginHermesTurn(s, HERMES, random); // sent with the header; then Stop: rows shown are as before plus error rows
    s.messages.splice(2); // Regenerate dropped them: the shown history ends with the #1 answer again
    expect(s.messages.at(-1)!._hermes_turn).toMatch(/#1$/);
    const before = structuredClone(hermesOf(s));
    expect(beginHermesTurn(s, HERMES, random)).toBeUndefined();
    // Nothing sent with the header: the counter stays.
    expect(hermesOf(s)).toEqual(before);
  });

  it('out of step when the last row is not a marked answer (a stop row, an error, a note added without the agent)', () => {
    for (const last of [answer('**Task cancelled:** Cancelled by user'), { ...answer('Once upon'), _partial: true }, user('an earlier note')]) {
      const s = inStep();
      s.messages.push(last);
      expect(beginHermesTurn(s, HERMES, random)).toBeUndefined();
    }
  });

  it('a row the gateway never received puts it out of step wherever it sits, not only last (issue 34)', () => {
    // A note stored above the message whose reply was streaming (before the fix), or between two exchanges.
    for (const at of [0, 1, 2, 3]) {
      const s = inStep(2);
      s.messages.splice(at, 0, user('a note the gateway never got'));
      expect(beginHermesTurn(s, HERMES, random)).toBeUndefined();
    }
    // A reply of another gateway id, or an unmarked one, in the middle.
    const other = inStep(2);
    other.messages[1] = answer('hello 1', 'satchel-other-00000001#1');
    expect(beginHermesTurn(other, HERMES, random)).toBeUndefined();
    const unmarked = inStep(2);
    unmarked.messages[1] = answer('hello 1');
    expect(beginHermesTurn(unmarked, HERMES, random)).toBeUndefined();
  });

  it('Inbox arrival rows after the marked answer keep it in step: they go with the new turn, not the gateway\'s history', () => {
    const s = inStep(2);
    const arrival: Message = { role: 'system', content: 'a.pdf arrived from Downloads', timestamp: 1, attachments: [], arrival: { source: 'folder', from: 'Downloads', last_at: 1 } };
    s.messages.push(arrival, { ...arrival });
    expect(beginHermesTurn(s, HERMES, random)).toEqual({ id: `satchel-${SID}-00000abc`, mark: `satchel-${SID}-00000abc#3` });
    // An Inbox holding only arrivals: nothing the gateway has seen, a fresh id.
    const fresh = session([arrival]);
    expect(beginHermesTurn(fresh, HERMES, random)?.mark).toMatch(/#1$/);
  });

  it('out of step after an Edit of a later message: the mark is not the last row any more', () => {
    const s = inStep(2);
    const id = hermesOf(s)!.id;
    s.messages = [user('a'), answer('b', `${id}#1`)];
    expect(beginHermesTurn(s, HERMES, random)).toBeUndefined();
  });

  it('an empty history (an edit of the first message) starts a fresh id even when one is in use', () => {
    const s = inStep(5);
    const old = hermesOf(s)!.id;
    s.messages = [];
    const turn = beginHermesTurn(s, HERMES, random)!;
    expect(turn.id).not.toBe(old);
    expect(turn.mark).toBe(`${turn.id}#1`);
  });

  it('never the header without a key: the gateway answers it with 403', () => {
    const { apiKey: _key, ...keyless } = HERMES;
    expect(beginHermesTurn(inStep(), keyless, random)).toBeUndefined();
    const s = session();
    expect(beginHermesTurn(s, keyless, random)).toBeUndefined();
    expect(hermesOf(s)).toBeUndefined();
  });

  it('another gateway (base URL changed) is out of step: its database never saw this conversation', () => {
    expect(beginHermesTurn(inStep(), { ...HERMES, baseUrl: 'http://127.0.0.1:8643' }, random)).toBeUndefined();
  });

  it('an openai agent never gets the header, and leaves the counter alone', () => {
    const s = inStep(2);
    expect(beginHermesTurn(s, { ...HERMES, kind: 'openai' }, random)).toBeUndefined();
    expect(hermesOf(s)!.n).toBe(2);
    expect(beginHermesTurn(session(), { ...HERMES, kind: 'openai' }, random)).toBeUndefined();
  });

  it('a stored _hermes of the wrong shape is no state: out of step, or a fresh id on an empty history', () => {
    const s = inStep();
    Object.assign(s, { _hermes: { id: 7, n: 'x' } });
    expect(beginHermesTurn(s, HERMES, random)).toBeUndefined();
    const empty = session();
    Object.assign(empty, { _hermes: 'junk' });
    expect(beginHermesTurn(empty, HERMES, random)!.mark).toMatch(/#1$/);
  });
});

describe('markHermesAnswer', () => {
  it('marks an answer of a header turn, not a cut one, not one sent without the header', () => {
    const turn = { id: 'x', mark: 'x#3' };
    const row = answer('hello');
    markHermesAnswer(row, turn, false);
    expect(row._hermes_turn).toBe('x#3');
    const cut = answer('hel');
    markHermesAnswer(cut, turn, true);
    expect(cut._hermes_turn).toBeUndefined();
    const plain = answer('hello');
    markHermesAnswer(plain, undefined, false);
    expect(plain._hermes_turn).toBeUndefined();
  });
});

describe('freshHermesId', () => {
  it('is this session and 8 random hex digits, safe for the gateway (no /, .., control characters)', () => {
    const id = freshHermesId(SID);
    expect(id).toMatch(/^satchel-abcdef012345-[0-9a-f]{8}$/);
    expect(freshHermesId(SID)).not.toBe(id);
  });
});
