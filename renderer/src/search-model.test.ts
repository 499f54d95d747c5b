import { describe, expect, it } from 'vitest';
import { again, answered, emptyText, errorText, moreText, failed, moveActive, NO_SEARCH, SearchRequests, shownResults, shows, target, typed, whereFound, type SearchResponse, type SearchResult } from './search-model.js';

const result = (over: Partial<SearchResult> = {}): SearchResult => ({
  session_id: 'aaaaaaaaaaaa',
  title: 'Birds',
  updated_at: '2026-11-26T10:00:00.000Z',
  kind: 'message',
  message_index: 3,
  role: 'assistant',
  snippet: [
    { text: 'the ', match: false },
    { text: 'heron', match: true },
    { text: ' flew', match: false },
  ],
  ...over,
});
const answer = (results: SearchResult[], query = 'heron'): SearchResponse => ({ query, results, complete: true });

describe('whereFound', () => {
  it('says where the words are, as the result line shows it', () => {
    expect(whereFound({ kind: 'title' })).toBe('title');
    expect(whereFound({ kind: 'message', role: 'assistant' })).toBe('in a message');
    expect(whereFound({ kind: 'message', role: 'user' })).toBe('your message');
    expect(whereFound({ kind: 'attachment_text', attachment: 'report.pdf' })).toBe('in report.pdf');
    expect(whereFound({ kind: 'attachment', attachment: 'report.pdf' })).toBe('file report.pdf');
    // The name the person gave the file, not its stored one (issue 38, item 4).
    expect(whereFound({ kind: 'attachment', attachment: 'Quarterly_report_Q3.pdf', display_name: 'Quarterly report Q3.pdf' })).toBe('file Quarterly report Q3.pdf');
    expect(whereFound({ kind: 'attachment_text', attachment: 'a_b.txt', display_name: 'a/b.txt' })).toBe('in a/b.txt');
  });

  it('the texts for nothing found and for a failure', () => {
    expect(emptyText('heron')).toBe('No conversation holds “heron”');
    expect(moreText(20)).toBe('More conversations match than the 20 shown: add a word to narrow the search.');
    expect(errorText('Search text too long (max 500 characters)')).toBe('Search failed: Search text too long (max 500 characters)');
  });
});

describe('typing, answers and what the sidebar shows', () => {
  it('a new query asks once; the same text (spaces aside) asks nothing; a blank field ends the search', () => {
    const first = typed(NO_SEARCH, ' heron ');
    expect(first.ask).toEqual({ seq: 1, query: 'heron' });
    expect(first.state.waiting).toBe(true);
    expect(typed(first.state, 'heron  ').ask).toBeUndefined();
    const blank = typed(first.state, '   ');
    expect(blank.ask).toBeUndefined();
    expect(blank.state.query).toBe('');
    expect(shows(blank.state)).toBe('list');
  });

  it('the title filter stands in until the first answer, then the results show', () => {
    const { state, ask } = typed(NO_SEARCH, 'heron');
    expect(shows(state)).toBe('list');
    const done = answered(state, ask!.seq, answer([result()]));
    expect(shows(done)).toBe('results');
    expect(done.active).toBe(0);
    expect(shownResults(done)).toHaveLength(1);
  });

  it('a stale answer never replaces a newer one, whichever comes first', () => {
    const a = typed(NO_SEARCH, 'her');
    const b = typed(a.state, 'heron');
    const newer = answered(b.state, b.ask!.seq, answer([result({ title: 'Newer' })]));
    const late = answered(newer, a.ask!.seq, answer([result({ title: 'Older' })]));
    expect(late.results.map((r) => r.title)).toEqual(['Newer']);
    // The older answer arriving first is dropped too: the title filter stays until the newer one.
    const early = answered(b.state, a.ask!.seq, answer([result({ title: 'Older' })]));
    expect(shows(early)).toBe('list');
    expect(failed(newer, a.ask!.seq, 'boom')).toBe(newer);
  });

  it('an answer after the field was cleared shows nothing', () => {
    const a = typed(NO_SEARCH, 'heron');
    const cleared = typed(a.state, '');
    expect(shows(answered(cleared.state, a.ask!.seq, answer([result()])))).toBe('list');
  });

  it('while the next answer is awaited the last results stay (no flash), then the new ones replace them', () => {
    const a = typed(NO_SEARCH, 'her');
    const shown = answered(a.state, a.ask!.seq, answer([result(), result({ session_id: 'bbbbbbbbbbbb' })]));
    const b = typed(shown, 'herons');
    expect(shows(b.state)).toBe('results');
    expect(b.state.results).toHaveLength(2);
    const none = answered(b.state, b.ask!.seq, answer([], 'herons'));
    expect(shows(none)).toBe('empty');
    expect(none.active).toBe(-1);
  });

  it('asking again keeps the results shown until the new answer, which replaces them; the older one is then stale', () => {
    const a = typed(NO_SEARCH, 'heron');
    const shown = answered(a.state, a.ask!.seq, answer([result({ title: 'Old title' })]));
    const re = again(shown);
    expect(re.ask).toEqual({ seq: a.ask!.seq + 1, query: 'heron' });
    expect(shows(re.state)).toBe('results');
    const renamed = answered(re.state, re.ask!.seq, answer([result({ title: 'New title' })]));
    expect(renamed.results.map((r) => r.title)).toEqual(['New title']);
    expect(answered(re.state, a.ask!.seq, answer([]))).toBe(re.state);
    expect(again(NO_SEARCH).ask).toBeUndefined();
  });

  it('the result picked stays picked through a new answer that holds it; else the first is', () => {
    const a = typed(NO_SEARCH, 'heron');
    const two = [result({ session_id: 'aaaaaaaaaaaa' }), result({ session_id: 'bbbbbbbbbbbb' })];
    const shown = { ...answered(a.state, a.ask!.seq, answer(two)), active: 1 };
    const re = again(shown);
    const moved = answered(re.state, re.ask!.seq, answer([result({ session_id: 'cccccccccccc' }), ...two]));
    expect(moved.active).toBe(2);
    const re2 = again(moved);
    expect(answered(re2.state, re2.ask!.seq, answer([result({ session_id: 'cccccccccccc' })])).active).toBe(0);
  });

  it('nothing found shows the empty line only once the answer says so', () => {
    const a = typed(NO_SEARCH, 'zebra');
    expect(shows(a.state)).toBe('list');
    expect(shows(answered(a.state, a.ask!.seq, answer([], 'zebra')))).toBe('empty');
  });

  it('a failure shows its error line; typing again clears it', () => {
    const a = typed(NO_SEARCH, 'heron');
    const broken = failed(a.state, a.ask!.seq, 'Satchel’s server is not reachable. Is it still running?');
    expect(shows(broken)).toBe('error');
    expect(broken.error).toBe('Satchel’s server is not reachable. Is it still running?');
    const again = typed(broken, 'herons');
    expect(again.state.error).toBeNull();
    expect(shows(again.state)).toBe('list');
  });
});

describe('moveActive', () => {
  it('down and up move one and wrap; nothing to pick is -1', () => {
    expect(moveActive(-1, 'ArrowDown', 3)).toBe(0);
    expect(moveActive(0, 'ArrowDown', 3)).toBe(1);
    expect(moveActive(2, 'ArrowDown', 3)).toBe(0);
    expect(moveActive(0, 'ArrowUp', 3)).toBe(2);
    expect(moveActive(2, 'ArrowUp', 3)).toBe(1);
    expect(moveActive(0, 'ArrowDown', 0)).toBe(-1);
  });
});

describe('target', () => {
  it('a message result opens at its message; any other at the conversation', () => {
    expect(target(result())).toEqual({ sessionId: 'aaaaaaaaaaaa', messageIndex: 3 });
    expect(target(result({ kind: 'title', message_index: undefined }))).toEqual({ sessionId: 'aaaaaaaaaaaa' });
    expect(target(result({ kind: 'attachment_text', message_index: undefined, attachment: 'a.txt' }))).toEqual({ sessionId: 'aaaaaaaaaaaa' });
    expect(target(result({ message_index: -1 }))).toEqual({ sessionId: 'aaaaaaaaaaaa' });
  });
});

describe('SearchRequests', () => {
  it('a new request aborts the one before it; dropping aborts the one in flight', () => {
    const requests = new SearchRequests();
    const her = requests.next();
    const heron = requests.next();
    expect([her.aborted, heron.aborted]).toEqual([true, false]);
    requests.drop();
    expect(heron.aborted).toBe(true);
    requests.drop();
    expect(requests.next().aborted).toBe(false);
  });
});

describe('a search the server stopped at its deadline', () => {
  it('keeps its sentence with the answer, and a later answer without one clears it', () => {
    const asked = typed(NO_SEARCH, 'heron');
    const note = 'This search took longer than 1 s and was stopped: the newest matches are shown, not the best. Add a word to narrow it.';
    const stopped = answered(asked.state, asked.ask!.seq, { ...answer([result()]), complete: false, note });
    expect(stopped.note).toBe(note);
    const next = typed(stopped, 'heron grey');
    expect(answered(next.state, next.ask!.seq, answer([result()])).note).toBeNull();
  });
});
