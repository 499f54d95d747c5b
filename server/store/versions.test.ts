import { describe, expect, it } from 'vitest';
import type { Message } from './messages.js';
import { branch, forkOf, MAX_VERSIONS_PER_MESSAGE, NO_SUCH_MESSAGE, NO_SUCH_VERSION, NO_VERSIONS, showVersion, TOO_MANY_VERSIONS, VERSIONS_FIELD, versionSummary, withNewVersion } from './versions.js';

const user = (content: string): Message => ({ role: 'user', content, timestamp: 1 });
const reply = (content: string): Message => ({ role: 'assistant', content, timestamp: 2 });
const texts = (rows: readonly Message[]) => rows.map((r) => r.content);

const newVersion = withNewVersion;

describe('versions of a conversation', () => {
  it('Regenerate keeps the replaced reply as version 1 of 2, and switching back shows it again', () => {
    const v1 = [user('Q'), reply('A1')];
    const v2 = newVersion(v1, 0, [user('Q'), reply('A2')]);
    expect(texts(v2)).toEqual(['Q', 'A2']);
    expect(versionSummary(v2[0]!)).toEqual({ index: 1, count: 2, edited: false });
    const back = showVersion(v2, 0, 0);
    expect(texts(back)).toEqual(['Q', 'A1']);
    expect(versionSummary(back[0]!)).toEqual({ index: 0, count: 2, edited: false });
    // And forth: the same rows as before, nothing lost or duplicated.
    expect(showVersion(back, 0, 1)).toEqual(v2);
  });

  it('an edit of an earlier message keeps the whole conversation after it as the earlier version', () => {
    const long = [user('Q1'), reply('A1'), user('Q2'), reply('A2')];
    const edited = newVersion(long, 0, [user('Q1 better'), reply('B1')]);
    expect(texts(edited)).toEqual(['Q1 better', 'B1']);
    expect(versionSummary(edited[0]!)).toEqual({ index: 1, count: 2, edited: true });
    expect(texts(showVersion(edited, 0, 0))).toEqual(['Q1', 'A1', 'Q2', 'A2']);
  });

  it('a version keeps versions of its own further down (a branch of a branch), across switches above it', () => {
    let c = [user('Q1'), reply('A1'), user('Q2'), reply('A2')];
    c = newVersion(c, 2, [user('Q2'), reply('A2 again')]);
    c = newVersion(c, 0, [user('Other start'), reply('X')]);
    c = showVersion(c, 0, 0);
    expect(texts(c)).toEqual(['Q1', 'A1', 'Q2', 'A2 again']);
    expect(versionSummary(c[2]!)).toEqual({ index: 1, count: 2, edited: false });
    expect(texts(showVersion(c, 2, 0))).toEqual(['Q1', 'A1', 'Q2', 'A2']);
  });

  it('a new version goes last and is the one shown, also when an earlier one was shown', () => {
    let c = [user('Q'), reply('A1')];
    c = newVersion(c, 0, [user('Q'), reply('A2')]);
    c = showVersion(c, 0, 0);
    c = newVersion(c, 0, [user('Q'), reply('A3')]);
    expect(versionSummary(c[0]!)).toEqual({ index: 2, count: 3, edited: false });
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
