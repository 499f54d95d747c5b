import { describe, expect, it } from 'vitest';
import { speechText } from './speech-text.js';

describe('speechText (read aloud)', () => {
  it('reads the words of a reply, never its Markdown syntax', () => {
    const reply = [
      '# Trip to **Lisbon**',
      '',
      'Take the [tram 28](https://example.com/tram) and try *pastéis* at `Belém`.',
      '',
      '- Day one: Alfama',
      '  - Fado at night',
      '1. Day two: Sintra',
      '',
      '> Pack light.',
      '',
      '| Sight | Cost |',
      '|---|---:|',
      '| Castle | 10 € |',
      '',
      '---',
      '',
      '```js',
      'go(home)',
      '```',
    ].join('\n');
    expect(speechText(reply)).toBe(
      [
        'Trip to Lisbon',
        'Take the tram 28 and try pastéis at Belém.',
        'Day one: Alfama',
        'Fado at night',
        'Day two: Sintra',
        'Pack light.',
        'Sight, Cost',
        'Castle, 10 €',
        'go(home)',
      ].join('\n'),
    );
  });

  it('says nothing for a reply with no words', () => {
    expect(speechText('')).toBe('');
    expect(speechText('---\n\n***')).toBe('');
  });
});
