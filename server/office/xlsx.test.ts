import { describe, expect, it } from 'vitest';
import { officeToMarkdown } from './index.js';
import { buildXlsx, relsXml, type SheetSpec } from './testing/fixtures.js';
import { useTmpDir } from './testing/tmpdir.js';
import { columnOf, XLSX_MAX_COLS, XLSX_MAX_ROWS } from './xlsx.js';

const tmp = useTmpDir();

async function xlsxMarkdown(sheets: SheetSpec[], shared?: string[]): Promise<string> {
  return officeToMarkdown(await tmp.write('book.xlsx', await buildXlsx(sheets, shared)), 'xlsx');
}

describe('xlsx to Markdown', () => {
  it('renders each sheet as a heading and a table of shared, inline, numeric and boolean cells', async () => {
    const shared = [
      '<si><t>Item</t></si>',
      '<si><t>Price</t></si>',
      // Rich text: the runs are joined; the phonetic guide is not text.
      '<si><r><t>Red </t></r><r><rPr><b/></rPr><t>apple</t></r><rPh sb="0" eb="1"><t>ignored</t></rPh></si>',
    ];
    const md = await xlsxMarkdown(
      [
        {
          name: 'Fruit',
          sheetData:
            '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="inlineStr"><is><t>Fresh</t></is></c></row>' +
            '<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>1.25</v></c><c r="C2" t="b"><v>1</v></c></row>' +
            '<row r="3"><c r="A3" t="str"><f>A1</f><v>a|b</v></c><c r="C3" t="b"><v>0</v></c></row>',
        },
        { name: 'Empty', sheetData: '' },
      ],
      shared,
    );
    expect(md).toBe(
      '## Fruit\n\n| Item | Price | Fresh |\n| --- | --- | --- |\n| Red apple | 1.25 | TRUE |\n| a\\|b | | FALSE |\n\n' +
        '## Empty\n\n*(empty sheet)*\n',
    );
  });

  it('places cells by reference, skips empty rows and trims the unused leading columns', async () => {
    const md = await xlsxMarkdown([
      {
        name: 'Sparse',
        sheetData: '<row r="3"><c r="C3"><v>1</v></c></row><row r="9"><c r="E9"><v>2</v></c></row>',
      },
    ]);
    expect(md).toBe('## Sparse\n\n| 1 | | |\n| --- | --- | --- |\n| | | 2 |\n');
  });

  it('follows rows and cells without references in order', async () => {
    const md = await xlsxMarkdown([{ name: 'S', sheetData: '<row><c><v>1</v></c><c><v>2</v></c></row><row><c><v>3</v></c></row>' }]);
    expect(md).toBe('## S\n\n| 1 | 2 |\n| --- | --- |\n| 3 | |\n');
  });

  it('decodes the _xHHHH_ escapes and escapes Markdown in sheet names and cells', async () => {
    const md = await xlsxMarkdown(
      [{ name: 'Q*1', sheetData: '<row r="1"><c r="A1" t="s"><v>0</v></c></row>' }],
      ['<si><t>a_x000D_b_x005F_x000D_ *c*</t></si>'],
    );
    expect(md).toBe('## Q\\*1\n\n| a b\\_x000D\\_ \\*c\\* |\n| --- |\n');
  });

  it('caps rows and columns with named limits and says what was left out', async () => {
    const cols = XLSX_MAX_COLS + 2;
    const rows = XLSX_MAX_ROWS + 3;
    let data = '';
    for (let r = 1; r <= rows; r += 1) {
      data += `<row r="${r}">`;
      for (let c = 1; c <= (r === 1 ? cols : 1); c += 1) data += `<c><v>${r * 1000 + c}</v></c>`;
      data += '</row>';
    }
    const md = await xlsxMarkdown([{ name: 'Big', sheetData: data }]);
    const lines = md.trimEnd().split('\n');
    expect(lines[2]).toBe(`| ${Array.from({ length: XLSX_MAX_COLS }, (_, i) => 1001 + i).join(' | ')} |`);
    // heading, blank, header row, separator, then XLSX_MAX_ROWS - 1 body rows, blank, note.
    expect(lines).toHaveLength(4 + XLSX_MAX_ROWS - 1 + 2);
    expect(lines.at(-3)).toBe(`| ${XLSX_MAX_ROWS * 1000 + 1} |${' |'.repeat(XLSX_MAX_COLS - 1)}`);
    expect(lines.at(-1)).toBe('*(3 more rows and 2 more columns not shown)*');
  });

  it("reads shared strings written as Excel 2007 beta's <sstItem>", async () => {
    const sheetData = '<row r="1"><c r="A1" t="s"><v>1</v></c><c r="B1"><v>111</v></c></row><row r="2"><c r="A2" t="s"><v>0</v></c></row>';
    expect(await xlsxMarkdown([{ name: 'Beta', sheetData }], ['<sstItem><t>Lorem</t></sstItem>', '<sstItem><t>ipsum</t></sstItem>'])).toBe(
      '## Beta\n\n| ipsum | 111 |\n| --- | --- |\n| Lorem | |\n',
    );
  });

  it('throws on a reference to a missing shared string', async () => {
    await expect(xlsxMarkdown([{ name: 'S', sheetData: '<row r="1"><c r="A1" t="s"><v>7</v></c></row>' }], [])).rejects.toThrow(
      'Cell refers to a missing shared string: 7',
    );
  });

  it('throws on malformed sheet XML and on a missing sheet part', async () => {
    await expect(xlsxMarkdown([{ name: 'S', sheetData: '<row><c><v>1</v></row>' }])).rejects.toThrow(
      /^Malformed XML in xl\/worksheets\/sheet1\.xml/,
    );
    const missing = await buildXlsx([{ name: 'S', sheetData: '' }], undefined, [
      { name: 'xl/_rels/workbook.xml.rels', data: relsXml([{ id: 'rId1', type: 'worksheet', target: 'worksheets/gone.xml' }]) },
    ]);
    await expect(officeToMarkdown(await tmp.write('missing.xlsx', missing), 'xlsx')).rejects.toThrow(
      'Office file is missing a part: xl/worksheets/gone.xml',
    );
  });

  it('reads column letters', () => {
    expect([columnOf('A1'), columnOf('Z9'), columnOf('AA10'), columnOf('XFD1'), columnOf('1A'), columnOf(undefined)]).toEqual([
      1, 26, 27, 16384, undefined, undefined,
    ]);
  });
});

describe('xlsx tables and charts', () => {
  const C = 'http://schemas.openxmlformats.org/drawingml/2006/chart';
  const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
  const XDR = 'http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing';
  const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';

  it('puts each named table under its own heading, then chart titles and image descriptions', async () => {
    const cell = (ref: string, v: number) => `<c r="${ref}"><v>${v}</v></c>`;
    const sheetData = `<row r="1">${cell('A1', 1)}</row><row r="3">${cell('B3', 2)}${cell('C3', 3)}</row><row r="4">${cell('B4', 4)}${cell('C4', 5)}</row>`;
    const extra = [
      { name: 'xl/worksheets/_rels/sheet1.xml.rels', data: relsXml([{ id: 'rT', type: 'table', target: '../tables/table1.xml' }, { id: 'rD', type: 'drawing', target: '../drawings/drawing1.xml' }]) },
      { name: 'xl/tables/table1.xml', data: `<table xmlns="${S}" id="1" name="Table1" displayName="Harvest" ref="B3:C4"/>` },
      {
        name: 'xl/drawings/drawing1.xml',
        data:
          `<xdr:wsDr xmlns:xdr="${XDR}" xmlns:a="${A}" xmlns:c="${C}" xmlns:r="${R}">` +
          `<xdr:twoCellAnchor><xdr:graphicFrame><xdr:nvGraphicFramePr><xdr:cNvPr id="2" name="Chart 1"/></xdr:nvGraphicFramePr><a:graphic><a:graphicData><c:chart r:id="rC"/></a:graphicData></a:graphic></xdr:graphicFrame></xdr:twoCellAnchor>` +
          `<xdr:twoCellAnchor><xdr:pic><xdr:nvPicPr><xdr:cNvPr id="3" name="Picture 1" descr="Barn at dawn"/></xdr:nvPicPr></xdr:pic></xdr:twoCellAnchor></xdr:wsDr>`,
      },
      { name: 'xl/drawings/_rels/drawing1.xml.rels', data: relsXml([{ id: 'rC', type: 'chart', target: '../charts/chart1.xml' }]) },
      {
        name: 'xl/charts/chart1.xml',
        data: `<c:chartSpace xmlns:c="${C}" xmlns:a="${A}"><c:chart><c:title><c:tx><c:rich><a:p><a:r><a:t>Yield per acre</a:t></a:r></a:p></c:rich></c:tx></c:title></c:chart></c:chartSpace>`,
      },
    ];
    const md = await officeToMarkdown(await tmp.write('t.xlsx', await buildXlsx([{ name: 'Farm', sheetData }], undefined, extra)), 'xlsx');
    expect(md).toBe(
      '## Farm\n\n| 1 |\n| --- |\n\n### Harvest\n\n| 2 | 3 |\n| --- | --- |\n| 4 | 5 |\n\n### Charts\n\n- Yield per acre\n\n### Image descriptions\n\n- Barn at dawn\n',
    );
  });
});
