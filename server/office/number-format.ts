// Spreadsheet cell values as the spreadsheet shows them: a number is rendered through its cell's number
// format (dates, times, percentages, fixed decimals, thousands separators), so a preview reads `2020-11-20`
// and `6.17%`, not `44155` and `6.1699999999999998E-2`. The format codes themselves are interpreted by numfmt.
import { format as formatNumber, isDateFormat } from 'numfmt';

/**
 * The built-in formats (ECMA-376 Part 1, 18.8.30) that a workbook uses by id without spelling them out.
 * Those the standard leaves to the reader's locale (the short date 14 and its date-time 22, currencies 5-8,
 * the East Asian dates 27-36 and 50-58) get unambiguous renderings: ISO dates, plain grouped amounts.
 */
const BUILTIN_FORMATS: Readonly<Record<number, string>> = {
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  5: '#,##0_);(#,##0)',
  6: '#,##0_);[Red](#,##0)',
  7: '#,##0.00_);(#,##0.00)',
  8: '#,##0.00_);[Red](#,##0.00)',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  14: 'yyyy-mm-dd',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'yyyy-mm-dd h:mm',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00;(#,##0.00)',
  40: '#,##0.00;[Red](#,##0.00)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mm:ss.0',
  48: '##0.0E+0',
  49: '@',
};
const LOCALE_DATE_IDS = [27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 50, 51, 52, 53, 54, 55, 56, 57, 58];
const GENERAL = 'General';
// Days from 1900-01-00 (with Lotus's phantom 1900-02-29) to 1904-01-01: how a 1904-system serial becomes a
// 1900-system one.
export const DATE_1904_OFFSET_DAYS = 1462;
// Spreadsheets keep 15 significant digits; the stored binary double carries noise past them
// (`6.1699999999999998E-2`), which General does not show.
const SIGNIFICANT_DIGITS = 15;
/**
 * Excel refuses a custom number format longer than this, so no real workbook has one. A longer code is a hostile
 * file's: numfmt's cost grows with the code (a refused 100,000-character code took 11 s, and is parsed again for
 * every cell) and so does its output, so such a code is not interpreted and the value shows as General.
 */
export const MAX_FORMAT_CODE_CHARS = 255;
/**
 * `[$€-407]`: a currency symbol and the locale (LCID) it comes from. Excel and LibreOffice take a number's
 * separators from the reader's settings, not from the symbol's locale (`#,##0.00 [$€-407]` shows `17,929.84 €`
 * in LibreOffice on an English system), while numfmt would switch the whole number to German (`17.929,84 €`),
 * beside English numbers in the same table. A bare `[$-407]` (no symbol) is the format's own locale and stays.
 */
const CURRENCY_LOCALE = /\[\$([^\]-]+)-[0-9A-Fa-f]{1,8}\]/g;

/** The format code of a built-in id, `General` for an unknown one. */
export function builtinFormat(id: number): string {
  if (LOCALE_DATE_IDS.includes(id)) return 'yyyy-mm-dd';
  return BUILTIN_FORMATS[id] ?? GENERAL;
}

/** A number as General shows it: the shortest text that reads back as the value at 15 significant digits. */
export function generalNumber(value: number): string {
  return String(Number(value.toPrecision(SIGNIFICANT_DIGITS)));
}

/**
 * The number a format rounds, as spreadsheets round it: they take the value at 15 significant digits and round
 * half away from zero in decimal, so 16962.315 (stored as the double 16962.31499999…) shows as 16,962.32 in
 * Excel and LibreOffice, where numfmt, rounding the double, gives 16,962.31. The double nearest the 15-digit
 * value, moved one step away from zero, lands past an exact decimal half and nowhere else: any other 15-digit
 * value is several steps from a half.
 */
function decimalRounded(value: number): number {
  const snapped = Number(value.toPrecision(SIGNIFICANT_DIGITS));
  if (snapped === 0) return snapped;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, snapped);
  view.setBigUint64(0, view.getBigUint64(0) + 1n);
  const next = view.getFloat64(0);
  // Next to the largest double there is no step left (15 digits of it even round past it): keep the value.
  return Number.isFinite(next) ? next : value;
}

/** `value` rendered through format `code`; `date1904` for workbooks that count days from 1904. */
export function formatCell(value: number, code: string, date1904 = false): string {
  if (!Number.isFinite(value)) return String(value);
  if (code === '' || code.length > MAX_FORMAT_CODE_CHARS || code.toLowerCase() === 'general' || code === '@') return generalNumber(value);
  try {
    const isDate = isDateFormat(code);
    const serial = isDate && date1904 ? value + DATE_1904_OFFSET_DAYS : value;
    // Spreadsheets show no date before day 0 (`#####`); the number says more than a made-up 1899 date.
    if (isDate && serial < 0) return generalNumber(value);
    // `_)` and friends pad with spaces for alignment in a column; a table cell does not need them.
    const text = (isDate ? formatNumber(code, serial) : formatNumber(code.replace(CURRENCY_LOCALE, '[$$$1]'), decimalRounded(value))).trim();
    // Hidden (`;;;`) or unrepresentable (`#####`, a date before 1900): the value itself is worth showing.
    return (text === '' && value !== 0) || /^#+$/.test(text) ? generalNumber(value) : text;
  } catch {
    // A code numfmt cannot read (written by some other tool): the value itself is still worth showing.
    return generalNumber(value);
  }
}
