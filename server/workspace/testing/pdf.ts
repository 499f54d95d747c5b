// PDFs for tests: hand-built ones, byte for byte (exact cross-reference table, optional Flate streams), for the
// shapes no tool writes on purpose (a decompression bomb among them), and documents LibreOffice writes, for the
// shape people's PDFs have.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { createDeflate, deflateSync } from 'node:zlib';
import { sofficeConvert } from '../../office/testing/soffice.js';

export interface PdfSource {
  /** One content stream per page (PDF operators); equal strings share one stream object. */
  pages: string[];
  title?: string;
  /** Flate-compress the content streams. */
  compress?: boolean;
}

/** A PDF with one Helvetica font and the given page contents. */
export function buildPdf({ pages, title, compress = false }: PdfSource): Buffer {
  const objects: (string | Buffer)[] = [];
  const add = (body: string | Buffer) => objects.push(body);
  add('');
  add('');
  const catalog = 1;
  const pagesId = 2;
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const streams = new Map<string, number>();
  const kids: number[] = [];
  for (const content of pages) {
    let stream = streams.get(content);
    if (stream === undefined) {
      const data = compress ? deflateSync(Buffer.from(content, 'latin1')) : Buffer.from(content, 'latin1');
      stream = add(Buffer.concat([Buffer.from(`<< /Length ${data.length}${compress ? ' /Filter /FlateDecode' : ''} >>\nstream\n`), data, Buffer.from('\nendstream')]));
      streams.set(content, stream);
    }
    kids.push(add(`<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${stream} 0 R >>`));
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesId} 0 R >>`;
  objects[pagesId - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const info = title === undefined ? 0 : add(`<< /Title (${title}) >>`);
  return assemble(objects, catalog, info);
}

/** Objects numbered from 1, with an exact cross-reference table; `info` 0 for none. */
function assemble(objects: (string | Buffer)[], catalog: number, info: number): Buffer {
  const parts = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const bytes = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), typeof body === 'string' ? Buffer.from(body, 'latin1') : body, Buffer.from('\nendobj\n')]);
    parts.push(bytes);
    offset += bytes.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  const trailer = `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${info ? ` /Info ${info} 0 R` : ''} >>\nstartxref\n${offset}\n%%EOF\n`;
  parts.push(Buffer.from(xref + trailer, 'latin1'));
  return Buffer.concat(parts);
}

/** A one-page PDF whose content stream is `inflatedMiB` MiB of spaces, Flate-compressed about 1000:1: a
 *  decompression bomb (2 MiB of file for 2 GiB). Deflated in chunks, never held inflated. */
export async function flateBombPdf(inflatedMiB: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => deflate.once('end', resolve));
  const block = Buffer.alloc(1024 * 1024, 0x20);
  for (let i = 0; i < inflatedMiB; i++) if (!deflate.write(block)) await new Promise((resolve) => deflate.once('drain', resolve));
  deflate.end();
  await ended;
  const data = Buffer.concat(chunks);
  return assemble(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
      Buffer.concat([Buffer.from(`<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`), data, Buffer.from('\nendstream')]),
    ],
    1,
    0,
  );
}

/** A page that shows `line` at the top. */
export const textPage = (line: string): string => `BT /F1 12 Tf 72 720 Td (${line}) Tj ET`;

/** The plain text `text` as a PDF written by LibreOffice Writer (`soffice --convert-to pdf`), in `dir`. */
export async function libreOfficePdf(dir: string, name: string, text: string): Promise<Buffer> {
  const source = path.join(dir, `${name}.txt`);
  await fs.writeFile(source, text);
  const [pdf] = await sofficeConvert([source], 'pdf', dir);
  return fs.readFile(pdf!);
}
