// Zip member names as unzip and bsdtar read them. Info-ZIP's `zip` on Linux and macOS stores the file system's
// UTF-8 bytes without setting the UTF-8 flag (general purpose bit 11), so a flagless name is decoded as UTF-8
// when its bytes are valid UTF-8 and as CP437 (the format's historical default) only otherwise. An Info-ZIP
// Unicode Path extra field (0x7075) wins when its CRC-32 matches the header's name (APPNOTE 4.6.9): yauzl
// checks that, and falls back to the header's name when it does not match.
import { isUtf8 } from 'node:buffer';
import yauzl from 'yauzl';

const UTF8_FLAG = 0x800;

export function decodeZipName(generalPurposeBitFlag: number, raw: Buffer, extraFields: ReadonlyArray<{ id: number; data: Buffer }>): string {
  const flags = isUtf8(raw) ? generalPurposeBitFlag | UTF8_FLAG : generalPurposeBitFlag;
  return yauzl.getFileNameLowLevel(flags, raw, extraFields as { id: number; data: Buffer }[], true);
}
