// Keys glued on their right to a word (log lines only): masked when the tail looks like a key, words left alone.
import { describe, expect, it } from 'vitest';
import { maskGluedKeys } from './glued.js';
import { redact } from './index.js';

const GH = 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

describe('maskGluedKeys', () => {
  it.each([
    [`notes-${GH}-draft.txt`, 'notes-'],
    [`/tmp/${GH}_backup.zip`, '/tmp/'],
    [`x_${GH}-y`, 'x_'],
  ])('%s: the key is masked, the rest kept', (text, head) => {
    const out = maskGluedKeys(redact(text));
    expect(out).not.toContain(GH.slice(4, 24));
    expect(out.startsWith(head)).toBe(true);
  });

  it.each(['load_hf_checkpoint_now', 'ghp_ABCDEFGHIJKLMNOP_x', 'my-xoxb-component-name', 'xghp_a1B2c3D4e5F6g7H8-x', 'ghp_a1B2c3-x'])('%s: not a key, kept', (text) => {
    expect(maskGluedKeys(text)).toBe(text);
  });

  it('leaves what redact() already masked as it is', () => {
    const once = redact(`key ${GH} here`);
    expect(maskGluedKeys(once)).toBe(once);
  });
});

describe('maskGluedKeys on hostile lines', () => {
  it.each([
    ['sk_', 'sk_'],
    ['ghp_', 'ghp_a1'],
    ['xoxb-', 'xoxb-a1-'],
  ])('1 MiB of %j repeated takes under a second', (_prefix, unit) => {
    const text = unit.repeat(Math.ceil((1 << 20) / unit.length));
    const started = performance.now();
    maskGluedKeys(text);
    // A quadratic scan would take minutes here; the budget is loose for a loaded machine.
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
