// The Inbox arrival row's view, as far as it is pure: which rows are arrivals, what the head and the button say.
// Its DOM (chips, the button, live and after a reload) is checked in Chromium: e2e/inbox.spec.ts.
import { describe, expect, it } from 'vitest';
import { ARRIVAL_CHIPS_SHOWN, arrivalPlace, moreLabel } from './arrival-view.js';
import { arrivalOf, normalizeMessage, visibleRows } from './message-rows.js';
import type { Message } from './api.js';

const file = { kind: 'file' as const, filename: 'report.pdf', path: '/s/report.pdf', size: 10, mime: 'application/pdf', is_image: false };

describe('arrival rows', () => {
  it('a system row with an arrival is one; a note without it, or another role, is not', () => {
    const row: Message = { role: 'system', content: 'report.pdf arrived from Downloads', timestamp: 1, attachments: [file], arrival: { source: 'folder', from: 'Downloads', last_at: 2 } };
    expect(normalizeMessage(row, 4)).toMatchObject({ index: 4, role: 'system', text: 'report.pdf arrived from Downloads', attachments: [file], arrival: { source: 'folder', from: 'Downloads', last_at: 2 } });
    expect(arrivalOf({ role: 'system', content: 'a note' })).toBeUndefined();
    expect(arrivalOf({ role: 'user', arrival: { source: 'folder', from: 'x', last_at: 1 } })).toBeUndefined();
    // A hand-edited store: an unknown source is no arrival, a missing time is 0, a non-string folder is dropped.
    expect(arrivalOf({ role: 'system', arrival: { source: 'mail' } })).toBeUndefined();
    expect(arrivalOf({ role: 'system', arrival: { source: 'open-with', from: 7 } })).toEqual({ source: 'open-with', last_at: 0 });
    // Arrival rows are part of the thread (tool rows are not).
    expect(visibleRows([row, { role: 'tool', content: 'x' }]).map((r) => r.arrival?.source)).toEqual(['folder']);
  });

  it('says where the files came from', () => {
    expect(arrivalPlace({ source: 'folder', from: 'Downloads', last_at: 0 })).toBe('Watched folder Downloads');
    expect(arrivalPlace({ source: 'open-with', last_at: 0 })).toBe('Opened with Satchel');
  });

  it(`draws ${ARRIVAL_CHIPS_SHOWN} chips and offers the rest`, () => {
    expect(moreLabel(ARRIVAL_CHIPS_SHOWN)).toBeNull();
    expect(moreLabel(ARRIVAL_CHIPS_SHOWN + 1)).toBe(`Show all ${ARRIVAL_CHIPS_SHOWN + 1} files`);
    expect(moreLabel(1000)).toBe('Show all 1,000 files');
  });
});
