import { describe, expect, it } from 'vitest';
import { conversationDocs } from './documents.js';
import type { StoredMessage } from './types.js';

const file = (name: string, dir = '/state/attachments/s1') => ({ kind: 'file', filename: name, path: `${dir}/${name}`, size: 1, mime: 'text/plain', is_image: false });

describe('conversationDocs', () => {
  it('lists the user rows’ attachments and seen arrivals newest first, each path once, never error rows', () => {
    const rows: StoredMessage[] = [
      { role: 'user', content: 'a', attachments: [file('report.pdf'), file('notes.txt')] },
      { role: 'assistant', content: 'ok' },
      { role: 'system', content: 'Arrived', arrival: { last_at: 1 }, attachments: [file('scan.png')] },
      { role: 'assistant', content: 'failed', _error: true, attachments: [file('x.txt')] },
      { role: 'user', content: 'again', attachments: [file('report.pdf')] },
    ];
    const docs = conversationDocs('s1', rows);
    expect(docs.map((d) => [d.name, d.origin, d.row])).toEqual([
      ['report.pdf', 'attachment', 4],
      ['scan.png', 'arrival', 2],
      ['notes.txt', 'attachment', 0],
    ]);
    expect(docs[0]!.uri).toBe('satchel://session/s1/attachment/report.pdf');
    expect(docs[0]!.key).toBe('attachment:report.pdf');
  });

  it('reads an archive sent with its extraction as the extraction', () => {
    const rows: StoredMessage[] = [
      { role: 'user', content: 'x', attachments: [file('data.zip'), { kind: 'extraction', name: 'data.zip', path: '/state/attachments/s1/data', extracted: true }] },
    ];
    expect(conversationDocs('s1', rows).map((d) => d.attachment.path)).toEqual(['/state/attachments/s1/data']);
  });

  it('gives an extraction and its archive attached in two rows two keys', () => {
    const rows: StoredMessage[] = [
      { role: 'user', content: 'x', attachments: [file('data.zip')] },
      { role: 'user', content: 'y', attachments: [{ kind: 'extraction', name: 'data.zip', path: '/state/attachments/s1/data', extracted: true }] },
    ];
    expect(conversationDocs('s1', rows).map((d) => d.key)).toEqual(['attachment:data.zip', 'attachment:data.zip@0']);
  });
});
