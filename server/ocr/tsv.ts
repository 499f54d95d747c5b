// Tesseract's TSV output as text: words grouped back into lines and paragraphs, each word kept only when
// Tesseract is reasonably sure of it, so that a photo of a wall or a chart's gridlines does not hand the agent
// a line of invented "words".

/** Tesseract's per-word confidence (0-100) below which a word is dropped. Clean body text scores 85-96; the
 *  "words" Tesseract finds in textures and pictures mostly score under 50 (docs/benchmarks.md, "On-device OCR"). */
export const OCR_MIN_WORD_CONFIDENCE = 60;

export interface RecognizedText {
  /** The kept words, a line of the image per line, a blank line between paragraphs. */
  text: string;
  /** How many words were kept. */
  words: number;
}

// TSV columns: level page_num block_num par_num line_num word_num left top width height conf text
const WORD_LEVEL = '5';

export function textFromTsv(tsv: string, minConfidence = OCR_MIN_WORD_CONFIDENCE): RecognizedText {
  const paragraphs: string[][] = [];
  let paragraphKey = '';
  let lineKey = '';
  let words = 0;
  for (const row of tsv.split('\n')) {
    const cols = row.split('\t');
    if (cols[0] !== WORD_LEVEL || cols.length < 12) continue;
    const word = cols.slice(11).join('\t').trim();
    if (!word || Number(cols[10]) < minConfidence) continue;
    const para = `${cols[1]}/${cols[2]}/${cols[3]}`;
    const line = `${para}/${cols[4]}`;
    if (para !== paragraphKey) {
      paragraphs.push([]);
      paragraphKey = para;
      lineKey = '';
    }
    const lines = paragraphs[paragraphs.length - 1]!;
    if (line !== lineKey) {
      lines.push(word);
      lineKey = line;
    } else {
      lines[lines.length - 1] += ` ${word}`;
    }
    words += 1;
  }
  return { text: paragraphs.map((lines) => lines.join('\n')).join('\n\n'), words };
}
