// Office files whose zip end record is slightly off, as real ones are, still get their sidecar: a deck with a
// trailing newline or a cut comment (made here from our builder's deck, damaged as copies are), and the two
// decks from Apache POI's test data that were refused with "Not a readable zip: Invalid comment length".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPptx, pShape } from './testing/fixtures.js';
import { sidecarFor } from './testing/sidecar.js';
import { useTmpDir } from './testing/tmpdir.js';

const tmp = useTmpDir();

/** The deck with a comment declared (`Satchel deck`) and then cut after its first four bytes. */
function withCutComment(deck: Buffer): Buffer {
  const eocd = deck.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const out = Buffer.concat([deck.subarray(0, eocd + 22), Buffer.from('Satc')]);
  out.writeUInt16LE('Satchel deck'.length, eocd + 20);
  return out;
}

describe('a pptx with a harmless end-record defect gets its sidecar', () => {
  it.each([
    ['a trailing newline', (deck: Buffer) => Buffer.concat([deck, Buffer.from('\n')])],
    ['a comment cut short', withCutComment],
  ])('%s', async (_defect, damage) => {
    const deck = await buildPptx([{ file: 'slide1.xml', shapes: pShape(['Quarterly review'], 'title') + pShape(['Revenue grew 12 %']) }]);
    const file = await tmp.write('deck.pptx', damage(deck));
    const sidecar = await sidecarFor(file, 'pptx');
    const text = await fs.readFile(sidecar.path, 'utf8');
    expect(text).toContain('Quarterly review');
    expect(text).toContain('Revenue grew 12 %');
  });
});

// Apache POI's test decks, read from a mirror of github:apache/poi when one is on this machine (never committed).
const POI_MIRROR = process.env.SATCHEL_POI_MIRROR ?? '/work/.mirror/apache+poi/repo';
const POI_DECKS = {
  'bug62513.pptx': 'test-data/slideshow/bug62513.pptx',
  'conference.pptx': 'test-data/slideshow/au.asn.aes.www_conferences_2011_presentations_Fri_20Room4Level4_20930_20Maloney.pptx',
};
const POI_MISSING = existsSync(POI_MIRROR) ? null : `no Apache POI mirror at ${POI_MIRROR} (set SATCHEL_POI_MIRROR to a git directory of github.com/apache/poi)`;
if (POI_MISSING) console.warn(`skipping the Apache POI decks: ${POI_MISSING}`);

describe.skipIf(POI_MISSING !== null)("Apache POI's decks that end with a stray byte", () => {
  it.each(Object.entries(POI_DECKS))('%s gets a sidecar with its slide text', async (name, repoPath) => {
    const bytes = execFileSync('git', ['-C', POI_MIRROR, 'show', `HEAD:${repoPath}`], { maxBuffer: 64 * 1024 * 1024 });
    const file = await tmp.write(name, bytes);
    const sidecar = await sidecarFor(file, 'pptx');
    expect(path.basename(sidecar.path)).toBe(`${name}.md`);
    const text = await fs.readFile(sidecar.path, 'utf8');
    expect(text).toMatch(/## Slide 1\b/);
    expect(text.length).toBeGreaterThan(200);
  });
});
