// Spreadsheet to Markdown: each worksheet becomes `## <name>` and a table of its cell values as stored
// (numbers unformatted, formulas as their cached results). The XML is read directly; no spreadsheet library.
import type { ZipMembers } from './guarded-zip.js';
import { escapeInline, heading, joinBlocks, table, tableCell } from './markdown.js';
import { OfficeError } from './office-error.js';
import { findPart, hasType, isRelationshipNs, mainPart, readRelationships, readXmlPart } from './opc.js';
import { attr, childElements, firstChild, textContent, type XmlElement } from './xml.js';

// A preview, not an export: beyond these the table stops being readable and the 120,000-character cap
// would cut it anyway. Rows are counted among non-empty rows only.
export const XLSX_MAX_ROWS = 500;
export const XLSX_MAX_COLS = 30;
// More shared strings than this in 4 MB of XML is not a real workbook.
export const XLSX_MAX_SHARED_STRINGS = 1_000_000;

/** OOXML's escape for characters XML cannot carry: `_x000D_` is a carriage return, `_x005F_` an underscore. */
const XSTRING_ESCAPE = /_x([0-9A-Fa-f]{4})_/g;

export function xlsxToMarkdown(members: ZipMembers): string {
  const workbookPart = mainPart(members);
  const workbook = readXmlPart(members, workbookPart);
  const rels = readRelationships(members, workbookPart);
  const sharedRel = rels.find((r) => !r.external && hasType(r, 'sharedStrings'));
  const shared = sharedRel && findPart(members, sharedRel.target) ? readSharedStrings(members, sharedRel.target) : [];

  const sheets = firstChild(workbook, 'sheets');
  if (!sheets) throw new OfficeError('Workbook has no sheet list');
  const blocks: string[] = [];
  for (const sheet of childElements(sheets, 'sheet')) {
    const name = attr(sheet, 'name') ?? '';
    const id = attr(sheet, 'id', isRelationshipNs);
    const rel = rels.find((r) => r.id === id && !r.external);
    // Chart sheets and dialog sheets hold no cells.
    if (!rel || !hasType(rel, 'worksheet')) continue;
    blocks.push(heading(2, escapeInline(name)), sheetTable(readXmlPart(members, rel.target), shared));
  }
  return joinBlocks(blocks);
}

function readSharedStrings(members: ZipMembers, part: string): string[] {
  const root = readXmlPart(members, part);
  const items = childElements(root, 'si');
  if (items.length > XLSX_MAX_SHARED_STRINGS) throw new OfficeError('Workbook has too many shared strings');
  return items.map(richText);
}

/** A string item: plain `<t>`, or rich-text runs `<r><t>`; phonetic guides (`<rPh>`) are not text. */
function richText(item: XmlElement): string {
  let out = '';
  for (const child of childElements(item)) {
    if (child.local === 't') out += textContent(child);
    else if (child.local === 'r') out += childElements(child, 't').map(textContent).join('');
  }
  return out.replace(XSTRING_ESCAPE, (_w, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

interface Grid {
  rows: Map<number, Map<number, string>>;
  minCol: number;
  maxCol: number;
}

function sheetTable(sheet: XmlElement, shared: readonly string[]): string {
  const grid = readGrid(sheet, shared);
  const rowNumbers = [...grid.rows.keys()].sort((a, b) => a - b);
  if (rowNumbers.length === 0) return '*(empty sheet)*';
  const lastCol = Math.min(grid.maxCol, grid.minCol + XLSX_MAX_COLS - 1);
  const shown = rowNumbers.slice(0, XLSX_MAX_ROWS).map((r) => {
    const cells = grid.rows.get(r)!;
    const line: string[] = [];
    for (let c = grid.minCol; c <= lastCol; c += 1) line.push(tableCell(cells.get(c) ?? ''));
    return line;
  });
  const notes: string[] = [];
  if (rowNumbers.length > XLSX_MAX_ROWS) notes.push(`${rowNumbers.length - XLSX_MAX_ROWS} more rows`);
  if (grid.maxCol > lastCol) notes.push(`${grid.maxCol - lastCol} more columns`);
  const table_ = table(shown);
  return notes.length ? `${table_}\n\n*(${notes.join(' and ')} not shown)*` : table_;
}

function readGrid(sheet: XmlElement, shared: readonly string[]): Grid {
  const grid: Grid = { rows: new Map(), minCol: Infinity, maxCol: -Infinity };
  const data = firstChild(sheet, 'sheetData');
  if (!data) return grid;
  let rowNumber = 0;
  for (const row of childElements(data, 'row')) {
    // `r` is optional: a row without it follows the previous one.
    rowNumber = positiveInt(attr(row, 'r')) ?? rowNumber + 1;
    let col = 0;
    for (const cell of childElements(row, 'c')) {
      col = columnOf(attr(cell, 'r')) ?? col + 1;
      const value = cellValue(cell, shared);
      if (value === '') continue;
      let cells = grid.rows.get(rowNumber);
      if (!cells) grid.rows.set(rowNumber, (cells = new Map()));
      cells.set(col, value);
      grid.minCol = Math.min(grid.minCol, col);
      grid.maxCol = Math.max(grid.maxCol, col);
    }
  }
  return grid;
}

function cellValue(cell: XmlElement, shared: readonly string[]): string {
  const type = attr(cell, 't') ?? 'n';
  if (type === 'inlineStr') {
    const is = firstChild(cell, 'is');
    return is ? richText(is) : '';
  }
  const v = firstChild(cell, 'v');
  const raw = v ? textContent(v) : '';
  if (raw === '') return '';
  switch (type) {
    case 's': {
      const index = Number(raw);
      const text = Number.isInteger(index) ? shared[index] : undefined;
      if (text === undefined) throw new OfficeError(`Cell refers to a missing shared string: ${raw}`);
      return text;
    }
    case 'b':
      return raw.trim() === '1' ? 'TRUE' : 'FALSE';
    case 'str':
      return raw.replace(XSTRING_ESCAPE, (_w, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    default:
      // Numbers, errors (`#DIV/0!`) and ISO dates are shown as stored.
      return raw.trim();
  }
}

/** The 1-based column of an A1 reference (`C7` → 3), or undefined when absent or invalid. */
export function columnOf(ref: string | undefined): number | undefined {
  const letters = /^([A-Za-z]{1,3})\d*$/.exec(ref ?? '')?.[1];
  if (!letters) return undefined;
  let col = 0;
  for (const ch of letters.toUpperCase()) col = col * 26 + (ch.charCodeAt(0) - 64);
  return col;
}

function positiveInt(text: string | undefined): number | undefined {
  if (!text || !/^\d{1,7}$/.test(text)) return undefined;
  const n = Number(text);
  return n > 0 ? n : undefined;
}
