// The kept session body is the answer made without it, byte for byte: over varied rows (free text with secrets,
// quotes, newlines and invisibles; tool calls, attachments, versions, a context report, unknown fields), after
// changes that keep some rows and replace others, and after the known secrets change.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type * as wire from '../core/wire.js';
import { forgetSecrets, KNOWN_SECRET_MASK, rememberSecret } from '../redact/known.js';
import { anyText, planted } from '../testing/redact-arbitraries.js';
import { SessionBodyCache, sessionBody, IDLE_KEPT_SESSION_BODIES } from './session-body.js';
import { publicSession, type SessionRecord } from './sessions.js';

/** What sendJson wrote for a whole session before the cache (its 2-space form). */
const uncached = (s: SessionRecord) => JSON.stringify({ session: publicSession(s) }, null, 2);

function frozen<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

const text = fc.oneof(anyText, planted.map((p) => p.text), fc.constant('line one\n  "quoted" \\ \u2028 \u0000 ’ 🙂'));

const attachment = fc.record({
  filename: text,
  path: fc.constant('uploads/abc/report.pdf'),
  size: fc.nat(),
  mime: fc.constant('application/pdf'),
  is_image: fc.boolean(),
  kind: fc.constant('file' as const),
});

const plainRow = fc.record(
  {
    role: fc.constantFrom('user', 'assistant', 'tool'),
    content: text,
    timestamp: fc.integer({ min: 1_700_000_000, max: 1_800_000_000 }),
    reasoning: text,
    attachments: fc.array(attachment, { maxLength: 2 }),
    tool_calls: fc.array(fc.record({ id: text, type: fc.constant('function'), function: fc.record({ name: text, arguments: text }) }), { maxLength: 2 }),
    tool_call_id: text,
    usage: fc.record({ input_tokens: fc.nat(), output_tokens: fc.nat(), duration_seconds: fc.double({ noNaN: true }), ttft_ms: fc.constant(null) }),
    _partial: fc.boolean(),
    stopped_by: text,
    context: fc.record({ documents: fc.array(fc.record({ name: text, origin: fc.constant('attachment'), state: fc.constant('whole') }), { maxLength: 2 }), summary: text, via: fc.constant('sent') }),
    // A field of another version's store: carried with its strings redacted.
    legacy_note: fc.oneof(text, fc.record({ nested: text, n: fc.nat() })),
    _internal_never_out: text,
  },
  { requiredKeys: ['role', 'content'] },
) as fc.Arbitrary<wire.Message>;

// A row that starts a version (its fork carries earlier tails): the summary is read from the row itself.
const row = fc.oneof(
  { weight: 4, arbitrary: plainRow },
  { weight: 1, arbitrary: fc.tuple(plainRow, fc.array(fc.array(plainRow, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 })).map(([r, tails]) => ({ ...r, role: 'user', _versions: { before: tails, after: [] } }) as wire.Message) },
);

const session = fc
  .record({
    title: text,
    messages: fc.array(row, { maxLength: 12 }),
    pending_user_message: fc.option(text, { nil: undefined }),
    model: fc.option(text, { nil: undefined }),
    extra_field: fc.option(text, { nil: undefined }),
  })
  .map(
    ({ title, messages, ...rest }) =>
      frozen({
        session_id: 'a1b2c3d4e5f6',
        title,
        workspace: '/home/me/work',
        profile: 'default',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-02T00:00:00.000Z',
        messages,
        attachments: [],
        ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
      }) as SessionRecord,
  );

afterEach(() => forgetSecrets());

describe('the kept session body', () => {
  it('is the uncached answer byte for byte, for any rows, read again and after any change of rows', () => {
    fc.assert(
      fc.property(session, fc.array(row, { maxLength: 3 }), fc.nat(), text, (s, added, cutAt, title) => {
        const cache = new SessionBodyCache((bytes) => bytes.toString('utf8'));
        expect(cache.body(s)).toBe(uncached(s));
        expect(cache.body(s)).toBe(uncached(s));
        // A change as the store makes it: a new session object, the rows before `cut` the same objects.
        const cut = s.messages.length === 0 ? 0 : cutAt % (s.messages.length + 1);
        const changed = frozen({ ...s, title, messages: [...s.messages.slice(0, cut), ...added] }) as SessionRecord;
        expect(cache.body(changed)).toBe(uncached(changed));
        // One row in the middle replaced: the rows on either side are copied, each run in one piece.
        const middle = frozen({ ...changed, messages: changed.messages.map((r, i) => (i === cut && added[0] ? added[0] : r)) }) as SessionRecord;
        expect(cache.body(middle)).toBe(uncached(middle));
        expect(cache.body(s)).toBe(uncached(s));
      }),
      { numRuns: 150 },
    );
  });

  it('masks a secret learnt after the row was kept, on the next read', () => {
    const key = 'zq7Xr2Lm9PwT4kHs8vNc';
    const s = frozen({
      session_id: 'a1b2c3d4e5f6',
      title: 'Keys',
      workspace: '/w',
      profile: 'default',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      messages: [{ role: 'user', content: `the key is ${key}, keep it` }],
      attachments: [],
    }) as SessionRecord;
    const cache = new SessionBodyCache((bytes) => bytes.toString('utf8'));
    expect(cache.body(s)).toContain(key);
    rememberSecret(key);
    const after = cache.body(s);
    expect(after).not.toContain(key);
    expect(after).toContain(KNOWN_SECRET_MASK);
    expect(after).toBe(uncached(s));
  });

  it('keeps at most its bounds, the least recently read let go first, and answers a body larger than all its room', () => {
    const make = (id: string, chars: number) =>
      frozen({ session_id: id, title: 't', workspace: '/w', profile: 'default', created_at: 'c', updated_at: 'u', messages: [{ role: 'user', content: 'x'.repeat(chars) }], attachments: [] }) as SessionRecord;
    // Each body its own object: the same object again is a kept body.
    const cache = new SessionBodyCache((bytes) => ({ json: bytes.toString('utf8') }), { sessions: 2, bytes: 5_000 });
    const [a, b, c] = [make('aaaaaaaaaaaa', 100), make('bbbbbbbbbbbb', 100), make('cccccccccccc', 100)];
    const first = cache.body(a);
    cache.body(b);
    expect(cache.body(a)).toBe(first);
    cache.body(c);
    expect(cache.count).toBe(2);
    // b was the least recently read: let go; a is still kept.
    expect(cache.body(a)).toBe(first);
    const huge = make('dddddddddddd', 10_000);
    expect(cache.body(huge).json).toBe(uncached(huge));
    expect(cache.count).toBe(2);
    expect(cache.body(a)).toBe(first);
    // Over the characters: the older go until it fits.
    const big = make('eeeeeeeeeeee', 4_500);
    const kept = cache.body(big);
    expect(cache.bytes).toBeLessThanOrEqual(5_000);
    expect(cache.count).toBe(1);
    expect(cache.body(big)).toBe(kept);
  });

  it('once idle keeps the body last read only; one let go is made again, the same bytes', () => {
    const make = (id: string) =>
      frozen({ session_id: id, title: 't', workspace: '/w', profile: 'default', created_at: 'c', updated_at: 'u', messages: [{ role: 'user', content: `text of ${id}` }], attachments: [] }) as SessionRecord;
    const cache = new SessionBodyCache((bytes) => ({ json: bytes.toString('utf8') }));
    const [a, b, c] = [make('aaaaaaaaaaaa'), make('bbbbbbbbbbbb'), make('cccccccccccc')];
    const first = cache.body(a);
    cache.body(b);
    const last = cache.body(c);
    const bytes = cache.bytes;
    cache.releaseIdle();
    expect(cache.count).toBe(IDLE_KEPT_SESSION_BODIES);
    expect(cache.bytes).toBeLessThan(bytes);
    expect(cache.body(c)).toBe(last);
    const again = cache.body(a);
    expect(again).not.toBe(first);
    expect(again.json).toBe(first.json);
  });

  it('puts the rows at the place of an empty messages list, whatever the title says', () => {
    const s = frozen({
      session_id: 'a1b2c3d4e5f6',
      title: '\n    "messages": []',
      workspace: '/w',
      profile: 'default',
      created_at: 'c',
      updated_at: 'u',
      messages: [{ role: 'user', content: 'hi' }],
      attachments: [],
    }) as SessionRecord;
    expect(sessionBody(s).toString('utf8')).toBe(uncached(s));
  });

  it('cuts a page of any rows from the kept body: the whole answer with those rows, its place and count last', () => {
    fc.assert(
      fc.property(session, fc.nat(), fc.nat(), (s, a, b) => {
        const cache = new SessionBodyCache((bytes) => bytes.toString('utf8'));
        const n = s.messages.length;
        const [start, end] = [a % (n + 1), b % (n + 1)].sort((x, y) => x - y) as [number, number];
        const whole = JSON.parse(uncached(s)) as { session: Record<string, unknown> & { messages: unknown[] } };
        const page = cache.page(s, start, end);
        // What a client reads: every field of the whole answer, the rows of the page, then where they are.
        const expected = { session: { ...whole.session, messages: whole.session.messages.slice(start, end), messages_offset: start, message_count: n } };
        expect(JSON.parse(page)).toEqual(expected);
        expect(Object.keys((JSON.parse(page) as typeof expected).session).slice(-2)).toEqual(['messages_offset', 'message_count']);
        // In the 2-space form, so a page of every row is the whole body with the two keys added.
        expect(page).toBe(JSON.stringify(expected, null, 2));
      }),
      { numRuns: 150 },
    );
    const s = frozen({ session_id: 'a1b2c3d4e5f6', title: 't', workspace: '/w', profile: 'default', created_at: 'c', updated_at: 'u', messages: [{ role: 'user', content: 'hi' }], attachments: [] }) as SessionRecord;
    const cache = new SessionBodyCache((bytes) => bytes.toString('utf8'));
    expect(() => cache.page(s, 1, 2)).toThrow(RangeError);
    expect(() => cache.page(s, 1, 0)).toThrow(RangeError);
  });
});
