// Builds ustar archives byte by byte: node-tar's writer refuses (or rewrites) the hostile members the
// tests need, such as `../x`, absolute names, devices and links to outside files.
export type TarType = 'file' | 'hardlink' | 'symlink' | 'chardev' | 'blockdev' | 'dir' | 'fifo';

const TYPE_FLAGS: Record<TarType, string> = {
  file: '0',
  hardlink: '1',
  symlink: '2',
  chardev: '3',
  blockdev: '4',
  dir: '5',
  fifo: '6',
};

export interface RawTarEntry {
  name: string;
  type?: TarType;
  content?: Buffer;
  linkname?: string;
  /** Override the size in the header (a member whose data the test streams itself). */
  size?: number;
}

const BLOCK = 512;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

export function tarHeader(entry: RawTarEntry): Buffer {
  const header = Buffer.alloc(BLOCK);
  const type = entry.type ?? 'file';
  const size = entry.size ?? (type === 'file' ? (entry.content?.length ?? 0) : 0);
  header.write(entry.name, 0, 100, 'utf8');
  header.write(octal(type === 'dir' ? 0o755 : 0o644, 8), 100, 'ascii');
  header.write(octal(0, 8), 108, 'ascii');
  header.write(octal(0, 8), 116, 'ascii');
  header.write(octal(size, 12), 124, 'ascii');
  header.write(octal(1_700_000_000, 12), 136, 'ascii');
  header.write(TYPE_FLAGS[type], 156, 'ascii');
  if (entry.linkname) header.write(entry.linkname, 157, 100, 'utf8');
  header.write('ustar\0', 257, 'ascii');
  header.write('00', 263, 'ascii');
  if (type === 'chardev' || type === 'blockdev') {
    header.write(octal(1, 8), 329, 'ascii');
    header.write(octal(3, 8), 337, 'ascii');
  }
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  return header;
}

export function buildTar(entries: RawTarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(tarHeader(entry));
    const content = (entry.type ?? 'file') === 'file' ? entry.content : undefined;
    if (content && content.length > 0) {
      parts.push(content, Buffer.alloc((BLOCK - (content.length % BLOCK)) % BLOCK));
    }
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}
