import { describe, expect, it } from 'vitest';
import type { McpReceipt } from './api.js';
import { formatTime } from './format.js';
import { clock, GROUP_WINDOW_MS, receiptItem, receiptsLine } from './receipts-view.js';

/** An ISO time `minutes` after 10:42 local time today. */
const at = (minutes: number) => new Date(new Date(2026, 10, 26, 10, 42).getTime() + minutes * 60_000).toISOString();
const receipt = (r: Partial<McpReceipt> & Pick<McpReceipt, 'name'>): McpReceipt => ({
  client: 'Claude Code',
  kind: 'attachment',
  first_at: at(0),
  last_at: at(0),
  count: 1,
  ...r,
});

describe('MCP read receipts line', () => {
  it('says who read what and when', () => {
    expect(receiptsLine([receipt({ name: 'report.docx' })])).toBe(`Claude Code read report.docx · ${clock(at(0))}`);
    // In the person's locale, as the messages write theirs ("10:42 AM" in en-US; it was always "10:42").
    expect(clock(at(0))).toMatch(/^10:42( AM)?$/);
    expect(clock(at(-42 - 10 * 60 + 5))).toMatch(/^(00|12):05( AM)?$/);
    const today = new Date();
    today.setHours(17, 2, 0, 0);
    expect(clock(today.toISOString())).toBe(formatTime(today.toISOString()));
  });

  it('groups the same client’s reads close to the latest: “and 2 more files”', () => {
    const line = receiptsLine([
      receipt({ name: 'report.docx', last_at: at(3) }),
      receipt({ name: 'notes.txt', last_at: at(2) }),
      receipt({ name: 'plan.md', kind: 'workspace', last_at: at(0) }),
      receipt({ name: 'old.txt', last_at: at(-GROUP_WINDOW_MS / 60_000 - 4) }),
      receipt({ name: 'x.txt', client: 'Codex', last_at: at(1) }),
    ]);
    expect(line).toBe(`Claude Code read report.docx and 2 more files · ${clock(at(3))}`);
  });

  it('names the conversation, counts one more in the singular, and says how often one thing was read', () => {
    expect(receiptsLine([receipt({ name: '', kind: 'conversation' }), receipt({ name: 'a.txt' })])).toBe(`Claude Code read the conversation and 1 more file · ${clock(at(0))}`);
    expect(receiptsLine([receipt({ name: 'a.txt' }), receipt({ name: '', kind: 'conversation' })])).toBe(`Claude Code read a.txt and 1 more · ${clock(at(0))}`);
    expect(receiptsLine([receipt({ name: 'notes.txt', client: 'Codex', count: 5, last_at: at(1) })])).toBe(`Codex read notes.txt 5 times · ${clock(at(1))}`);
    expect(receiptsLine([])).toBe('');
  });

  it('lists each receipt with its day, and the version and first read in its tooltip', () => {
    const item = receiptItem(receipt({ name: 'notes.txt', client: 'Codex', client_version: '0.46.0', count: 3, last_at: at(1) }));
    // The day is in the person’s locale: “26 Nov” or “Nov 26”.
    expect(item.text).toMatch(/^Codex read notes\.txt 3 times · (26 Nov|Nov 26) 10:43( AM)?$/);
    expect(item.title).toContain('Codex 0.46.0, 3 reads from');
  });
});
