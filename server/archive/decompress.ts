// The compression layer under a tar stream. Each decoder is a stream fed from the file in chunks, never a
// whole buffer, so memory stays flat whatever the archive's size.
//   gzip: Node's zlib (asynchronous, off the main thread).
//   bzip2: see bunzip2-parallel.ts (streams side by side) and bunzip2.ts (one stream).
//   xz: xz-decompress, xz-embedded compiled to WebAssembly (httptoolkit's maintained fork of xzwasm; no
//   native code, so no per-OS or per-Electron-ABI builds, and no system `xz`). Its dictionary is capped
//   at 64 MiB (xz -9 uses 64 MiB), which bounds the decoder's memory; a larger one is a decode error.
//   Native liblzma bindings (lzma-native, node-liblzma) were rejected for needing per-platform binaries.
import fs from 'node:fs';
import { Readable, pipeline } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import zlib from 'node:zlib';
// A webpack UMD bundle: Node's ESM loader sees only its default export.
import xzDecompress from 'xz-decompress';
import { openBzip2File } from './bunzip2-parallel.js';
import { Bunzip2 } from './bunzip2.js';
import { EXTRACT_CHUNK_BYTES } from './limits.js';

const { XzReadableStream } = xzDecompress;

export type TarKind = 'tar' | 'tar.gz' | 'tar.bz2' | 'tar.xz';

/** The decompressed tar bytes of `archivePath`. Destroying the result releases the file and the decoder. */
export function openTarStream(archivePath: string, kind: TarKind): Readable {
  // It opens the file itself: its workers read their streams by position.
  if (kind === 'tar.bz2') return openBzip2File(archivePath);
  return decompressedTar(fs.createReadStream(archivePath, { highWaterMark: EXTRACT_CHUNK_BYTES }), kind);
}

/**
 * The tar bytes of the compressed `source`, for a reader that holds the archive open already (a listing read
 * through a descriptor, agent/read/archive-file.ts). bzip2 decodes here as one stream in one worker (bunzip2.ts):
 * a listing reads members in order and stops early, where the extraction's parallel decoder pays off only for
 * a whole archive.
 */
export function decompressedTar(source: Readable, kind: TarKind): Readable {
  switch (kind) {
    case 'tar':
      return source;
    case 'tar.gz':
      return pipeline(source, zlib.createGunzip({ chunkSize: EXTRACT_CHUNK_BYTES }), noop);
    case 'tar.bz2':
      return pipeline(source, new Bunzip2(), noop);
    case 'tar.xz': {
      const compressed = Readable.toWeb(source) as unknown as ConstructorParameters<typeof XzReadableStream>[0];
      return Readable.fromWeb(new XzReadableStream(compressed) as unknown as WebReadableStream<Uint8Array>);
    }
  }
}

// pipeline's callback is required; failures surface through the returned stream, which pipeline destroys.
function noop(): void {}
