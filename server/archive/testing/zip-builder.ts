// Builds zip files byte by byte, for the hostile shapes no well-behaved writer will produce: traversal
// names, symlink mode bits, lying sizes, central-directory entries that share one local header.
import zlib from 'node:zlib';

export interface RawZipEntry {
  name: string;
  /** Uncompressed content; stored or deflated according to `method`. */
  content?: Buffer;
  method?: 0 | 8;
  /** Unix mode for the high half of the external attributes (e.g. 0o120777 for a symlink). */
  unixMode?: number;
  /** The member's data already compressed by `method` (a bomb too large to hold uncompressed); crc then 0. */
  compressed?: Buffer;
  /** Override the sizes written in both headers (to lie). */
  declaredSize?: number;
  /** Point this central-directory record at another entry's local header (overlapping-entry bombs). */
  shareLocalHeaderOf?: number;
}

export interface ZipOptions {
  /** Override the entry count in the end-of-central-directory record. */
  declaredCount?: number;
}

const UNIX_HOST = 3 << 8;
const VERSION = 20;

export function buildZip(entries: RawZipEntry[], options: ZipOptions = {}): Buffer {
  const locals: Buffer[] = [];
  const offsets: number[] = [];
  const records: Array<{ name: Buffer; crc: number; csize: number; usize: number; method: number }> = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const content = entry.content ?? Buffer.alloc(0);
    const method = entry.method ?? 0;
    const data = entry.compressed ?? (method === 8 ? zlib.deflateRawSync(content, { level: 9 }) : content);
    const crc = entry.compressed ? 0 : zlib.crc32(content);
    const usize = entry.declaredSize ?? content.length;
    const csize = method === 0 && entry.declaredSize !== undefined ? entry.declaredSize : data.length;
    records.push({ name, crc, csize, usize, method });
    if (entry.shareLocalHeaderOf !== undefined) {
      offsets.push(offsets[entry.shareLocalHeaderOf]!);
      continue;
    }
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(VERSION, 4);
    header.writeUInt16LE(0x800, 6); // UTF-8 names
    header.writeUInt16LE(method, 8);
    header.writeUInt32LE(crc, 14);
    header.writeUInt32LE(csize, 18);
    header.writeUInt32LE(usize, 22);
    header.writeUInt16LE(name.length, 26);
    offsets.push(offset);
    locals.push(header, name, data);
    offset += header.length + name.length + data.length;
  }
  const central: Buffer[] = [];
  let centralSize = 0;
  entries.forEach((entry, i) => {
    const r = records[i]!;
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(UNIX_HOST | VERSION, 4);
    header.writeUInt16LE(VERSION, 6);
    header.writeUInt16LE(0x800, 8);
    header.writeUInt16LE(r.method, 10);
    header.writeUInt32LE(r.crc, 16);
    header.writeUInt32LE(r.csize, 20);
    header.writeUInt32LE(r.usize, 24);
    header.writeUInt16LE(r.name.length, 28);
    header.writeUInt32LE(((entry.unixMode ?? 0o100644) << 16) >>> 0, 38);
    header.writeUInt32LE(offsets[i]!, 42);
    central.push(header, r.name);
    centralSize += header.length + r.name.length;
  });
  const end = Buffer.alloc(22);
  const count = options.declaredCount ?? entries.length;
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(count, 0xffff), 8);
  end.writeUInt16LE(Math.min(count, 0xffff), 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...central, end]);
}
