import { describe, expect, it } from 'vitest';
import type { ExportedConversation } from '../projections/export.js';
import { conversationMarkdown, linkTarget, linkText, markdownTime, UNKNOWN_TIME } from './markdown.js';

const doc = (messages: unknown[]): ExportedConversation =>
  ({ satchel_export: 1, exported_at: '', app_version: '1.2.3', title: 'Plans\nfor May', created_at: '2024-05-01T12:03:09.000Z', updated_at: 'not a time', messages, attachments: [] }) as unknown as ExportedConversation;

describe('conversation.md', () => {
  it('links a name with spaces and brackets whole, and escapes what would end the link text', () => {
    expect(linkTarget('attachments/my [draft] (v2).pdf')).toBe('attachments/my%20%5Bdraft%5D%20(v2).pdf');
    expect(linkText('a]b[c_d*e')).toBe('a\\]b\\[c\\_d\\*e');
    expect(markdownTime(1714565000)).toBe('2024-05-01 12:03 UTC');
    expect(markdownTime(undefined)).toBeUndefined();
  });

  it('says which version is shown, names an extraction as a folder, keeps a reply’s Markdown as it is', () => {
    const text = conversationMarkdown(
      doc([
        { role: 'user', content: 'Look', timestamp: 1714565000, _versions: { before: [[]], after: [[], []] }, attachments: [{ kind: 'extraction', name: 'pack.zip', path: 'attachments/pack', extracted: true, file_count: 1 }] },
        { role: 'assistant', content: '```js\nx()\n```\n' },
      ]),
    );
    expect(text).toBe(
      [
        '# Plans for May',
        '',
        'Started 2024-05-01 12:03 UTC · last activity not a time · exported from Satchel 1.2.3',
        '',
        '---',
        '',
        '### You · 2024-05-01 12:03 UTC',
        '',
        '_Version 2 of 4; the JSON export keeps them all._',
        '',
        'Look',
        '',
        '**Attachments:**',
        '',
        '- [pack.zip/](attachments/pack/) (extracted archive, 1 file)',
        '',
        '---',
        '',
        '### Assistant',
        '',
        '```js\nx()\n```',
        '',
      ].join('\n'),
    );
  });

  it('heads an Inbox arrival row "Inbox", with its files linked', () => {
    const text = conversationMarkdown(
      doc([{ role: 'system', content: 'report.pdf arrived from Downloads', timestamp: 1714565000, arrival: { source: 'folder', from: 'Downloads', last_at: 1714565000 }, attachments: [{ kind: 'file', filename: 'report.pdf', path: 'attachments/report.pdf', size: 2048, mime: 'application/pdf', is_image: false }] }]),
    );
    expect(text).toContain('### Inbox · 2024-05-01 12:03 UTC\n\nreport.pdf arrived from Downloads\n\n**Attachments:**\n\n- [report.pdf](attachments/report.pdf)');
  });

  it('is total over whatever is stored: a time no date can be made of prints as unknown, nothing throws', () => {
    for (const bad of [1e300, -1e300, Number.NaN, Number.POSITIVE_INFINITY, 1e15, '2024']) expect(markdownTime(bad)).toBe(UNKNOWN_TIME);
    const text = conversationMarkdown(
      doc([
        { role: 'user', content: 'far', timestamp: 1e300 },
        { role: 'assistant', content: 'odd', timestamp: 'yesterday', attachments: [{ kind: 'file', path: 'attachments/x' }, { kind: 'extraction' }] },
      ]),
    );
    expect(text).toContain(`### You · ${UNKNOWN_TIME}\n\nfar`);
    expect(text).toContain(`### Assistant · ${UNKNOWN_TIME}\n\nodd\n\n**Attachments:**\n\n- [](attachments/x)\n- [/](/) (extracted archive)`);
  });
});
