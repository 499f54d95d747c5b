import { describe, expect, it } from 'vitest';
import { OCR_MIN_WORD_CONFIDENCE, textFromTsv } from './tsv.js';

const HEAD = 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
const word = (block: number, par: number, line: number, n: number, conf: number, text: string) => `5\t1\t${block}\t${par}\t${line}\t${n}\t0\t0\t10\t10\t${conf}\t${text}`;

describe("Tesseract's TSV as text", () => {
  it('puts words back into their lines and paragraphs', () => {
    const tsv = [HEAD, '1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t', word(1, 1, 1, 1, 95, 'Invoices'), word(1, 1, 1, 2, 91, 'are'), word(1, 1, 2, 1, 90, 'due'), word(1, 2, 1, 1, 96, 'Late'), word(2, 1, 1, 1, 88, 'fees')].join('\n');
    expect(textFromTsv(tsv)).toEqual({ text: 'Invoices are\ndue\n\nLate\n\nfees', words: 5 });
  });

  it(`drops words Tesseract is less than ${OCR_MIN_WORD_CONFIDENCE} % sure of, and empty ones`, () => {
    const tsv = [HEAD, word(1, 1, 1, 1, 95, 'Total'), word(1, 1, 1, 2, OCR_MIN_WORD_CONFIDENCE - 1, '~\\|'), word(1, 1, 1, 3, 93, '42'), word(1, 1, 1, 4, 95, ' ')].join('\n');
    expect(textFromTsv(tsv)).toEqual({ text: 'Total 42', words: 2 });
  });

  it('is empty for no words', () => {
    expect(textFromTsv('')).toEqual({ text: '', words: 0 });
  });
});
