// Measuring a sidecar against a reference reader: word recall for every format, and for spreadsheets a cell
// recall twice over, once on the text LibreOffice shows and once on the values (dates, times and numbers
// compared as values, so a date shown as 21/11/20 by one reader and 2020-11-21 by the other still counts).
// The reference side is read from LibreOffice's own flat ODF export (python3's ElementTree), never with
// Satchel's parsers.
import { execFileSync } from 'node:child_process';

/** Words as the recall counts them: letters and digits, keeping the inner punctuation of `1,234.56`, `21/11/20`. */
export const words = (text) => text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}.,:/%-]*[\p{L}\p{N}%]|[\p{L}\p{N}]/gu) ?? [];

/**
 * Distinct-word recall (the share of the reference's distinct words the sidecar has) and occurrence recall
 * (each reference word counted as often as it occurs, up to as often as the sidecar has it: a paragraph lost
 * whose words occur elsewhere shows here).
 */
export function wordRecall(reference, sidecar) {
  const count = (list) => list.reduce((m, w) => m.set(w, (m.get(w) ?? 0) + 1), new Map());
  const ref = count(words(reference));
  const got = count(words(sidecar));
  let total = 0;
  let matched = 0;
  const missing = [];
  for (const [w, n] of ref) {
    total += n;
    matched += Math.min(n, got.get(w) ?? 0);
    if (!got.has(w)) missing.push(w);
  }
  return { total, matched, distinct: ref.size, distinctFound: ref.size - missing.length, missing };
}

// Reads LibreOffice's flat ODF (fodt/fodp/fods) with ElementTree: `text` prints the body's paragraphs and
// headings in order (slides and their notes pages for a presentation); `cells` prints every sheet's non-empty
// cells as JSON with LibreOffice's value type, value and shown text. A page-number field is left out: on a
// slide or notes page it holds the placeholder `<number>`, not text of the deck.
const ODF_READER = String.raw`
import sys, json, xml.etree.ElementTree as ET
T = '{urn:oasis:names:tc:opendocument:xmlns:text:1.0}'
O = '{urn:oasis:names:tc:opendocument:xmlns:office:1.0}'
TB = '{urn:oasis:names:tc:opendocument:xmlns:table:1.0}'
def text(el):
    if el.text: yield el.text
    for c in el:
        if c.tag == T + 's': yield ' ' * int(c.get(T + 'c', '1'))
        elif c.tag in (T + 'tab', T + 'line-break'): yield ' '
        elif c.tag not in (T + 'note', T + 'page-number'): yield from text(c)
        if c.tail: yield c.tail
def paragraphs(el, out):
    if el.tag in (T + 'p', T + 'h'):
        out.append(''.join(text(el)))
        return
    for c in el: paragraphs(c, out)
mode, path = sys.argv[1], sys.argv[2]
body = ET.parse(path).getroot().find(O + 'body')
if mode == 'text':
    out = []
    paragraphs(body, out)
    print('\n'.join(out))
else:
    sheets = []
    for table in body.iter(TB + 'table'):
        cells = []
        r = 0
        for row in table.iter(TB + 'table-row'):
            rows = int(row.get(TB + 'number-rows-repeated', '1'))
            c = 0
            for cell in row:
                if cell.tag not in (TB + 'table-cell', TB + 'covered-table-cell'): continue
                n = int(cell.get(TB + 'number-columns-repeated', '1'))
                shown = '\n'.join(''.join(text(p)) for p in cell.findall(T + 'p'))
                kind = cell.get(O + 'value-type')
                if shown or kind:
                    value = cell.get(O + 'value') or cell.get(O + 'date-value') or cell.get(O + 'time-value') or cell.get(O + 'boolean-value')
                    for k in range(min(n, 64)):
                        cells.append({'row': r, 'col': c + k, 'type': kind or 'string', 'value': value, 'shown': shown})
                c += n
            r += rows
        sheets.append({'name': table.get(TB + 'name'), 'cells': cells})
    print(json.dumps(sheets))
`;

/** The paragraphs of a flat ODF document, as LibreOffice wrote them. */
export const odfText = (file) => execFileSync('python3', ['-c', ODF_READER, 'text', file], { maxBuffer: 64 << 20 }).toString();
/** Every sheet's non-empty cells `{row, col, type, value, shown}` from a flat ODS LibreOffice wrote. */
export const odsCells = (file) => JSON.parse(execFileSync('python3', ['-c', ODF_READER, 'cells', file], { maxBuffer: 64 << 20 }).toString());

/** The cells of a sidecar, by sheet: each `## <sheet>` section's Markdown table cells, unescaped. */
export function sidecarCells(markdown) {
  const sheets = new Map();
  let current = null;
  for (const line of markdown.split('\n')) {
    const heading = /^## (.*)$/.exec(line);
    if (heading) {
      current = [];
      sheets.set(unescape(heading[1]), current);
    } else if (current && line.startsWith('|') && !/^\|( *-+ *\|)+$/.test(line)) {
      current.push(...line.slice(1, -1).split(/(?<!\\)\|/).map((c) => unescape(c.trim())));
    }
  }
  return sheets;
}
const unescape = (s) => s.replace(/\\(.)/g, '$1');
const collapse = (s) => s.replace(/\s+/g, ' ').trim();

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const monthOf = (name) => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
const SECONDS_PER_DAY = 86_400;

/**
 * What a shown cell can mean as a value, whatever the reader's format: numbers with their shown precision
 * (`1,234,567.89` is 1234567.891 to within 0.005), dates as year/month/day under every order the text allows
 * (a two-digit year as its last two digits), times of day and durations as seconds.
 */
export function readings(shown) {
  const s = collapse(shown);
  const out = [];
  // Numbers: grouping, currency signs and codes, accounting parentheses, percent, exponents, `# ?/?` fractions.
  const bare = s.replace(/[$€£¥]|\b(EUR|USD|GBP)\b|[\s\u00a0]/g, '');
  const num = /^(\()?([-+−]?)([\d,]*\.?\d+)(?:E([-+]?\d+))?(%?)(\))?$/i.exec(bare);
  if (num) {
    const [, open, sign, digits, exp, pct, close] = num;
    if (Boolean(open) === Boolean(close)) {
      const decimals = digits.includes('.') ? digits.split('.')[1].length : 0;
      const scale = 10 ** Number(exp ?? 0) / (pct ? 100 : 1);
      const value = Number(digits.replace(/,/g, '')) * scale * (open || sign === '-' || sign === '−' ? -1 : 1);
      out.push({ kind: 'number', value, tolerance: 0.5 * 10 ** -decimals * scale });
    }
  }
  const frac = /^(-?)(?:(\d+) )?(\d+)\/(\d+)$/.exec(s);
  if (frac && Number(frac[4]) > 0 && Number(frac[4]) < 1000) {
    const value = (Number(frac[2] ?? 0) + Number(frac[3]) / Number(frac[4])) * (frac[1] ? -1 : 1);
    out.push({ kind: 'number', value, tolerance: 0.5 / Number(frac[4]) });
  }
  // Dates, with an optional time after them.
  const datePatterns = [
    [/^(?:\w+, )?(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](.*))?$/, (m) => [[m[1], m[2], m[3]]]],
    [/^(\d{1,2})[/.-](\d{1,2})[/.-](\d{2,4})(?: (.*))?$/, (m) => [[m[3], m[2], m[1]], [m[3], m[1], m[2]]]],
    [/^(?:\w+,? )?(\d{1,2})[ -]([A-Za-z]{3,})\.?,?[ -](\d{2,4})(?: (.*))?$/, (m) => [[m[3], monthOf(m[2]), m[1]]]],
    [/^(?:\w+,? )?([A-Za-z]{3,})\.? (\d{1,2}),? (\d{4})(?: (.*))?$/, (m) => [[m[3], monthOf(m[1]), m[2]]]],
    [/^([A-Za-z]{3,})[ -](\d{2,4})()$/, (m) => [[m[2], monthOf(m[1]), null]]],
    [/^(\d{1,2})[ -]([A-Za-z]{3,})()$/, (m) => [[null, monthOf(m[2]), m[1]]]],
  ];
  for (const [re, orders] of datePatterns) {
    const m = re.exec(s);
    if (!m) continue;
    const time = m[4] ? timeOf(m[4]) : undefined;
    if (m[4] && !time) continue;
    for (const [y, mo, d] of orders(m)) {
      if (Number(mo) < 1 || Number(mo) > 12 || (d !== null && (Number(d) < 1 || Number(d) > 31))) continue;
      out.push({ kind: 'date', year: y === null ? null : String(y), month: Number(mo), day: d === null ? null : Number(d), time });
    }
  }
  const time = timeOf(s);
  if (time) out.push({ kind: 'time', ...time });
  if (/^(true|false)$/i.test(s)) out.push({ kind: 'boolean', value: s.toLowerCase() === 'true' });
  return out;
}

/** `14:30`, `2:30:05 PM`, `36:15` (a duration): seconds and the precision shown. */
function timeOf(text) {
  const m = /^(\d{1,4}):(\d{2})(?::(\d{2}(?:\.\d+)?))?(?: ?([AP])\.?M\.?)?$/i.exec(text.trim());
  if (!m) return undefined;
  let hours = Number(m[1]);
  if (m[4]) hours = (hours % 12) + (m[4].toUpperCase() === 'P' ? 12 : 0);
  const seconds = hours * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
  return { seconds, tolerance: m[3] === undefined ? 60 : 1 };
}

/** A reference cell's value as LibreOffice stored it: `{kind, …}` in the terms `readings` uses. */
export function referenceValue(cell) {
  const { type, value } = cell;
  if (value == null) return null;
  if (type === 'float' || type === 'percentage' || type === 'currency') return { kind: 'number', value: Number(value) };
  if (type === 'boolean') return { kind: 'boolean', value: value === 'true' };
  if (type === 'time') {
    const m = /^-?PT(\d+)H(\d+)M(\d+(?:\.\d+)?)S$/.exec(value);
    return m ? { kind: 'time', seconds: Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) } : null;
  }
  if (type === 'date') {
    const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?))?$/.exec(value);
    if (!m) return null;
    const seconds = m[4] ? Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6]) : 0;
    return { kind: 'date', year: m[1], month: Number(m[2]), day: Number(m[3]), seconds };
  }
  return null;
}

/** Whether shown text `candidate` can be the reference value `ref`. */
function sameValue(ref, reading) {
  if (ref.kind === 'number' && reading.kind === 'number') {
    return Math.abs(ref.value - reading.value) <= reading.tolerance * 1.000001 + 1e-9 * Math.abs(ref.value);
  }
  if (ref.kind === 'boolean' && reading.kind === 'boolean') return ref.value === reading.value;
  if (ref.kind === 'time' && reading.kind === 'time') {
    // A time of day shown without its date: compare within the day too.
    const diff = Math.abs(ref.seconds - reading.seconds);
    return diff < reading.tolerance || Math.abs((ref.seconds % SECONDS_PER_DAY) - reading.seconds) < reading.tolerance;
  }
  if (ref.kind === 'date' && reading.kind === 'time') return Math.abs(ref.seconds - reading.seconds) < reading.tolerance;
  if (ref.kind === 'date' && reading.kind === 'date') {
    const year = reading.year === null || (reading.year.length === 2 ? ref.year.endsWith(reading.year) : reading.year === ref.year);
    const dayOk = reading.day === null || reading.day === ref.day;
    const timeOk = !reading.time || Math.abs(ref.seconds - reading.time.seconds) < reading.time.tolerance;
    return year && reading.month === ref.month && dayOk && timeOk;
  }
  return false;
}

/**
 * Cell recall of a sidecar against LibreOffice's reading of the same workbook, sheet by sheet: `shown` counts
 * the reference cells whose shown text is a cell of the sidecar's sheet; `value` also counts those whose value
 * one of the sidecar's cells shows (in any format).
 */
export function cellRecall(referenceSheets, sidecarMarkdown) {
  const sidecar = sidecarCells(sidecarMarkdown);
  let total = 0;
  let shown = 0;
  let value = 0;
  const missing = [];
  for (const sheet of referenceSheets) {
    const cells = sidecar.get(sheet.name) ?? [];
    const texts = new Set(cells.map(collapse));
    const values = cells.flatMap(readings);
    for (const cell of sheet.cells) {
      total += 1;
      if (texts.has(collapse(cell.shown))) {
        shown += 1;
        value += 1;
        continue;
      }
      const ref = referenceValue(cell);
      if (ref && values.some((r) => sameValue(ref, r))) value += 1;
      else missing.push(`${sheet.name}!${cell.shown}`);
    }
  }
  return { total, shown, value, missing };
}
