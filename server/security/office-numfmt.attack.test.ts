// Attack: spreadsheet number formats are attacker text handed to numfmt. A format code a few KiB long costs
// numfmt time and output in proportion (a 100,000-character `[` run took 11 s to refuse, and a refused code is
// parsed again for every cell; `0` x 1,000,000 renders a megabyte per cell), all inside the one Office
// conversion slot. Excel itself refuses custom formats over 255 characters, so no real workbook has one:
// such a code is shown as General, through the live preview route.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildXlsx, relsXml } from '../office/testing/fixtures.js';
import { formatCell, MAX_FORMAT_CODE_CHARS } from '../office/number-format.js';
import { startTestServer, type TestServer } from '../testing/harness.js';

const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const HOSTILE_CODES = ['0'.repeat(100_000), '['.repeat(20_000), `"${'A'.repeat(100_000)}"0`];

/** A workbook whose style i (cell `s`) is HOSTILE_CODES[i], one row of cells holding 1 in each. */
function hostileWorkbook(): Promise<Buffer> {
  const numFmts = HOSTILE_CODES.map((code, i) => `<numFmt numFmtId="${164 + i}" formatCode="${code.replace(/"/g, '&quot;')}"/>`).join('');
  const xfs = HOSTILE_CODES.map((_, i) => `<xf numFmtId="${164 + i}"/>`).join('');
  const cells = HOSTILE_CODES.map((_, i) => `<c r="${String.fromCharCode(65 + i)}1" s="${i}"><v>1</v></c>`).join('');
  return buildXlsx([{ name: 'Sheet1', sheetData: `<row r="1">${cells}</row>` }], undefined, [
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: relsXml([
        { id: 'rId1', type: 'worksheet', target: 'worksheets/sheet1.xml' },
        { id: 'rIdY', type: 'styles', target: 'styles.xml' },
      ]),
    },
    // Random bytes in a comment keep the part's compression ratio under the zip-bomb guard's 200.
    { name: 'xl/styles.xml', data: `<?xml version="1.0" encoding="UTF-8"?><!-- ${randomBytes(8192).toString('base64')} --><styleSheet xmlns="${S}"><numFmts>${numFmts}</numFmts><cellXfs>${xfs}</cellXfs></styleSheet>` },
  ]);
}

let srv: TestServer;
let session: string;
beforeAll(async () => {
  srv = await startTestServer();
  session = await srv.newSession();
  await fs.writeFile(path.join(srv.workspace, 'hostile.xlsx'), await hostileWorkbook());
});
afterAll(async () => {
  await srv.stop();
});

it('a format code longer than Excel allows is not interpreted: the value shows as General', () => {
  for (const code of HOSTILE_CODES) expect(formatCell(1, code)).toBe('1');
  // The control: a real code at Excel's length limit still formats. Padded with a quoted literal, not decimals:
  // 253 decimal places print the double's binary noise (numfmt 3.2.6 shows 1.0000000000000002…).
  const literal = 'x'.repeat(MAX_FORMAT_CODE_CHARS - '0""'.length);
  expect(formatCell(1, `0"${literal}"`)).toBe(`1${literal}`);
});

it('the preview of a workbook with hostile format codes shows each value as General', async () => {
  const res = await srv.api(`/api/workspace/preview?session_id=${session}&path=hostile.xlsx`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { kind: string; text?: string };
  expect(body.kind, JSON.stringify(body).slice(0, 300)).toBe("office");
  expect(body.text, JSON.stringify(body).slice(0, 300)).toBeDefined();
  expect(body.text).toMatch(/\| 1 \| 1 \| 1 \|/);
  expect(body.text).not.toMatch(/0{300}|A{300}/);
});
