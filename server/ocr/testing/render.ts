// Images of known text for the OCR tests and bench/ocr.mjs, drawn by sharp from SVG (librsvg with the system's
// fonts), so no image tool beyond the app's own dependency is needed: a printed page at a given point size and
// resolution, and a screenshot-like window of small UI text on coloured bars and buttons.
import sharp from 'sharp';

/** English prose of ordinary office vocabulary, cut into pages by `prose`. */
const CORPUS = `The quarterly report describes how the team shipped the new billing system ahead of schedule and within
budget. Customers in three regions moved to monthly invoices, and support requests about late payments fell by
nearly a third. The finance office asks every department to submit its travel expenses before the fifteenth of
each month, with receipts attached and the project code written on the first page. Meeting rooms on the second
floor will be closed for repairs during the first week of March; please book the library or the garden room
instead. Our security review found that several laptops still run an old version of the operating system, and
the help desk will contact their owners to arrange an update. The kitchen will offer vegetarian lunches every
Thursday, and the menu is posted near the elevators. New employees should read the handbook, sign the
confidentiality agreement and return the signed copy to human resources within ten working days. The annual
summer party takes place on the terrace if the weather allows, otherwise in the main hall, and families are
welcome. Printers on every floor now require a badge; documents sent to them are held for two hours before they
are deleted. The warehouse inventory will be counted on Saturday morning, so deliveries that day are moved to
Monday afternoon. Questions about this notice may be sent to the operations manager by email or telephone.`
  .replace(/\s+/g, ' ')
  .trim();

/** `count` words of the corpus from word `start`, wrapping around. */
export function prose(count: number, start = 0): string {
  const words = CORPUS.split(' ');
  return Array.from({ length: count }, (_, i) => words[(start + i) % words.length]).join(' ');
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Lines of at most `chars` characters, broken at spaces. */
export function wrap(text: string, chars: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > chars) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

export interface Page {
  png: Buffer;
  /** The words drawn, in order. */
  text: string;
  width: number;
  height: number;
}

/** A printed page: `text` set in `family` at `points` pt, rendered at `dpi`, 1-inch margins, 1.3 leading. */
export async function renderPage(text: string, { points = 11, dpi = 150, family = 'DejaVu Serif', widthInches = 8.5 } = {}): Promise<Page> {
  const px = (points * dpi) / 72;
  const width = Math.round(widthInches * dpi);
  const margin = dpi;
  // An average glyph of a proportional face is about half its size wide.
  const lines = wrap(text, Math.floor((width - 2 * margin) / (px * 0.52)));
  const lead = px * 1.3;
  // At least a letter page's height (11 in), as a scan is, however little text it holds.
  const height = Math.max(Math.round(11 * dpi), Math.round(2 * margin + lines.length * lead));
  const body = lines.map((l, i) => `<text x="${margin}" y="${(margin + (i + 1) * lead).toFixed(1)}">${escape(l)}</text>`).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/><g font-family="${family}" font-size="${px.toFixed(2)}" fill="#111">${body}</g></svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return { png, text: lines.join('\n'), width, height };
}

/** A 1280×800 window at 1× scale: a title bar, a sidebar of items, a toolbar of buttons and a body of 13 px text,
 *  dark on light and light on dark, as a person's screenshot of an app holds. */
export async function renderScreenshot(): Promise<Page> {
  const parts: string[] = [];
  const words: string[] = [];
  const put = (x: number, y: number, s: string, size = 13, fill = '#1f2328', weight = 'normal') => {
    parts.push(`<text x="${x}" y="${y}" font-size="${size}" fill="${fill}" font-weight="${weight}">${escape(s)}</text>`);
    words.push(s);
  };
  parts.push('<rect width="1280" height="800" fill="#ffffff"/><rect width="1280" height="36" fill="#24292f"/><rect y="36" width="240" height="764" fill="#f6f8fa"/>');
  put(16, 24, 'Project dashboard settings', 14, '#ffffff', 'bold');
  const items = ['Overview', 'Invoices', 'Customers', 'Reports', 'Billing history', 'Team members', 'Security keys', 'Notifications'];
  items.forEach((item, i) => put(24, 72 + i * 32, item));
  const buttons = ['Export report', 'Send invoice', 'Archive'];
  buttons.forEach((b, i) => {
    const x = 264 + i * 140;
    parts.push(`<rect x="${x}" y="52" width="128" height="30" rx="6" fill="${i === 0 ? '#2da44e' : '#eaeef2'}"/>`);
    put(x + 14, 72, b, 13, i === 0 ? '#ffffff' : '#24292f');
  });
  const lines = wrap(prose(150, 40), 120);
  lines.forEach((l, i) => put(264, 120 + i * 22, l));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="800" font-family="DejaVu Sans">${parts.join('')}</svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return { png, text: words.join('\n'), width: 1280, height: 800 };
}

/** Lowercased words without surrounding punctuation: what recall compares. */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter(Boolean);
}

/** The share of the reference's words (as a multiset) found in the recognized text. */
export function wordRecall(reference: string, recognized: string): number {
  const found = new Map<string, number>();
  for (const w of wordsOf(recognized)) found.set(w, (found.get(w) ?? 0) + 1);
  const ref = wordsOf(reference);
  let hit = 0;
  for (const w of ref) {
    const n = found.get(w) ?? 0;
    if (n > 0) {
      hit += 1;
      found.set(w, n - 1);
    }
  }
  return ref.length === 0 ? 1 : hit / ref.length;
}

/** One page of a scanned PDF: an image drawn over the whole page, as a scanner writes it. */
export interface ScanPage {
  /** 'jpeg': an 8-bit grayscale JPEG (DCTDecode); 'bilevel': 1 bit per pixel, Flate-compressed (a fax-like scan). */
  kind: 'jpeg' | 'bilevel';
  png: Buffer;
}

/** A PDF of scanned pages without any text layer, written by hand (objects, xref, trailer). */
export async function scannedPdf(pages: ScanPage[]): Promise<Buffer> {
  const { deflateSync } = await import('node:zlib');
  const objects: Buffer[] = [];
  const add = (body: Buffer | string) => objects.push(Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1')) ;
  const stream = (dict: string, data: Buffer) => Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
  // 1: catalog, 2: pages, then per page: page, content, image.
  add('<< /Type /Catalog /Pages 2 0 R >>');
  const kids = pages.map((_, i) => `${3 + i * 3} 0 R`).join(' ');
  add(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  for (const [i, p] of pages.entries()) {
    const n = 3 + i * 3;
    const { data, info } = await sharp(p.png).flatten({ background: '#fff' }).grayscale().raw().toBuffer({ resolveWithObject: true });
    const { width, height } = info;
    // 72 pt per inch, the image at 150 dpi.
    const w = (width * 72) / 150;
    const h = (height * 72) / 150;
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w.toFixed(2)} ${h.toFixed(2)}] /Resources << /XObject << /Im0 ${n + 2} 0 R >> >> /Contents ${n + 1} 0 R >>`);
    add(stream('', Buffer.from(`q ${w.toFixed(2)} 0 0 ${h.toFixed(2)} 0 0 cm /Im0 Do Q`, 'latin1')));
    if (p.kind === 'jpeg') {
      const jpeg = await sharp(data, { raw: { width, height, channels: 1 } }).jpeg({ quality: 85 }).toBuffer();
      add(stream(`/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode`, jpeg));
    } else {
      // 1 bit per pixel, 0 black, rows padded to whole bytes.
      const rowBytes = (width + 7) >> 3;
      const bits = Buffer.alloc(rowBytes * height);
      for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (data[y * width + x]! >= 128) bits[y * rowBytes + (x >> 3)]! |= 0x80 >> (x & 7);
      add(stream(`/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /FlateDecode`, deflateSync(bits)));
    }
  }
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let at = parts[0]!.length;
  objects.forEach((body, i) => {
    offsets.push(at);
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(obj);
    at += obj.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`;
  parts.push(Buffer.from(xref, 'latin1'));
  return Buffer.concat(parts);
}
