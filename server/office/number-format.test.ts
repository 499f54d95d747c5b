import { describe, expect, it } from 'vitest';
import { builtinFormat, formatCell, generalNumber } from './number-format.js';

describe('formatCell', () => {
  it('shows General numbers at 15 significant digits, shortest form', () => {
    expect(generalNumber(6.1699999999999998e-2)).toBe('0.0617');
    expect(generalNumber(0.1 + 0.2)).toBe('0.3');
    expect(generalNumber(123456789012)).toBe('123456789012');
    expect(formatCell(-42, 'General')).toBe('-42');
  });

  it('renders dates, times, percentages, fixed decimals and thousands separators', () => {
    expect(formatCell(44155, 'd/m/yy')).toBe('20/11/20');
    expect(formatCell(44155, builtinFormat(14))).toBe('2020-11-20');
    expect(formatCell(44155.75, builtinFormat(22))).toBe('2020-11-20 18:00');
    expect(formatCell(0.75, 'h:mm AM/PM')).toBe('6:00 PM');
    expect(formatCell(0.0617, builtinFormat(10))).toBe('6.17%');
    expect(formatCell(1234567.891, builtinFormat(4))).toBe('1,234,567.89');
    expect(formatCell(-1234, builtinFormat(37))).toBe('(1,234)');
    expect(formatCell(3.14159, '0.000')).toBe('3.142');
  });

  it("keeps the reader's separators for a currency symbol from another locale, and the locale's names in dates", () => {
    // The codes LibreOffice writes for a euro amount and a German long date (ledger.xlsx of bench/office-recall.mjs).
    expect(formatCell(17929.84, '#,##0.00\\ [$€-407]')).toBe('17,929.84 €');
    expect(formatCell(-1891.77, '[$€-407]\\ #,##0.00;[RED]\\-[$€-407]\\ #,##0.00')).toBe('-€ 1,891.77');
    expect(formatCell(1234.5, '#,##0.00 [$CHF-807]')).toBe('1,234.50 CHF');
    expect(formatCell(44155, '[$-407]d. mmmm yyyy')).toBe('20. November 2020');
    expect(formatCell(44256, '[$-407]mmmm')).toBe('März');
  });

  it('rounds a decimal half away from zero as spreadsheets do, not the binary double below it', () => {
    // LibreOffice shows 16962.315 (ledger.xlsx of bench/office-recall.mjs) as 16,962.32; the double is 16962.31499…
    expect(formatCell(16962.315, '#,##0.00')).toBe('16,962.32');
    expect(formatCell(2.675, '0.00')).toBe('2.68');
    expect(formatCell(-2.675, '0.00')).toBe('-2.68');
    expect(formatCell(1.005, '0.00')).toBe('1.01');
    expect(formatCell(0.125, '0.00')).toBe('0.13');
    // Not a half: no nudge across the boundary.
    expect(formatCell(2.67499999999, '0.00')).toBe('2.67');
    expect(formatCell(16962.3149999999, '#,##0.00')).toBe('16,962.31');
    expect(formatCell(0, '0.00')).toBe('0.00');
    expect(formatCell(-Number.MAX_VALUE, '0.00E+00')).toBe('-1.80E+308');
  });

  it('counts days from 1904 when the workbook says so', () => {
    expect(formatCell(42693, 'yyyy-mm-dd', true)).toBe('2020-11-20');
    // Not a date format: the number is the number, whatever the date system.
    expect(formatCell(42693, '#,##0', true)).toBe('42,693');
  });

  it('falls back to the value for codes it cannot read, hidden values and unrepresentable dates', () => {
    expect(formatCell(5, '[Blue')).toBe('5');
    expect(formatCell(5, ';;;')).toBe('5');
    expect(formatCell(-5, 'yyyy-mm-dd')).toBe('-5');
  });
});
