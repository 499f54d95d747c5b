import { describe, expect, it } from 'vitest';
import { LONG_PASTE_CHARS, namePasted, pastedTextFile } from './composer-paste.js';

describe('namePasted', () => {
  const now = new Date('2024-05-06T07:08:09.123Z');

  it('names a pasted screenshot by the date, keeping its type and extension', () => {
    const [f] = namePasted([new File(['x'], 'image.png', { type: 'image/png' })], now);
    expect(f?.name).toBe('pasted-2024-05-06T07-08-09.png');
    expect(f?.type).toBe('image/png');
  });

  it('numbers several screenshots pasted at once and keeps other names', () => {
    const names = namePasted([new File([], 'image.png'), new File([], 'notes.txt'), new File([], 'image.jpg')], now).map((f) => f.name);
    expect(names).toEqual(['pasted-2024-05-06T07-08-09-1.png', 'notes.txt', 'pasted-2024-05-06T07-08-09-3.jpg']);
  });
});

describe('pastedTextFile', () => {
  const now = new Date('2026-11-29T08:20:05.500Z');

  it('names a long paste by the date, .txt for plain text, with the text whole', async () => {
    const text = 'log line\n'.repeat(LONG_PASTE_CHARS);
    const f = pastedTextFile(text, now);
    expect([f.name, f.type]).toEqual(['pasted-text-2026-11-29T08-20-05.txt', 'text/plain']);
    expect(await f.text()).toBe(text);
  });

  it('keeps Markdown as .md: a heading, a fence, a list or a link', () => {
    for (const text of ['# Notes\n\nbody', 'intro\n```js\nx\n```', 'items:\n- one\n- two', 'see [the docs](https://example.com)']) {
      expect(pastedTextFile(text, now).name, text).toBe('pasted-text-2026-11-29T08-20-05.md');
    }
    for (const text of ['a #hashtag in prose', 'price: 3 - 2 = 1', 'brackets [like this] alone']) {
      expect(pastedTextFile(text, now).name, text).toBe('pasted-text-2026-11-29T08-20-05.txt');
    }
  });
});
