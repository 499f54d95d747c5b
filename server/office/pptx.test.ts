import { describe, expect, it } from 'vitest';
import { officeToMarkdown } from './index.js';
import { buildPptx, pShape, pTable, type SlideSpec } from './testing/fixtures.js';
import { useTmpDir } from './testing/tmpdir.js';

const tmp = useTmpDir();

async function pptxMarkdown(slides: SlideSpec[]): Promise<string> {
  return officeToMarkdown(await tmp.write('deck.pptx', await buildPptx(slides)), 'pptx');
}

describe('pptx to Markdown', () => {
  it('renders slides in presentation order with titles, bullets by outline level and plain text boxes', async () => {
    const md = await pptxMarkdown([
      // File slide2.xml comes first in the presentation: order follows sldIdLst, not file names.
      { file: 'slide2.xml', shapes: pShape(['Welcome'], 'ctrTitle') + pShape(['Subtitle here'], 'subTitle') },
      {
        file: 'slide1.xml',
        shapes:
          pShape(['Plan'], 'title') +
          pShape(['Goals', { text: 'ship it', lvl: 1 }, '', { text: 'deeper', lvl: 2 }], 'body') +
          pShape(['# literal *stars*']),
      },
      { file: 'slide3.xml', shapes: '' },
    ]);
    expect(md).toBe(
      '## Slide 1: Welcome\n\n- Subtitle here\n\n' +
        '## Slide 2: Plan\n\n- Goals\n  - ship it\n    - deeper\n- \\# literal \\*stars\\*\n\n' +
        '## Slide 3\n',
    );
  });

  it('renders slide tables as Markdown tables', async () => {
    const md = await pptxMarkdown([
      { file: 'slide1.xml', shapes: pShape(['Numbers'], 'title') + pTable([['Q', 'Sales'], ['1', '10|20']]) + pShape(['after']) },
    ]);
    expect(md).toBe('## Slide 1: Numbers\n\n| Q | Sales |\n| --- | --- |\n| 1 | 10\\|20 |\n\n- after\n');
  });

  it('throws when the presentation lists a slide it does not contain', async () => {
    const deck = await buildPptx([{ file: 'slide1.xml', shapes: '' }], [
      {
        name: 'ppt/presentation.xml',
        data:
          '<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" ' +
          'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:sldIdLst><p:sldId id="256" r:id="rId9"/></p:sldIdLst></p:presentation>',
      },
    ]);
    await expect(officeToMarkdown(await tmp.write('bad.pptx', deck), 'pptx')).rejects.toThrow(
      'Presentation lists a slide it does not contain: rId9',
    );
  });

  it('clamps outline levels that are out of range or not numbers, and never skips a level', async () => {
    const para = (lvl: string, text: string) => `<a:p><a:pPr lvl="${lvl}"/><a:r><a:t>${text}</a:t></a:r></a:p>`;
    const shape = `<p:sp><p:nvSpPr><p:nvPr/></p:nvSpPr><p:txBody>${para('-3', 'neg')}${para('x', 'nan')}${para('99', 'deep')}</p:txBody></p:sp>`;
    const md = await pptxMarkdown([{ file: 'slide1.xml', shapes: shape }]);
    expect(md).toBe('## Slide 1\n\n- neg\n- nan\n  - deep\n');
  });

  it('throws on malformed slide XML', async () => {
    await expect(pptxMarkdown([{ file: 'slide1.xml', shapes: '<p:sp>' }])).rejects.toThrow(/^Malformed XML in ppt\/slides\/slide1\.xml/);
  });
});
