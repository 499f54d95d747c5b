// "Regenerate with…" and the reply's header (issue 38, item 6), and the names a chip shows (item 4): the pure parts.
import { describe, expect, it } from 'vitest';
import type { AgentConnectionsResponse } from './api.js';
import { shownName } from './attachment-name.js';
import { normalizeMessage } from './message-rows.js';
import { effectiveConnection, regenerateModelChoices, regenerateOptions } from './regenerate-with.js';

const list = {
  connections: [
    { id: 'main', name: 'Home box', is_default: true },
    { id: 'abcdef0123456789', name: 'Work box', is_default: false },
  ],
} as unknown as AgentConnectionsResponse;

describe('Regenerate with…', () => {
  it('starts from the connection the conversation uses: its own while saved, else the default', () => {
    expect(effectiveConnection(list, 'abcdef0123456789')).toBe('abcdef0123456789');
    expect(effectiveConnection(list, undefined)).toBe('main');
    expect(effectiveConnection(list, '0000000000000000')).toBe('main');
    expect(effectiveConnection(null, undefined)).toBeUndefined();
  });

  it('sends a connection only when it is not the conversation\'s own, a model only when one was picked', () => {
    expect(regenerateOptions({ connection: 'main', model: '' }, 'main')).toEqual({});
    expect(regenerateOptions({ connection: 'main', model: 'model-a' }, 'main')).toEqual({ model: 'model-a' });
    expect(regenerateOptions({ connection: 'abcdef0123456789', model: '' }, 'main')).toEqual({ connection: 'abcdef0123456789' });
  });

  it('offers the agent\'s own model first, named, then the ones it lists', () => {
    expect(regenerateModelChoices({ ok: true, models: ['m1', 'm2'], model: 'm1' })).toEqual([
      { value: '', label: 'Its default (m1)' },
      { value: 'm1', label: 'm1' },
      { value: 'm2', label: 'm2' },
    ]);
    expect(regenerateModelChoices({ ok: false, type: 'unreachable', message: 'down' })).toEqual([{ value: '', label: 'Its default' }]);
  });
});

describe('what a row and a chip say', () => {
  it('a reply carries who wrote it; a person\'s row and junk carry nothing', () => {
    expect(normalizeMessage({ role: 'assistant', content: 'x', answered_by: { agent: 'Work box', model: 'model-b', connection: 'c' } }).answeredBy).toEqual({ agent: 'Work box', model: 'model-b' });
    expect(normalizeMessage({ role: 'assistant', content: 'x' }).answeredBy).toBeUndefined();
    expect(normalizeMessage({ role: 'user', content: 'x', answered_by: { agent: 'A' } }).answeredBy).toBeUndefined();
    expect(normalizeMessage({ role: 'assistant', content: 'x', answered_by: { agent: 3 } as never }).answeredBy).toBeUndefined();
  });

  it('a chip shows the given name, else the stored one', () => {
    expect(shownName({ filename: 'Quarterly_report_Q3.pdf', display_name: 'Quarterly report Q3.pdf' })).toBe('Quarterly report Q3.pdf');
    expect(shownName({ filename: 'notes.txt' })).toBe('notes.txt');
  });
});
