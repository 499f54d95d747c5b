// What the xz decoder (xz-decompress: xz-embedded built for WebAssembly with LZMA2 only) cannot read, named
// before a byte is decoded. Measured on archives made by xz 5.4: the CRC32, CRC64 and no-check variants
// decode (also pixz's multi-block ones); `--check=sha256` and every filter in front of LZMA2 (`--x86`,
// `--arm`, `--arm64`, `--armthumb`, `--powerpc`, `--ia64`, `--sparc`, `--delta`) fail in the decoder with
// XZ_OPTIONS_ERROR. The decoders that read them are native liblzma bindings or Rust addons (per-platform
// binaries, which this app does not ship), so such an archive is refused with a 400 that says which option
// it used, and the user can recompress it with the defaults.
import fsp from 'node:fs/promises';
import { ValueError } from '../core/errors.js';

const STREAM_HEADER_BYTES = 12;
const MAGIC = Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]);
/** The largest block header (1024 bytes) after the stream header: enough to read the first block's filters. */
const HEAD_BYTES = STREAM_HEADER_BYTES + 1024;

const CHECKS: ReadonlyMap<number, string | null> = new Map([
  [0x00, null],
  [0x01, null],
  [0x04, null],
  [0x0a, 'SHA-256 check'],
]);
const LZMA2 = 0x21;
const FILTERS: ReadonlyMap<number, string> = new Map([
  [0x03, 'Delta filter'],
  [0x04, 'x86 BCJ filter'],
  [0x05, 'PowerPC BCJ filter'],
  [0x06, 'IA-64 BCJ filter'],
  [0x07, 'ARM BCJ filter'],
  [0x08, 'ARM-Thumb BCJ filter'],
  [0x09, 'SPARC BCJ filter'],
  [0x0a, 'ARM64 BCJ filter'],
  [0x0b, 'RISC-V BCJ filter'],
]);
// xz-embedded's XZ_OPTIONS_ERROR, as xz-decompress reports it.
const OPTIONS_ERROR = /error code 6$/;

export function unsupportedXzOption(option: string): ValueError {
  return new ValueError(`Unsupported xz option (${option}); recompress with xz's default check and filters`);
}

/** Throw the named 400 when the archive's first stream uses a check or a filter the decoder lacks. */
export async function checkXzOptions(archivePath: string): Promise<void> {
  const handle = await fsp.open(archivePath, 'r');
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  const option = firstUnsupported(head);
  if (option) throw unsupportedXzOption(option);
}

/** The decoder's own failure on an option met later (a second stream or block): the same kind of 400. */
export function xzDecodeFailure(err: unknown): unknown {
  return err instanceof Error && OPTIONS_ERROR.test(err.message) ? unsupportedXzOption('a check or filter in a later block') : err;
}

/** The unsupported option of the stream header and first block header; null when fine or not readable as xz
 *  (then the decoder reports the damage). */
export function firstUnsupported(head: Buffer): string | null {
  if (head.length < STREAM_HEADER_BYTES || !head.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const check = head[7]! & 0x0f;
  const checkProblem = CHECKS.has(check) ? CHECKS.get(check)! : `check type ${check}`;
  if (checkProblem) return checkProblem;
  const at = STREAM_HEADER_BYTES;
  if (head.length <= at + 1 || head[at] === 0) return null; // no block (an index follows): nothing to decode
  const headerEnd = at + (head[at]! + 1) * 4;
  if (headerEnd > head.length) return null;
  const flags = head[at + 1]!;
  let pos = at + 2;
  const vli = (): number | null => {
    let value = 0;
    for (let i = 0; i < 9 && pos < headerEnd; i++) {
      const byte = head[pos++]!;
      value += (byte & 0x7f) * 2 ** (7 * i);
      if ((byte & 0x80) === 0) return value;
    }
    return null;
  };
  if (flags & 0x40 && vli() === null) return null;
  if (flags & 0x80 && vli() === null) return null;
  const filters = (flags & 0x03) + 1;
  for (let i = 0; i < filters; i++) {
    const id = vli();
    const propsSize = vli();
    if (id === null || propsSize === null) return null;
    pos += propsSize;
    if (id !== LZMA2) return FILTERS.get(id) ?? `filter 0x${id.toString(16)}`;
  }
  return null;
}
