import { describe, expect, it } from 'vitest';
import type { Message } from './messages.js';
import { branch, branchForRegenerate, forkOf, MAX_VERSIONS_PER_MESSAGE, NO_SUCH_MESSAGE, NO_SUCH_VERSION, NO_VERSIONS, showVersion, TOO_MANY_VERSIONS, VERSIONS_FIELD, versionSummary, withNewVersion } from './versions.js';

const user = (content: string): Message => ({ role: 'user', content, timestamp: 1 });
const reply = (content: string): Message => ({ role: 'assistant', content, timestamp: 2 });
const texts = (rows: readonly Message[]) => rows.map((r) => r.content);

const newVersion = withNewVersion;

describe('versions of a conversation', () => {
  it('Regenerate keeps the replaced reply as version 1 of 2, and switching back shows it again', () => {
    const v1 = [user('Q'), reply('A1')];
    const v2 = newVersion(v1, 0, [user('Q'), reply('A2')]);
    expect(texts(v2)).toEqual(['Q', 'A2']);
    expect(versionSummary(v2[0]!)).toMatchObject({ index: 1, count: 2, edited: false });
    const back = showVersion(v2, 0, 0);
    expect(texts(back)).toEqual(['Q', 'A1']);
    expect(versionSummary(back[0]!)).toMatchObject({ index: 0, count: 2, edited: false });
    // And forth: the same rows as before, nothing lost or duplicated.
    expect(showVersion(back, 0, 1)).toEqual(v2);
  });

  it('an edit of an earlier message keeps the whole conversation after it as the earlier version', () => {
    const long = [user('Q1'), reply('A1'), user('Q2'), reply('A2')];
    const edited = newVersion(long, 0, [user('Q1 better'), reply('B1')]);
    expect(texts(edited)).toEqual(['Q1 better', 'B1']);
    expect(versionSummary(edited[0]!)).toMatchObject({ index: 1, count: 2, edited: true });
    expect(texts(showVersion(edited, 0, 0))).toEqual(['Q1', 'A1', 'Q2', 'A2']);
  });

  it('a version keeps versions of its own further down (a branch of a branch), across switches above it', () => {
    let c = [user('Q1'), reply('A1'), user('Q2'), reply('A2')];
    c = newVersion(c, 2, [user('Q2'), reply('A2 again')]);
    c = newVersion(c, 0, [user('Other start'), reply('X')]);
    c = showVersion(c, 0, 0);
    expect(texts(c)).toEqual(['Q1', 'A1', 'Q2', 'A2 again']);
    expect(versionSummary(c[2]!)).toMatchObject({ index: 1, count: 2, edited: false });
    expect(texts(showVersion(c, 2, 0))).toEqual(['Q1', 'A1', 'Q2', 'A2']);
  });

  it('an Edit after a Regenerate: the message switches between what was said (2/2), the reply between its replies (2/2)', () => {
    let c = [user('Name a colour'), reply('Teal.')];
    c = newVersion(c, 0, [user('Name a colour'), reply('Amber.')]);
    c = newVersion(c, 0, [user('Name a flower'), reply('Iris.')]);
    // Was "3/3" under the message, two of the three the same message (issue 38).
    expect(versionSummary(c[0]!)).toEqual({
      index: 2,
      count: 3,
      edited: true,
      message: { index: 1, count: 2, versions: [1, 2] },
      reply: { index: 0, count: 1, versions: [2] },
    });
    // The message's previous text shows its latest reply, whose own switcher goes back to the first.
    const colour = showVersion(c, 0, 1);
    expect(texts(colour)).toEqual(['Name a colour', 'Amber.']);
    expect(versionSummary(colour[0]!)).toEqual({
      index: 1,
      count: 3,
      edited: true,
      message: { index: 0, count: 2, versions: [1, 2] },
      reply: { index: 1, count: 2, versions: [0, 1] },
    });
    expect(texts(showVersion(colour, 0, 0))).toEqual(['Name a colour', 'Teal.']);
  });

  it('a retry after a failure replaces the failure: no "1/2" whose first version is an error; the versions before stay', () => {
    const failure = (): Message => ({ role: 'assistant', content: '**Error:** The agent did not answer', timestamp: 2, _error: true });
    const failed = [user('Q'), failure()];
    const retried = branchForRegenerate(failed, 0);
    expect(retried).toEqual({ kept: [], fork: undefined });
    // A partial reply is the agent's: kept as a version, as any reply is.
    const partial = [user('Q'), { ...reply('half an ans'), _partial: true }, failure()];
    expect(branchForRegenerate(partial, 0).fork?.before).toHaveLength(1);
    // Regenerated once, then failed: the retry keeps the first reply, not the failure.
    let c = newVersion([user('Q'), reply('A1')], 0, [user('Q'), failure()]);
    const again = branchForRegenerate(c, 0);
    c = [...again.kept, { ...user('Q'), [VERSIONS_FIELD]: again.fork }, reply('A2')];
    expect(versionSummary(c[0]!)).toMatchObject({ index: 1, count: 2, reply: { index: 1, count: 2 } });
    expect(texts(showVersion(c, 0, 0))).toEqual(['Q', 'A1']);
  });

  it('a new version goes last and is the one shown, also when an earlier one was shown', () => {
    let c = [user('Q'), reply('A1')];
    c = newVersion(c, 0, [user('Q'), reply('A2')]);
    c = showVersion(c, 0, 0);
    c = newVersion(c, 0, [user('Q'), reply('A3')]);
    expect(versionSummary(c[0]!)).toMatchObject({ index: 2, count: 3, edited: false });
    expect([0, 1, 2].map((v) => texts(showVersion(c, 0, v))[1])).toEqual(['A1', 'A2', 'A3']);
  });

  it('the fork belongs to the position: no stored version carries one of its own at its first row', () => {
    let c = [user('Q'), reply('A1')];
    c = newVersion(c, 0, [user('Q'), reply('A2')]);
    c = newVersion(c, 0, [user('Q'), reply('A3')]);
    const fork = forkOf(c[0])!;
    for (const tail of [...fork.before, ...fork.after]) expect(tail[0]).not.toHaveProperty(VERSIONS_FIELD);
  });

  it(`keeps at most ${MAX_VERSIONS_PER_MESSAGE} versions of one message, and refuses the next with its reason`, () => {
    let c = [user('Q'), reply('A0')];
    for (let i = 1; i < MAX_VERSIONS_PER_MESSAGE; i++) c = newVersion(c, 0, [user('Q'), reply(`A${i}`)]);
    expect(versionSummary(c[0]!)?.count).toBe(MAX_VERSIONS_PER_MESSAGE);
    expect(() => branch(c, 0)).toThrow(TOO_MANY_VERSIONS);
  });

  it('refuses what names no message of the person, no fork or no version', () => {
    const c = newVersion([user('Q'), reply('A1')], 0, [user('Q'), reply('A2')]);
    expect(() => branch(c, 1)).toThrow(NO_SUCH_MESSAGE);
    expect(() => branch(c, 5)).toThrow(NO_SUCH_MESSAGE);
    expect(() => branch(c, -1)).toThrow(NO_SUCH_MESSAGE);
    expect(() => showVersion(c, 1, 0)).toThrow(NO_VERSIONS);
    expect(() => showVersion(c, 9, 0)).toThrow(NO_SUCH_MESSAGE);
    expect(() => showVersion(c, 0, 2)).toThrow(NO_SUCH_VERSION);
    expect(() => showVersion(c, 0, 0.5)).toThrow(NO_SUCH_VERSION);
    expect(() => showVersion(c, 0, '0')).toThrow(NO_SUCH_VERSION);
  });

  it('reads a hand-edited fork defensively: malformed versions are not versions', () => {
    expect(forkOf({ role: 'user', content: 'Q', [VERSIONS_FIELD]: 'nonsense' } as Message)).toBeUndefined();
    expect(forkOf({ role: 'user', content: 'Q', [VERSIONS_FIELD]: { before: [[], 'x', [null]] } } as Message)).toBeUndefined();
    expect(forkOf({ role: 'user', content: 'Q', [VERSIONS_FIELD]: { before: [[reply('A')]], after: 3 } } as Message)?.before).toHaveLength(1);
  });
});
