// The composer's warning (issue 36): asked after a quiet, one request at a time, only the newest draft's answer
// shown, a failure (an older server's 404) shown as nothing; and its sentence, word for word.
import { describe, expect, it } from 'vitest';
import type { ChatContextPreview, Message, Session } from './api.js';
import { leftOutSentence, nameList, PreviewRequests, type PreviewInput, type Timers } from './context-preview.js';
import { previewInput } from './context-warning.js';
import { initialState, type Chip } from './store.js';

/** Timers run by hand: `tick()` fires what is due. */
function manualTimers(): Timers & { tick(): void; pending(): number } {
  let due: (() => void)[] = [];
  return {
    set: (fn) => {
      due.push(fn);
      return fn;
    },
    clear: (t) => {
      due = due.filter((f) => f !== t);
    },
    tick: () => {
      const now = due;
      due = [];
      for (const f of now) f();
    },
    pending: () => due.length,
  };
}

const preview = (left_out: string[], documents: ChatContextPreview['documents'] = []): ChatContextPreview => ({ documents, summary: '', via: 'sent', left_out });
const input = (text: string): PreviewInput => ({ sessionId: 'abcdefabcdef', text, attachments: [] });
const flush = () => new Promise((r) => setTimeout(r, 0));

describe('PreviewRequests', () => {
  function harness() {
    const timers = manualTimers();
    const asked: { input: PreviewInput; resolve(p: ChatContextPreview): void; reject(e: unknown): void }[] = [];
    const answers: (ChatContextPreview | null)[] = [];
    const requests = new PreviewRequests(
      (i) => new Promise((resolve, reject) => asked.push({ input: i, resolve, reject })),
      (p) => answers.push(p),
      timers,
    );
    return { timers, asked, answers, requests };
  }

  it('asks once after the quiet, however many keys came before it', async () => {
    const { timers, asked, answers, requests } = harness();
    for (const text of ['w', 'wh', 'wha', 'what']) requests.want(input(text));
    expect(asked).toHaveLength(0);
    expect(timers.pending()).toBe(1);
    timers.tick();
    expect(asked.map((a) => a.input.text)).toEqual(['what']);
    asked[0]!.resolve(preview(['report.pdf']));
    await flush();
    expect(answers.at(-1)).toEqual(preview(['report.pdf']));
  });

  it('holds one request in flight: a draft changed meanwhile is asked when it answers, and the stale answer is never shown', async () => {
    const { timers, asked, answers, requests } = harness();
    requests.want(input('page'));
    timers.tick();
    requests.want(input('page 2'));
    timers.tick();
    // Still one in flight: the second waits for it.
    expect(asked).toHaveLength(1);
    asked[0]!.resolve(preview(['stale.pdf']));
    await flush();
    expect(answers).not.toContainEqual(preview(['stale.pdf']));
    expect(asked.map((a) => a.input.text)).toEqual(['page', 'page 2']);
    asked[1]!.resolve(preview(['report.pdf']));
    await flush();
    expect(answers.at(-1)).toEqual(preview(['report.pdf']));
  });

  it('shows nothing when the server fails or has no such endpoint (404), and nothing for an empty draft', async () => {
    const { timers, asked, answers, requests } = harness();
    requests.want(input('hello'));
    timers.tick();
    asked[0]!.reject(new Error('Not found'));
    await flush();
    expect(answers.at(-1)).toBeNull();
    // A failure is not kept as the draft's answer: the same draft, wanted again, is asked again.
    requests.want(input('hello!'));
    requests.want(input('hello'));
    timers.tick();
    expect(asked.map((a) => a.input.text)).toEqual(['hello', 'hello']);
    requests.want(null);
    expect(timers.pending()).toBe(0);
    expect(answers.at(-1)).toBeNull();
  });

  it('does not ask again for a draft it has the answer to, until the conversation moves on', async () => {
    const { timers, asked, answers, requests } = harness();
    requests.want(input('a'));
    timers.tick();
    asked[0]!.resolve(preview(['report.pdf']));
    await flush();
    requests.want(input('ab'));
    requests.want(input('a'));
    expect(answers.at(-1)).toEqual(preview(['report.pdf']));
    expect(timers.pending()).toBe(0);
    requests.forget();
    expect(answers.at(-1)).toBeNull();
    requests.want(input('a'));
    timers.tick();
    expect(asked).toHaveLength(2);
  });
});

describe('the warning’s sentence', () => {
  it('names what will no longer be sent whole, and says what the agent gets instead', () => {
    expect(leftOutSentence(preview(['report.pdf'], [{ name: 'report.pdf', origin: 'attachment', state: 'passages', where: 'page 2' }]))).toBe(
      '“report.pdf” will no longer be sent whole: the agent gets the passages that match your message.',
    );
    expect(leftOutSentence(preview(['a.pdf', 'b.docx']))).toBe('“a.pdf” and “b.docx” will no longer be sent whole: the agent gets the passages that match your message.');
    expect(leftOutSentence(preview(['old.txt'], [{ name: 'old.txt', origin: 'attachment', state: 'not_sent', reason: 'budget' }]))).toBe('“old.txt” will not be sent: it no longer fits in what one turn can hold.');
  });

  it('says nothing when nothing is left out, or nothing was answered', () => {
    expect(leftOutSentence(preview([]))).toBeNull();
    expect(leftOutSentence(null)).toBeNull();
  });

  it('spells out at most three names', () => {
    expect(nameList(['a'])).toBe('“a”');
    expect(nameList(['a', 'b', 'c'])).toBe('“a”, “b” and “c”');
    expect(nameList(['a', 'b', 'c', 'd', 'e'])).toBe('“a”, “b”, “c” and 2 more');
  });
});

describe('what the composer asks about', () => {
  const whole = { documents: [{ name: 'report.pdf', origin: 'attachment' as const, state: 'whole' as const }], summary: 'The agent has 1 of 1 documents whole', via: 'sent' as const };
  const session = (messages: Message[]): Session => ({ session_id: 'abcdefabcdef', title: 't', workspace: '/w', profile: 'default', created_at: 'c', updated_at: 'u', messages, attachments: [] }) as Session;
  const stored = { filename: 'notes.txt', path: '/s/notes.txt', size: 3, mime: 'text/plain', is_image: false };
  const chip: Chip = { id: 1, name: 'notes.txt', size: 3, origin: { kind: 'picked' }, status: 'done', loaded: 3, result: stored };
  const base = { ...initialState(), agentReady: true, session: session([{ role: 'user', content: 'q', context: whole }]), draft: { owner: 'abcdefabcdef', text: '  what does page 2 say?  ', chips: [chip] } };

  it('the draft’s text and its stored files, once a document was whole last turn', () => {
    expect(previewInput(base)).toEqual({ sessionId: 'abcdefabcdef', text: 'what does page 2 say?', attachments: [stored] });
  });

  it('nothing when no warning can be due', () => {
    expect(previewInput({ ...base, agentReady: false })).toBeNull();
    expect(previewInput({ ...base, session: session([{ role: 'user', content: 'q' }]) })).toBeNull();
    expect(previewInput({ ...base, session: session([{ role: 'user', content: 'q', context: { ...whole, documents: [{ ...whole.documents[0]!, state: 'passages' }] } }]) })).toBeNull();
    expect(previewInput({ ...base, draft: { owner: 'abcdefabcdef', text: ' ', chips: [{ ...chip, status: 'uploading' }] } })).toBeNull();
    expect(previewInput({ ...base, draft: { ...base.draft, owner: 'ffffffffffff' } })).toBeNull();
    expect(previewInput({ ...base, editing: { sessionId: 'abcdefabcdef', index: 0, saved: { text: '', chips: [] } } })).toBeNull();
  });
});
