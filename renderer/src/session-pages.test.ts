import { describe, expect, it } from 'vitest';
import type { Message, Session } from './api.js';
import { visibleRows } from './message-rows.js';
import { foldMessage } from './message-answer.js';
import { hasOlder, olderQuery, queryToHold, withOlder, withTail } from './session-pages.js';

/** The stored rows of a conversation of `n`; a changed one (another version) from `from` on when `version` is set. */
const rows = (n: number, version = 0, from = n): Message[] =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `row ${i}${i >= from ? ` v${version}` : ''}`, timestamp: 1000 + i + (i >= from ? version * 1e5 : 0) }));
const header = { session_id: 'aaaaaaaaaaaa', title: 'Long', workspace: '/w', profile: 'default', created_at: 'c', updated_at: 'u', attachments: [] };
/** What GET /api/session?limit=&before= answers of `stored`. */
const page = (stored: Message[], limit: number, before = stored.length): Session => {
  const start = Math.max(0, before - limit);
  return { ...header, messages: stored.slice(start, before), messages_offset: start, message_count: stored.length };
};
const contents = (s: Session) => s.messages.map((m) => m.content);

describe('a conversation read tail first', () => {
  it('reads older rows before those held, each with the index it has in the stored conversation', () => {
    const stored = rows(1000);
    let held = page(stored, 200);
    expect(hasOlder(held)).toBe(true);
    expect(olderQuery(held)).toEqual({ before: 801, limit: 301 });
    held = withOlder(held, page(stored, 301, 801))!;
    expect(held.messages_offset).toBe(500);
    expect(contents(held)).toEqual(stored.slice(500).map((m) => m.content));
    expect(visibleRows(held.messages, 500).map((r) => r.index)).toEqual(Array.from({ length: 500 }, (_, i) => 500 + i));
    held = withOlder(held, page(stored, olderQuery(held).limit, olderQuery(held).before))!;
    held = withOlder(held, page(stored, olderQuery(held).limit, olderQuery(held).before))!;
    expect(held.messages_offset).toBe(0);
    expect(contents(held)).toEqual(stored.map((m) => m.content));
    expect(hasOlder(held)).toBe(false);
  });

  it('refuses older rows that do not continue those held (the conversation changed between the reads)', () => {
    const held = page(rows(1000), 200);
    const changed = rows(1000, 1, 700);
    expect(withOlder(held, page(changed, 301, 801))).toBeNull();
    expect(withOlder(held, page(rows(1000), 300, 800))).toBeNull();
    expect(withOlder({ ...held, session_id: 'bbbbbbbbbbbb' }, page(rows(1000), 301, 801))).toBeNull();
  });

  it('a tail read again keeps the older rows held when they are unchanged, and drops them when a change reached them', () => {
    const stored = rows(1000);
    const held = withOlder(page(stored, 200), page(stored, 301, 801))!;
    // Two rows stored since (a turn): the older rows stay, the new ones follow.
    const grown = rows(1002);
    const after = withTail(held, page(grown, 200));
    expect(after.messages_offset).toBe(500);
    expect(contents(after)).toEqual(grown.slice(500).map((m) => m.content));
    expect(after.message_count).toBe(1002);
    // Another version shown from row 600 on: rows from 600 differ, and those the page does not reach are dropped.
    const switched = rows(1000, 2, 600);
    expect(contents(withTail(held, page(switched, 200)))).toEqual(switched.slice(800).map((m) => m.content));
    // Another version from row 900 on (inside the page): the rows before the page are the same and stay.
    const late = rows(1000, 3, 900);
    const kept = withTail(held, page(late, 200));
    expect(kept.messages_offset).toBe(500);
    expect(contents(kept)).toEqual(late.slice(500).map((m) => m.content));
    // Another conversation, or one read whole: the answer as it is.
    expect(withTail(null, page(stored, 200))).toEqual(page(stored, 200));
    const whole = { ...header, messages: stored };
    expect(withTail(held, whole)).toBe(whole);
  });

  it('names the page to read for a row not held, with rows above it, and none for a row held', () => {
    const held = page(rows(10_000), 200);
    expect(queryToHold(held, 9_900)).toBeNull();
    expect(queryToHold(held, 9_500)).toEqual({ before: 9_801, limit: 321 });
    // Deeper than one page: the largest page, then again from there.
    expect(queryToHold(held, 10)).toEqual({ before: 9_801, limit: 1000 });
  });

  it('folds a message kept without an agent into a tail, at its stored index', () => {
    const stored = rows(1000);
    const held = page(stored, 200);
    const message: Message = { role: 'user', content: 'new', timestamp: 5000 };
    const summary = { ...header, message_count: 1001, pinned: false, archived: false };
    const folded = foldMessage(held, { session: summary, message_index: 1000, message })!;
    expect(folded.messages_offset).toBe(800);
    expect(folded.messages.at(-1)).toEqual(message);
    expect(folded.messages).toHaveLength(201);
    expect(folded.message_count).toBe(1001);
    // An edit of row 900 (a new version from there): the rows held before it stay.
    const edited = foldMessage(held, { session: { ...summary, message_count: 901 }, message_index: 900, message })!;
    expect(edited.messages).toHaveLength(101);
    // An edit above the rows held cannot be folded: read again.
    expect(foldMessage(held, { session: { ...summary, message_count: 501 }, message_index: 500, message })).toBeNull();
  });
});
