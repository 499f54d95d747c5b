// Sidecars of Office files made by a real tool (LibreOffice), not by our own builders: Word headers, footers,
// comments and image descriptions; PowerPoint notes and image descriptions on a deck of more than 256 members;
// spreadsheet values through their number formats, in the 1900 and the 1904 date systems.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readGuardedZip } from './guarded-zip.js';
import { OFFICE_LIMITS, officeToMarkdown } from './index.js';
import { REAL_SOURCES, SOFFICE, SOFFICE_MISSING, sofficeConvert } from './testing/soffice.js';

if (!SOFFICE) console.warn(`skipping real-file sidecar tests: ${SOFFICE_MISSING}`);

// Enough slides that the deck has over 256 zip members (each slide brings a slide, a notes page and their
// relationships), the count that real decks reached and the old guard refused.
const BIG_DECK_SLIDES = 80;

describe.skipIf(!SOFFICE)('sidecars of files LibreOffice wrote', () => {
  let dir = '';
  const files: Record<string, string> = {};
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'satchel-office-real-'));
    const src = (name: string) => path.join(REAL_SOURCES, name);
    const deck = await fs.readFile(src('deck.fodp'), 'utf8');
    const pages = Array.from({ length: BIG_DECK_SLIDES }, (_, i) =>
      `<draw:page draw:name="p${i}" draw:master-page-name="Default"><draw:frame presentation:class="title" svg:x="2cm" svg:y="1cm" svg:width="24cm" svg:height="3cm"><draw:text-box><text:p>Slide title ${i + 1}</text:p></draw:text-box></draw:frame>` +
      `<presentation:notes><draw:frame presentation:class="notes" svg:x="2cm" svg:y="14cm" svg:width="17cm" svg:height="10cm"><draw:text-box><text:p>Speaker note ${i + 1}</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>`,
    ).join('');
    await fs.writeFile(path.join(dir, 'big.fodp'), deck.replace(/<draw:page [\s\S]*<\/draw:page>/, pages));
    const sheet = await fs.readFile(src('figures.fods'), 'utf8');
    const nullDate1904 = '<table:calculation-settings><table:null-date table:date-value="1904-01-01"/></table:calculation-settings>';
    await fs.writeFile(path.join(dir, 'figures1904.fods'), sheet.replace('<office:spreadsheet>', `<office:spreadsheet>${nullDate1904}`));
    [files.docx] = (await sofficeConvert([src('report.fodt')], 'docx', dir)) as [string];
    [files.pptx, files.bigPptx] = (await sofficeConvert([src('deck.fodp'), path.join(dir, 'big.fodp')], 'pptx', dir)) as [string, string];
    // A euro amount as LibreOffice formats one (`#,##0.00 [$€-407]` in the xlsx), and a value on a decimal half.
    const money =
      '<number:currency-style style:name="Neur"><number:number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1" number:grouping="true"/><number:text> </number:text><number:currency-symbol number:language="de" number:country="DE">€</number:currency-symbol></number:currency-style>' +
      '<style:style style:name="ceur" style:family="table-cell" style:data-style-name="Neur"/></office:automatic-styles>';
    const moneyRow =
      '<table:table-row><table:table-cell office:value-type="string"><text:p>Fare</text:p></table:table-cell><table:table-cell table:style-name="ceur" office:value-type="currency" office:currency="EUR" office:value="17929.84"/>' +
      '<table:table-cell table:style-name="cthou" office:value-type="float" office:value="16962.315"/></table:table-row></table:table>';
    await fs.writeFile(path.join(dir, 'money.fods'), sheet.replace('</office:automatic-styles>', money).replace('</table:table>', moneyRow));
    [files.xlsx, files.xlsx1904, files.money] = (await sofficeConvert(
      [src('figures.fods'), path.join(dir, 'figures1904.fods'), path.join(dir, 'money.fods')],
      'xlsx',
      dir,
    )) as [string, string, string];
  });
  afterAll(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('docx: the body, then header, footer, comments and image descriptions under their own headings', async () => {
    expect(await officeToMarkdown(files.docx!, 'docx')).toBe(
      [
        '## Header',
        'Quarterly header Zanzibar',
        '# Annual review',
        'The body paragraph mentions pelicans.',
        '## Footer',
        'Confidential footer Quokka',
        '## Comments',
        'Ada Lovelace: Please check the pelican count',
        '## Image descriptions',
        'A walrus on a beach',
      ].join('\n\n') + '\n',
    );
  });

  it('pptx: each slide, then its image descriptions and its speaker notes', async () => {
    expect(await officeToMarkdown(files.pptx!, 'pptx')).toBe(
      [
        '## Slide 1\n\n- Migration of the herons\n- Herons leave in October\n- They return in spring',
        '### Image descriptions\n\n- Map of the flyway over Gibraltar',
        '### Notes\n\nMention the storks briefly\n\nAsk the audience about wetlands',
        '## Slide 2\n\n- Budget\n- Binoculars for volunteers',
        '### Notes\n\nFinance approved in March',
      ].join('\n\n') + '\n',
    );
  });

  it(`pptx: a deck of more than 256 members (${BIG_DECK_SLIDES} slides with notes) converts whole`, async () => {
    const members = await readGuardedZip(await fs.readFile(files.bigPptx!), OFFICE_LIMITS);
    expect(members.size).toBeGreaterThan(256);
    const md = await officeToMarkdown(files.bigPptx!, 'pptx');
    expect(md.match(/^## Slide \d+$/gm)).toHaveLength(BIG_DECK_SLIDES);
    expect(md).toContain(`- Slide title ${BIG_DECK_SLIDES}\n\n### Notes\n\nSpeaker note ${BIG_DECK_SLIDES}\n`);
  });

  const ledger = [
    '## Ledger',
    '| Item | Due | Time | Rate | Amount | Raw |\n| --- | --- | --- | --- | --- | --- |\n' +
      '| Kayak | 21/11/20 | 14:30 | 6.17% | 1,234,567.89 | 0.0617 |\n' +
      '| Paddle | 2021-02-03 | 08:05 | 50.00% | 2,469,135.78 | 0.1617 |',
    '## Notes sheet',
    '| Remember the lighthouse |\n| --- |',
  ].join('\n\n') + '\n';

  it('xlsx: dates, times, percentages, grouped decimals and formulas as the sheet shows them', async () => {
    expect(await officeToMarkdown(files.xlsx!, 'xlsx')).toBe(ledger);
  });

  it('xlsx: a euro amount and a decimal half read as LibreOffice shows them', async () => {
    const members = await readGuardedZip(await fs.readFile(files.money!), OFFICE_LIMITS);
    expect(members.get('xl/styles.xml')!.toString()).toContain('[$€-407]');
    // LibreOffice: 17,929.84 € (English separators, the symbol's locale only names the symbol) and 16,962.32.
    expect(await officeToMarkdown(files.money!, 'xlsx')).toContain('| Fare | 17,929.84 € | 16,962.32 |');
  });

  it('xlsx: a workbook in the 1904 date system shows the same dates', async () => {
    // LibreOffice stores the same day as a serial 1462 lower, and says so in workbookPr.
    const members = await readGuardedZip(await fs.readFile(files.xlsx1904!), OFFICE_LIMITS);
    expect(members.get('xl/workbook.xml')!.toString()).toMatch(/date1904="(true|1)"/);
    expect(await officeToMarkdown(files.xlsx1904!, 'xlsx')).toBe(ledger);
  });
});
