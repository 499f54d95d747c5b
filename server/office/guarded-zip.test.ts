import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readGuardedZip, type ZipLimits } from './guarded-zip.js';
import { TEXT_PART } from './convert.js';
import { OFFICE_LIMITS } from './index.js';
import { OfficeError } from './office-error.js';
import { buildZip, patchDeclaredSize } from './testing/fixtures.js';

const SMALL: ZipLimits = { maxMembers: 4, maxTotalBytes: 3000, maxMemberBytes: 2000, maxRatio: 10 };

describe('readGuardedZip', () => {
  it('reads members within the limits, keyed by lower-cased name', async () => {
    const zip = await buildZip([
      { name: 'Docs/A.xml', data: 'hello' },
      { name: 'dir/', data: '' },
      { name: 'b.bin', data: crypto.randomBytes(1500), compress: false },
    ]);
    const members = await readGuardedZip(zip, SMALL);
    expect([...members.keys()]).toEqual(['docs/a.xml', 'dir/', 'b.bin']);
    expect(members.get('docs/a.xml')!.toString()).toBe('hello');
    expect(members.get('b.bin')!.length).toBe(1500);
  });

  it('refuses more members than allowed before reading any', async () => {
    const zip = await buildZip(Array.from({ length: 10_001 }, (_, i) => ({ name: `m${i}.xml`, data: 'x', compress: false })));
    await expect(readGuardedZip(zip, OFFICE_LIMITS)).rejects.toThrow('Zip has too many members (10001 > 10000)');
    const exactly = await buildZip(Array.from({ length: 10_000 }, (_, i) => ({ name: `m${i}.xml`, data: 'x', compress: false })));
    expect((await readGuardedZip(exactly, OFFICE_LIMITS)).size).toBe(10_000);
  });

  it('leaves unwanted members compressed: their size and ratio count for nothing', async () => {
    const zip = await buildZip([
      { name: 'doc.xml', data: '<a/>' },
      { name: 'Media/zeros.png', data: Buffer.alloc(3_000_000) },
      { name: 'media/big.png', data: crypto.randomBytes(5_000_000), compress: false },
    ]);
    const members = await readGuardedZip(zip, OFFICE_LIMITS, TEXT_PART);
    expect([...members.keys()]).toEqual(['doc.xml']);
    // The very same package, every member wanted, is refused.
    await expect(readGuardedZip(zip, OFFICE_LIMITS)).rejects.toThrow(OfficeError);
  });

  it('still refuses a bomb inside a wanted member, and a duplicate among unwanted ones', async () => {
    const bomb = await buildZip([{ name: 'ppt/slides/slide1.xml', data: Buffer.alloc(3_000_000) }]);
    await expect(readGuardedZip(bomb, OFFICE_LIMITS, TEXT_PART)).rejects.toThrow('Zip member compression ratio above 200');
    const twice = await buildZip([
      { name: 'a.png', data: 'x' },
      { name: 'A.PNG', data: 'y' },
    ]);
    await expect(readGuardedZip(twice, OFFICE_LIMITS, TEXT_PART)).rejects.toThrow('Zip has a duplicate member: A.PNG');
  });

  it('refuses a member over the per-member limit', async () => {
    const zip = await buildZip([{ name: 'big.bin', data: crypto.randomBytes(4_000_001), compress: false }]);
    await expect(readGuardedZip(zip, OFFICE_LIMITS)).rejects.toThrow('Zip member too large: big.bin (> 4000000 bytes)');
  });

  it('refuses a ratio above the limit: 3 MB of zeros deflated', async () => {
    const zip = await buildZip([{ name: 'zeros.bin', data: Buffer.alloc(3_000_000) }]);
    await expect(readGuardedZip(zip, OFFICE_LIMITS)).rejects.toThrow('Zip member compression ratio above 200: zeros.bin');
  });

  it('refuses more than the total inflated bytes over all members', async () => {
    const zip = await buildZip([1, 2, 3].map((i) => ({ name: `part${i}.bin`, data: crypto.randomBytes(3_000_000) })));
    await expect(readGuardedZip(zip, OFFICE_LIMITS)).rejects.toThrow('Zip is too large when inflated (> 8000000 bytes)');
  });

  it('counts real inflated bytes when the header understates them', async () => {
    const honest = await buildZip([{ name: 'zeros.bin', data: Buffer.alloc(3_000_000) }]);
    // Declared 1000 bytes: ratio and size pass on the headers; the inflated data does not.
    const lying = patchDeclaredSize(honest, 'zeros.bin', 1000);
    const err = await readGuardedZip(lying, OFFICE_LIMITS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OfficeError);
    expect((err as Error).message).toMatch(/^Zip member (unreadable|compression ratio above 200): zeros\.bin/);
  });

  it('refuses a member whose stream is empty but claims content', async () => {
    const zip = patchDeclaredSize(await buildZip([{ name: 'e.bin', data: '' }]), 'e.bin', 10);
    await expect(readGuardedZip(zip, SMALL)).rejects.toThrow(OfficeError);
  });

  it('inflates and counts a directory entry that carries data', async () => {
    const zip = await buildZip([
      { name: 'dir_', data: Buffer.alloc(3_000_000) },
      { name: 'ok.xml', data: '<a/>' },
    ]);
    // Rename the member `dir_` to `dir/` in both headers: a "directory" holding a bomb.
    const renamed = Buffer.from(zip.toString('latin1').replaceAll('dir_', 'dir/'), 'latin1');
    await expect(readGuardedZip(renamed, OFFICE_LIMITS)).rejects.toThrow('Zip member compression ratio above 200: dir/');
  });

  it('refuses duplicate member names, case-insensitively', async () => {
    const zip = await buildZip([
      { name: 'a.xml', data: '1' },
      { name: 'A.XML', data: '2' },
    ]);
    await expect(readGuardedZip(zip, SMALL)).rejects.toThrow('Zip has a duplicate member: A.XML');
  });

  it('names an OLE compound file (encrypted Office) and refuses non-zips', async () => {
    const ole = Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(504)]);
    await expect(readGuardedZip(ole, OFFICE_LIMITS)).rejects.toThrow(
      'Encrypted or legacy Office file (OLE compound document, not a zip)',
    );
    await expect(readGuardedZip(Buffer.from('plain text, not a zip'), OFFICE_LIMITS)).rejects.toThrow(/^Not a readable zip: /);
  });

  it('refuses a truncated zip', async () => {
    const zip = await buildZip([{ name: 'a.xml', data: 'x'.repeat(1000) }]);
    await expect(readGuardedZip(zip.subarray(0, zip.length - 30), SMALL)).rejects.toThrow(OfficeError);
  });
});

describe('error messages', () => {
  it('keep member names printable and short', async () => {
    const name = `evil\nline${'x'.repeat(300)}.bin`;
    const zip = await buildZip([{ name, data: Buffer.alloc(3_000_000) }]);
    const err = (await readGuardedZip(zip, OFFICE_LIMITS).catch((e: unknown) => e)) as Error;
    expect(err.message).toBe(`Zip member compression ratio above 200: evil?line${'x'.repeat(191)}…`);
  });
});
