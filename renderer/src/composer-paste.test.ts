import { describe, expect, it } from 'vitest';
import { namePasted } from './composer-paste.js';

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
