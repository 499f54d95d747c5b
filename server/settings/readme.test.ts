// README.md's Configuration table is the user's copy of the settings table: same rows, same order, same
// names, flags, stt.json keys, defaults and read times. A setting added to one and not the other fails here.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES, SETTINGS, type Setting } from './table.js';

const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md');
const HEADER = ['Variable', 'Flag', '`stt.json` key', 'Meaning', 'Default', 'Read'];
const NONE = '—';
const READ = { true: 'each request', false: 'at start' } as const;

/** The rows of the first table under `## Configuration`, as cells (header included). */
function configurationTable(markdown: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === '## Configuration');
  expect(start, 'README.md has a Configuration section').toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('## ')) break;
    if (!line.startsWith('|')) {
      if (rows.length > 0) break;
      continue;
    }
    rows.push(line.trim().replace(/^\||\|$/g, '').split('|').map((cell) => cell.trim()));
  }
  return rows.filter((cells) => !cells.every((cell) => /^:?-+:?$/.test(cell)));
}

const shown = (value: string | undefined) => (value === undefined ? NONE : `\`${value}\``);

function expectedRow(setting: Setting<unknown>): string[] {
  return [
    shown(setting.env),
    shown(setting.flag),
    shown(setting.sttKey),
    setting.meaning,
    setting.default,
    READ[`${setting.perRequest}`],
  ];
}

describe('README.md Configuration table', () => {
  const [header, ...rows] = configurationTable(fs.readFileSync(README, 'utf8'));

  it('has the columns the comparison reads', () => {
    expect(header).toEqual(HEADER);
  });

  it('lists exactly the settings table, in its order', () => {
    expect(rows.map((cells) => cells[0])).toEqual(SETTING_NAMES.map((name) => shown(SETTINGS[name].env)));
  });

  it('shows each setting as the table declares it (flag, stt.json key, meaning, default, read time)', () => {
    expect(rows).toEqual(SETTING_NAMES.map((name) => expectedRow(SETTINGS[name] as Setting<unknown>)));
  });
});
