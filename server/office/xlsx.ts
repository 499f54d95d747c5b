// Spreadsheet to Markdown: each worksheet becomes `## <name>` and a table of its cell values as the
// spreadsheet shows them (numbers through their number format, formulas as their cached results); each
// named table on it becomes `### <name>` with its own Markdown table, and the sheet's charts and images are
// listed by title and description. The XML is read directly; no spreadsheet library.
import { altTexts, chartTitles } from './extras.js';
import type { ZipMembers } from './guarded-zip.js';
import { escapeInline, escapeLineStarts, heading, joinBlocks, table, tableCell } from './markdown.js';
import { builtinFormat, formatCell } from './number-format.js';
import { OfficeError } from './office-error.js';
import { findPart, hasType, isRelationshipNs, mainPart, readRelationships, readXmlPart, type Relationship } from './opc.js';
import { attr, childElements, firstChild, textContent, type XmlElement } from './xml.js';

// A preview, not an export: beyond these the table stops being readable and the 120,000-character cap
// would cut it anyway. Rows are counted among non-empty rows only.
export const XLSX_MAX_ROWS = 500;
export const XLSX_MAX_COLS = 30;
// More shared strings than this in 4 MB of XML is not a real workbook.
export const XLSX_MAX_SHARED_STRINGS = 1_000_000;

/** OOXML's escape for characters XML cannot carry: `_x000D_` is a carriage return, `_x005F_` an underscore. */
const XSTRING_ESCAPE = /_x([0-9A-Fa-f]{4})_/g;

/** What every cell of the workbook is read with. */
interface Book {
  shared: readonly string[];
  /** The number format code of each cell style (`s` attribute), by index. */
  styleFormats: readonly string[];
  date1904: boolean;
}

export function xlsxToMarkdown(members: ZipMembers): string {
  const workbookPart = mainPart(members);
  const workbook = readXmlPart(members, workbookPart);
  const rels = readRelationships(members, workbookPart);
  const sharedRel = rels.find((r) => !r.external && hasType(r, 'sharedStrings'));
  const stylesRel = rels.find((r) => !r.external && hasType(r, 'styles'));
  const workbookPr = firstChild(workbook, 'workbookPr');
  const book: Book = {
    shared: sharedRel && findPart(members, sharedRel.target) ? readSharedStrings(members, sharedRel.target) : [],
    styleFormats: stylesRel && findPart(members, stylesRel.target) ? readStyleFormats(readXmlPart(members, stylesRel.target)) : [],
    date1904: isTrue(workbookPr && attr(workbookPr, 'date1904')),
  };

  const sheets = firstChild(workbook, 'sheets');
  if (!sheets) throw new OfficeError('Workbook has no sheet list');
  const blocks: string[] = [];
  for (const sheet of childElements(sheets, 'sheet')) {
    const name = attr(sheet, 'name') ?? '';
    const id = attr(sheet, 'id', isRelationshipNs);
    const rel = rels.find((r) => r.id === id && !r.external);
    // Chart sheets and dialog sheets hold no cells.
    if (!rel || !hasType(rel, 'worksheet')) continue;
    blocks.push(heading(2, escapeInline(name)), ...sheetBlocks(members, rel.target, book));
  }
  return joinBlocks(blocks);
}

function isTrue(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

/** The number format code of each cell style, in `cellXfs` order (a cell's `s` indexes it). */
function readStyleFormats(styles: XmlElement): string[] {
  const custom = new Map<number, string>();
  const numFmts = firstChild(styles, 'numFmts');
  for (const f of numFmts ? childElements(numFmts, 'numFmt') : []) {
    const id = Number(attr(f, 'numFmtId'));
    const code = attr(f, 'formatCode');
    if (Number.isInteger(id) && code !== undefined) custom.set(id, code);
  }
  const cellXfs = firstChild(styles, 'cellXfs');
  return (cellXfs ? childElements(cellXfs, 'xf') : []).map((xf) => {
    const id = Number(attr(xf, 'numFmtId') ?? 0);
    return custom.get(id) ?? builtinFormat(id);
  });
}

interface Area {
  name: string;
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/** A sheet's cells outside any table, then each table under its name, then its charts and images. */
function sheetBlocks(members: ZipMembers, sheetPart: string, book: Book): string[] {
  const sheet = readXmlPart(members, sheetPart);
  const rels = readRelationships(members, sheetPart);
  const grid = readGrid(sheet, book);
  const tables = readTables(members, rels);
  const inTable = (r: number, c: number) => tables.some((t) => r >= t.top && r <= t.bottom && c >= t.left && c <= t.right);
  const rest = subGrid(grid, (r, c) => !inTable(r, c));
  const blocks: string[] = [];
  if (tables.length === 0 || rest.rows.size > 0) blocks.push(sheetTable(rest));
  for (const t of tables) {
    blocks.push(heading(3, escapeInline(t.name)), sheetTable(subGrid(grid, (r, c) => r >= t.top && r <= t.bottom && c >= t.left && c <= t.right)));
  }
  const drawings = rels.filter((r) => !r.external && hasType(r, 'drawing') && findPart(members, r.target));
  const charts: string[] = [];
  const images: string[] = [];
  for (const d of drawings) {
    const drawing = readXmlPart(members, d.target);
    charts.push(...chartTitles(members, d.target, drawing));
    images.push(...altTexts(drawing));
  }
  const list = (title: string, lines: string[]) =>
    lines.length ? blocks.push([heading(3, title), '', ...lines.map((l) => `- ${escapeLineStarts(escapeInline(l))}`)].join('\n')) : 0;
  list('Charts', charts);
  list('Image descriptions', images);
  return blocks;
}

/** The sheet's named tables (ListObjects) and the cell ranges they cover. */
function readTables(members: ZipMembers, rels: readonly Relationship[]): Area[] {
  const out: Area[] = [];
  for (const rel of rels) {
    if (rel.external || !hasType(rel, 'table') || !findPart(members, rel.target)) continue;
    const t = readXmlPart(members, rel.target);
    const range = parseRange(attr(t, 'ref'));
    const name = attr(t, 'displayName') ?? attr(t, 'name');
    if (range && name) out.push({ name, ...range });
  }
  return out;
}

/** `B2:D10` as 1-based rows and columns. */
function parseRange(ref: string | undefined): Omit<Area, 'name'> | undefined {
  const m = /^([A-Za-z]{1,3})(\d{1,7}):([A-Za-z]{1,3})(\d{1,7})$/.exec(ref ?? '');
  if (!m) return undefined;
  return { left: columnOf(m[1])!, top: Number(m[2]), right: columnOf(m[3])!, bottom: Number(m[4]) };
}

function subGrid(grid: Grid, keep: (row: number, col: number) => boolean): Grid {
  const out = emptyGrid();
  for (const [r, cells] of grid.rows) {
    for (const [c, value] of cells) {
      if (keep(r, c)) setCell(out, r, c, value);
    }
  }
  return out;
}

function readSharedStrings(members: ZipMembers, part: string): string[] {
  const root = readXmlPart(members, part);
  // `sstItem` is what Excel 2007's beta wrote for `si` (POI keeps one such workbook, sample-beta.xlsx); its
  // cells point at them by index all the same, so without them every text cell would be refused.
  const items = childElements(root).filter((el) => el.local === 'si' || el.local === 'sstItem');
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

function emptyGrid(): Grid {
  return { rows: new Map(), minCol: Infinity, maxCol: -Infinity };
}

function setCell(grid: Grid, row: number, col: number, value: string): void {
  let cells = grid.rows.get(row);
  if (!cells) grid.rows.set(row, (cells = new Map()));
  cells.set(col, value);
  grid.minCol = Math.min(grid.minCol, col);
  grid.maxCol = Math.max(grid.maxCol, col);
}

function sheetTable(grid: Grid): string {
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

function readGrid(sheet: XmlElement, book: Book): Grid {
  const grid = emptyGrid();
  const data = firstChild(sheet, 'sheetData');
  if (!data) return grid;
  let rowNumber = 0;
  for (const row of childElements(data, 'row')) {
    // `r` is optional: a row without it follows the previous one.
    rowNumber = positiveInt(attr(row, 'r')) ?? rowNumber + 1;
    let col = 0;
    for (const cell of childElements(row, 'c')) {
      col = columnOf(attr(cell, 'r')) ?? col + 1;
      const value = cellValue(cell, book);
      if (value === '') continue;
      setCell(grid, rowNumber, col, value);
    }
  }
  return grid;
}

function cellValue(cell: XmlElement, book: Book): string {
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
      const text = Number.isInteger(index) ? book.shared[index] : undefined;
      if (text === undefined) throw new OfficeError(`Cell refers to a missing shared string: ${raw}`);
      return text;
    }
    case 'b':
      return raw.trim() === '1' ? 'TRUE' : 'FALSE';
    case 'str':
      return raw.replace(XSTRING_ESCAPE, (_w, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    case 'n': {
      const value = Number(raw);
      if (raw.trim() === '' || Number.isNaN(value)) return raw.trim();
      const style = Number(attr(cell, 's') ?? 0);
      return formatCell(value, book.styleFormats[style] ?? 'General', book.date1904);
    }
    default:
      // Errors (`#DIV/0!`) and ISO dates (`t="d"`) are shown as stored.
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
