// The chip's line of what the agent will get: each state in words, so it never rests on colour alone, and a
// failure to ask never reads as ready.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { agentViewWords, CHECKING_TEXT, loadAgentView, UNREADABLE_HINT } from './agent-view.js';

afterEach(() => vi.unstubAllGlobals());

describe('what a chip says the agent gets', () => {
  it('says each state in words', () => {
    expect(agentViewWords({ status: 'checking' })).toEqual({ text: CHECKING_TEXT, hint: null });
    expect(agentViewWords({ status: 'ready', text: '12,408 characters of text' })).toEqual({ text: 'Ready: 12,408 characters of text', hint: null });
    expect(agentViewWords({ status: 'partial', text: 'cut at 1,000 of 3,000 characters' })).toEqual({ text: 'Partly: cut at 1,000 of 3,000 characters', hint: null });
    expect(agentViewWords({ status: 'unreadable', text: 'its text could not be extracted' })).toEqual({ text: 'Not readable: its text could not be extracted', hint: UNREADABLE_HINT });
    expect(agentViewWords({ status: 'failed', error: 'Attachment not found' })).toEqual({ text: 'Could not check what the agent gets: Attachment not found', hint: null });
  });

  it('asks the server once per attachment; a refusal is a failure, never ready, and is asked again', async () => {
    const answers = [
      new Response(JSON.stringify({ error: 'Could not tell what the agent gets from the attachment' }), { status: 500 }),
      new Response(JSON.stringify({ state: 'ready', text: '5 characters of text' }), { status: 200 }),
    ];
    const fetched: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      fetched.push(url);
      return answers.shift()!;
    });
    expect(await loadAgentView('abcdefabcdef', 'a.txt', '5')).toEqual({ status: 'failed', error: 'Could not tell what the agent gets from the attachment' });
    expect(await loadAgentView('abcdefabcdef', 'a.txt', '5')).toEqual({ status: 'ready', text: '5 characters of text' });
    expect(await loadAgentView('abcdefabcdef', 'a.txt', '5')).toEqual({ status: 'ready', text: '5 characters of text' });
    expect(fetched).toEqual(['/api/attachment/summary?session_id=abcdefabcdef&name=a.txt', '/api/attachment/summary?session_id=abcdefabcdef&name=a.txt']);
  });
});
