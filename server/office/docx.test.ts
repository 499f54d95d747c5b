import mammoth from 'mammoth';
import { describe, expect, it } from 'vitest';
import { officeToMarkdown } from './index.js';
import { buildDocx, wBullet, wHeading, wNumbered, wPara, wRun, wTable } from './testing/fixtures.js';
import { useTmpDir } from './testing/tmpdir.js';

const tmp = useTmpDir();

async function docxMarkdown(body: string): Promise<string> {
  return officeToMarkdown(await tmp.write('doc.docx', await buildDocx(body)), 'docx');
}

describe('docx fixtures', () => {
  it('are read by mammoth itself without warnings', async () => {
    const buffer = await buildDocx(wHeading(1, 'Title') + wBullet('one') + wNumbered('first') + wTable([['a', 'b']]));
    const result = await mammoth.convertToHtml({ buffer });
    expect(result.messages).toEqual([]);
    expect(result.value).toBe(
      '<h1>Title</h1><ul><li>one</li></ul><ol><li>first</li></ol><table><tr><td><p>a</p></td><td><p>b</p></td></tr></table>',
    );
  });
});

describe('docx to Markdown', () => {
  it('renders headings and paragraphs', async () => {
    const md = await docxMarkdown(wHeading(1, 'Report') + wPara('First paragraph.') + wHeading(2, 'Details') + wPara('Second.'));
    expect(md).toBe('# Report\n\nFirst paragraph.\n\n## Details\n\nSecond.\n');
  });

  it('renders bold and italic runs and keeps spaces outside the markers', async () => {
    const md = await docxMarkdown(wPara([wRun('a '), wRun('bold ', { bold: true }), wRun('and'), wRun(' it', { italic: true })]));
    expect(md).toBe('a **bold** and *it*\n');
  });

  it('renders bulleted, numbered and nested lists', async () => {
    const md = await docxMarkdown(
      wBullet('apples') + wBullet('green', 1) + wBullet('pears') + wPara('between') + wNumbered('first') + wNumbered('second'),
    );
    expect(md).toBe('- apples\n  - green\n- pears\n\nbetween\n\n1. first\n2. second\n');
  });

  it('renders tables as Markdown tables with the first row as header and | escaped', async () => {
    const md = await docxMarkdown(wTable([['Name', 'Qty'], ['a|b', '2'], ['c', '']]));
    expect(md).toBe('| Name | Qty |\n| --- | --- |\n| a\\|b | 2 |\n| c | |\n');
  });

  it('escapes Markdown syntax in text so it reads back literally', async () => {
    const md = await docxMarkdown(wPara('# not a heading') + wPara('5 * 3 = _x_ <b>'));
    expect(md).toBe('\\# not a heading\n\n5 \\* 3 = \\_x\\_ \\<b>\n');
  });

  it('keeps http(s) and mailto links and drops any other scheme to plain text', async () => {
    const link = (id: string, text: string) => `<w:hyperlink r:id="${id}">${wRun(text)}</w:hyperlink>`;
    const rels =
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rIdA" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/a b?q=(1)" TargetMode="External"/>' +
      '<Relationship Id="rIdB" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="javascript:alert(1)" TargetMode="External"/>' +
      '</Relationships>';
    const buffer = await buildDocx(wPara([wRun('see '), link('rIdA', 'site'), wRun(' and '), link('rIdB', 'this')]), [
      { name: 'word/_rels/document.xml.rels', data: rels },
    ]);
    const md = await officeToMarkdown(await tmp.write('links.docx', buffer), 'docx');
    expect(md).toBe('see [site](<https://example.com/a%20b?q=(1)>) and this\n');
  });

  it('keeps equations (Office Math) as linear text under Equations', async () => {
    const M = 'http://schemas.openxmlformats.org/officeDocument/2006/math';
    const r = (t: string) => `<m:r><m:t>${t}</m:t></m:r>`;
    // x = (-b ± √(b^2-4ac))/(2a), as Word writes it: a fraction of a radical with a superscript inside.
    const quadratic =
      `<m:oMathPara xmlns:m="${M}"><m:oMath>${r('x=')}<m:f><m:num>${r('-b±')}<m:rad><m:radPr><m:degHide m:val="1"/></m:radPr><m:deg/><m:e>` +
      `<m:sSup><m:e>${r('b')}</m:e><m:sup>${r('2')}</m:sup></m:sSup>${r('-4ac')}</m:e></m:rad></m:num><m:den>${r('2a')}</m:den></m:f></m:oMath></m:oMathPara>`;
    // An inline one inside a paragraph: a sum with its limits, and a function.
    const inline =
      `<w:p><w:r><w:t xml:space="preserve">Sum: </w:t></w:r><m:oMath xmlns:m="${M}"><m:nary><m:naryPr><m:chr m:val="∑"/></m:naryPr>` +
      `<m:sub>${r('i=1')}</m:sub><m:sup>${r('n')}</m:sup><m:e><m:func><m:fName>${r('sin')}</m:fName><m:e>${r('θ')}</m:e></m:func></m:e></m:nary></m:oMath></w:p>`;
    // Single-character scripts (by code point: 𝑖 is two UTF-16 units) end with a space (Word's linear form), so
    // β_t x_t is not β_tx_t.
    const sub = (e: string, s: string) => `<m:sSub><m:e>${r(e)}</m:e><m:sub>${r(s)}</m:sub></m:sSub>`;
    const terms = `<w:p><m:oMath xmlns:m="${M}">${sub('β', 't')}${sub('x', 't')}${r('+')}${sub('β', '0')}${sub('𝑥', '𝑖')}</m:oMath></w:p>`;
    expect(await docxMarkdown(`${wPara('Roots')}<w:p>${quadratic}</w:p>${inline}${terms}`)).toBe(
      'Roots\n\nSum:\n\n## Equations\n\nx=(-b±√(b^2 -4ac))/(2a)\n\n∑\\_(i=1)^n sin θ\n\nβ\\_t x\\_t +β\\_0 𝑥\\_𝑖\n',
    );
  });

  it('says so when the document has no text', async () => {
    expect(await docxMarkdown('')).toBe('*(No text found in the document.)*\n');
  });
});
