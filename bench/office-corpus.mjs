// The documents bench/office-recall.mjs measures, all written by real tools: the test documents of
// server/office/real-files.test.ts (LibreOffice from server/office/testing/real/), the repository's own
// Markdown docs at a pinned commit turned into Word files (pandoc → odt → LibreOffice docx, and pandoc's own
// docx) and into decks with speaker notes (pandoc pptx, and LibreOffice's re-save of it), and workbooks:
// a generated four-sheet one (LibreOffice from flat ODS) and two CSVs in US and German conventions imported
// by LibreOffice's CSV filter; and a workbook openpyxl writes with Excel's built-in format ids.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// The docs are read at this commit, so that a rerun measures the same words.
export const DOCS_COMMIT = 'e4372140ce019aa69f725656ba70364f38469a1b';
const DOCS = ['README.md', 'docs/API.md', 'docs/architecture.md', 'docs/benchmarks.md', 'docs/mcp.md', 'docs/spec-notes.md'];
// As many slides as the real-files test's big deck: over 256 zip members.
const BIG_DECK_SLIDES = 80;
const LEDGER_ROWS = 300;
const CSV_ROWS = 120;
// LibreOffice formats by the locale it runs in; C maps to en-US, the same on every machine.
const SOFFICE_ENV = { ...process.env, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' };

export function soffice(work, outDir, target, files, infilter) {
  fs.mkdirSync(outDir, { recursive: true });
  const args = [`-env:UserInstallation=file://${work}/profile`, '--headless'];
  if (infilter) args.push(`--infilter=${infilter}`);
  execFileSync('soffice', [...args, '--convert-to', target, '--outdir', outDir, ...files], { stdio: 'pipe', env: SOFFICE_ENV });
  const ext = target.split(':')[0];
  return files.map((f) => path.join(outDir, `${path.basename(f, path.extname(f))}.${ext}`));
}

/** Every document of the corpus: `{format, name, file, origin}`. */
export function buildCorpus(root, work) {
  const real = (name) => path.join(root, 'server/office/testing/real', name);
  const src = path.join(work, 'src');
  fs.mkdirSync(src, { recursive: true });
  const docs = [];
  const add = (format, files, origin) => files.forEach((file) => docs.push({ format, name: path.basename(file), file, origin }));

  // The test documents, made the way real-files.test.ts makes them.
  const deck = fs.readFileSync(real('deck.fodp'), 'utf8');
  const pages = Array.from({ length: BIG_DECK_SLIDES }, (_, i) =>
    `<draw:page draw:name="p${i}" draw:master-page-name="Default"><draw:frame presentation:class="title" svg:x="2cm" svg:y="1cm" svg:width="24cm" svg:height="3cm"><draw:text-box><text:p>Slide title ${i + 1}</text:p></draw:text-box></draw:frame>` +
    `<presentation:notes><draw:frame presentation:class="notes" svg:x="2cm" svg:y="14cm" svg:width="17cm" svg:height="10cm"><draw:text-box><text:p>Speaker note ${i + 1}</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>`,
  ).join('');
  fs.writeFileSync(path.join(src, 'big.fodp'), deck.replace(/<draw:page [\s\S]*<\/draw:page>/, pages));
  const sheet = fs.readFileSync(real('figures.fods'), 'utf8');
  const nullDate1904 = '<table:calculation-settings><table:null-date table:date-value="1904-01-01"/></table:calculation-settings>';
  fs.writeFileSync(path.join(src, 'figures1904.fods'), sheet.replace('<office:spreadsheet>', `<office:spreadsheet>${nullDate1904}`));
  add('docx', soffice(work, path.join(work, 'test'), 'docx', [real('report.fodt')]), 'test document (LibreOffice)');
  add('pptx', soffice(work, path.join(work, 'test'), 'pptx', [real('deck.fodp'), path.join(src, 'big.fodp')]), 'test document (LibreOffice)');
  add('xlsx', soffice(work, path.join(work, 'test'), 'xlsx', [real('figures.fods'), path.join(src, 'figures1904.fods')]), 'test document (LibreOffice)');

  // Word: the docs through pandoc's ODT writer, then LibreOffice's docx; and pandoc's own docx of the API.
  const md = DOCS.map((doc) => {
    const file = path.join(src, path.basename(doc));
    fs.writeFileSync(file, execFileSync('git', ['-C', root, 'show', `${DOCS_COMMIT}:${doc}`]));
    return file;
  });
  const pandoc = (from, to, out, extra = [], reader = 'gfm') =>
    execFileSync('pandoc', ['-f', reader, '-t', to, `--resource-path=${root}`, ...extra, '-o', out, from], { stdio: 'pipe' });
  const odts = md.map((file) => {
    const out = file.replace(/\.md$/, '.odt');
    pandoc(file, 'odt', out);
    return out;
  });
  add('docx', soffice(work, path.join(work, 'lo'), 'docx', odts), 'repository docs: pandoc → odt → LibreOffice');
  const pandocDocx = path.join(work, 'pandoc', 'API.docx');
  fs.mkdirSync(path.dirname(pandocDocx), { recursive: true });
  pandoc(path.join(src, 'API.md'), 'docx', pandocDocx);
  add('docx', [pandocDocx], 'repository docs: pandoc docx');

  // PowerPoint: README, architecture and MCP docs as decks with speaker notes (asDeck).
  const decks = ['README.md', 'architecture.md', 'mcp.md'].map((name) => {
    const out = path.join(work, 'pandoc', name.replace(/\.md$/, '.pptx'));
    const deckMd = path.join(src, name.replace(/\.md$/, '-deck.md'));
    fs.writeFileSync(deckMd, asDeck(fs.readFileSync(path.join(src, name), 'utf8')));
    // Pandoc's Markdown, not GFM: speaker notes are a fenced div.
    pandoc(deckMd, 'pptx', out, ['--slide-level=2'], 'markdown');
    return out;
  });
  add('pptx', decks, 'repository docs: pandoc pptx with notes');
  add('pptx', soffice(work, path.join(work, 'lo'), 'pptx', decks), 'the same decks re-saved by LibreOffice');

  // Excel: a generated four-sheet workbook, and two CSVs imported in their locales (detect special numbers).
  fs.writeFileSync(path.join(src, 'ledger.fods'), ledgerFods(fs.readFileSync(path.join(src, 'benchmarks.md'), 'utf8')));
  add('xlsx', soffice(work, path.join(work, 'lo'), 'xlsx', [path.join(src, 'ledger.fods')]), 'generated 4-sheet workbook (LibreOffice)');
  const { us, de } = localeCsvs();
  fs.writeFileSync(path.join(src, 'orders-us.csv'), us);
  fs.writeFileSync(path.join(src, 'orders-de.csv'), de);
  add('xlsx', soffice(work, path.join(work, 'lo'), 'xlsx', [path.join(src, 'orders-us.csv')], 'Text - txt - csv (StarCalc):44,34,76,1,,1033,false,true'), 'US CSV imported by LibreOffice');
  add('xlsx', soffice(work, path.join(work, 'lo'), 'xlsx', [path.join(src, 'orders-de.csv')], 'Text - txt - csv (StarCalc):59,34,76,1,,1031,false,true'), 'German CSV imported by LibreOffice');
  // Excel's built-in formats by id (14 short date, 22 date-time, 4, 10, 37 …), as openpyxl writes them, the
  // way Excel does: LibreOffice shows the locale-dependent ones in its locale, the sidecar in ISO.
  if (fs.existsSync(DEBIAN_PYTHON) && spawnOk(DEBIAN_PYTHON, ['-c', 'import openpyxl'])) {
    const out = path.join(work, 'openpyxl', 'builtin-formats.xlsx');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    execFileSync(DEBIAN_PYTHON, ['-c', OPENPYXL_WORKBOOK, out], { stdio: 'pipe' });
    add('xlsx', [out], 'openpyxl, Excel built-in format ids');
  } else {
    console.error('skipping the openpyxl workbook: apt-get install python3-openpyxl');
  }
  return docs;
}

// Debian's python3-openpyxl is installed for Debian's own interpreter, not for one earlier on the PATH.
const DEBIAN_PYTHON = '/usr/bin/python3';
const spawnOk = (cmd, args) => {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const OPENPYXL_ROWS = 150;
const OPENPYXL_WORKBOOK = String.raw`
import sys, random, datetime
from openpyxl import Workbook
random.seed(14)
wb = Workbook()
ws = wb.active
ws.title = 'Invoices'
formats = ['General', 'mm-dd-yy', 'm/d/yy h:mm', '#,##0.00', '0.00%', '#,##0', 'h:mm AM/PM', '[h]:mm:ss', '0.00E+00', '#,##0 ;(#,##0)', 'General']
ws.append(['Invoice', 'Date', 'Issued', 'Amount', 'Rate', 'Units', 'Time', 'Elapsed', 'Ratio', 'Balance', 'Client'])
start = datetime.datetime(2018, 1, 1)
for i in range(1, ${OPENPYXL_ROWS} + 1):
    day = start + datetime.timedelta(days=random.randrange(2500), minutes=random.randrange(1440))
    row = [i, day.date(), day, round(random.uniform(-500, 90000), 2), random.randrange(0, 2500) / 10000,
           random.randrange(10 ** 7), datetime.time(random.randrange(24), random.randrange(60)),
           datetime.timedelta(seconds=random.randrange(200000)), random.uniform(0, 1) * 10 ** random.randrange(-5, 9),
           random.randrange(-80000, 80000), random.choice(['Acme Ltd', 'Nordwind AG', 'Société Générale', 'Ōsaka Trading'])]
    ws.append(row)
    for col, fmt in enumerate(formats, start=1):
        ws.cell(row=i + 1, column=col).number_format = fmt
wb.save(sys.argv[1])
`;

/**
 * A Markdown document as a deck: every block (paragraph, list item, table, code) under a heading becomes a slide
 * titled by that heading, except that every second block, unless it is a table, code or HTML, becomes the speaker
 * notes of the slide before it.
 */
export function asDeck(markdown) {
  const blocks = [];
  for (const part of markdown.split(/\n{2,}/)) {
    // A fenced code block keeps its blank lines.
    const last = blocks.at(-1);
    if (last !== undefined && (last.match(/^```/gm) ?? []).length % 2 === 1) blocks[blocks.length - 1] = `${last}\n\n${part}`;
    // Each item of a list is a block of its own.
    else if (/^([-*+]|\d+\.) /.test(part.trim())) blocks.push(...part.trim().split(/\n(?=(?:[-*+]|\d+\.) )/));
    else if (part.trim()) blocks.push(part.trim());
  }
  const out = [];
  let title = 'Introduction';
  let count = 0;
  for (const block of blocks) {
    const heading = /^#{1,6} (.*)$/.exec(block);
    if (heading && !block.includes('\n')) {
      title = heading[1];
      count = 0;
      continue;
    }
    count += 1;
    const paragraph = block.replace(/^([-*+]|\d+\.) /, '').replace(/\n {2,}/g, '\n');
    if (count % 2 === 0 && !/^[|`>!<#]/.test(paragraph) && out.length) out.push(`::: notes\n${paragraph}\n:::`);
    else out.push(`## ${title} (${count})`, block);
  }
  return out.join('\n\n') + '\n';
}

/** A seeded generator, so every run builds the same workbook. */
function random(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const xml = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
const text = (s) => `<table:table-cell office:value-type="string"><text:p>${xml(s)}</text:p></table:table-cell>`;
const float = (v, style, formula) =>
  `<table:table-cell${style ? ` table:style-name="${style}"` : ''}${formula ? ` table:formula="${xml(formula)}"` : ''} office:value-type="float" office:value="${v}"/>`;
const pct = (v, style) => `<table:table-cell table:style-name="${style}" office:value-type="percentage" office:value="${v}"/>`;
const money = (v, style) => `<table:table-cell table:style-name="${style}" office:value-type="currency" office:currency="EUR" office:value="${v}"/>`;
const date = (iso, style) => `<table:table-cell table:style-name="${style}" office:value-type="date" office:date-value="${iso}"/>`;
const time = (h, m, s, style) => `<table:table-cell table:style-name="${style}" office:value-type="time" office:time-value="PT${h}H${m}M${s}S"/>`;
const bool = (v) => `<table:table-cell table:style-name="cbool" office:value-type="boolean" office:boolean-value="${v}"/>`;
const row = (cells) => `<table:table-row>${cells.join('')}</table:table-row>`;
const pad = (n) => String(n).padStart(2, '0');

const LEDGER_STYLES = `
  <number:date-style style:name="Ndmy"><number:day number:style="long"/><number:text>/</number:text><number:month number:style="long"/><number:text>/</number:text><number:year number:style="long"/></number:date-style>
  <number:date-style style:name="Nisotime"><number:year number:style="long"/><number:text>-</number:text><number:month number:style="long"/><number:text>-</number:text><number:day number:style="long"/><number:text> </number:text><number:hours number:style="long"/><number:text>:</number:text><number:minutes number:style="long"/></number:date-style>
  <number:date-style style:name="Nmonth"><number:month number:textual="true"/><number:text> </number:text><number:year number:style="long"/></number:date-style>
  <number:date-style style:name="Nlong"><number:day-of-week number:style="long"/><number:text>, </number:text><number:day/><number:text> </number:text><number:month number:textual="true" number:style="long"/><number:text> </number:text><number:year number:style="long"/></number:date-style>
  <number:time-style style:name="Ndur" number:truncate-on-overflow="false"><number:hours/><number:text>:</number:text><number:minutes number:style="long"/></number:time-style>
  <number:currency-style style:name="Neur"><number:number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1" number:grouping="true"/><number:text> </number:text><number:currency-symbol number:language="de" number:country="DE">€</number:currency-symbol></number:currency-style>
  <number:percentage-style style:name="Npct1"><number:number number:decimal-places="1" number:min-decimal-places="1" number:min-integer-digits="1"/><number:text>%</number:text></number:percentage-style>
  <number:number-style style:name="Nint"><number:number number:decimal-places="0" number:min-integer-digits="1" number:grouping="true"/></number:number-style>
  <number:number-style style:name="Nsci"><number:scientific-number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1" number:min-exponent-digits="2"/></number:number-style>
  <number:number-style style:name="Nfrac"><number:fraction number:min-integer-digits="0" number:min-numerator-digits="1" number:min-denominator-digits="1"/></number:number-style>
  <number:number-style style:name="N2"><number:number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1"/></number:number-style>
  <number:boolean-style style:name="Nbool"><number:boolean/></number:boolean-style>
  <style:style style:name="cdmy" style:family="table-cell" style:data-style-name="Ndmy"/>
  <style:style style:name="cisotime" style:family="table-cell" style:data-style-name="Nisotime"/>
  <style:style style:name="cmonth" style:family="table-cell" style:data-style-name="Nmonth"/>
  <style:style style:name="clong" style:family="table-cell" style:data-style-name="Nlong"/>
  <style:style style:name="cdur" style:family="table-cell" style:data-style-name="Ndur"/>
  <style:style style:name="ceur" style:family="table-cell" style:data-style-name="Neur"/>
  <style:style style:name="cpct1" style:family="table-cell" style:data-style-name="Npct1"/>
  <style:style style:name="cint" style:family="table-cell" style:data-style-name="Nint"/>
  <style:style style:name="csci" style:family="table-cell" style:data-style-name="Nsci"/>
  <style:style style:name="cfrac" style:family="table-cell" style:data-style-name="Nfrac"/>
  <style:style style:name="c2" style:family="table-cell" style:data-style-name="N2"/>
  <style:style style:name="cbool" style:family="table-cell" style:data-style-name="Nbool"/>`;

const PAYEES = ['Café Lumière, Paris', 'Müller & Söhne GmbH', 'Hôtel "Le Phare"', 'Østfold Ferries', 'São Paulo office', '東京 supplier', 'Ridge Bike Repair', 'Łódź print shop'];
const CATEGORIES = ['Travel', 'Equipment', 'Lodging', 'Printing', 'Meals', 'Training'];

/** Transactions (dates, times, money, rates, durations, fractions, formulas), a summary, and docs tables. */
function ledgerFods(benchmarksMd) {
  const rnd = random(14);
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  let largest = -Infinity;
  const tx = [row(['No', 'Booked', 'Settled', 'Payee', 'Category', 'Amount', 'VAT', 'Duration', 'Units', 'Ratio', 'Share', 'Paid', 'Month', 'Net'].map(text))];
  for (let i = 1; i <= LEDGER_ROWS; i += 1) {
    const day = new Date(Date.UTC(2019, 0, 1) + Math.floor(rnd() * 1500) * 86_400_000);
    const iso = day.toISOString().slice(0, 10);
    const settled = `${iso}T${pad(Math.floor(rnd() * 24))}:${pad(Math.floor(rnd() * 60))}:00`;
    const amount = Math.round((rnd() * 20_000 - 2_000) * 1000) / 1000;
    largest = Math.max(largest, amount);
    const vat = pick([0, 0.055, 0.07, 0.1, 0.19, 0.2]);
    const r = i + 1;
    tx.push(
      row([
        float(i),
        date(iso, 'cdmy'),
        date(settled, 'cisotime'),
        text(`${pick(PAYEES)} #${1000 + i}`),
        text(pick(CATEGORIES)),
        money(amount, 'ceur'),
        pct(vat, 'cpct1'),
        time(Math.floor(rnd() * 60), pad(Math.floor(rnd() * 60)), '00', 'cdur'),
        float(Math.floor(rnd() * 2_000_000), 'cint'),
        float(rnd() * 10 ** Math.floor(rnd() * 12 - 6), 'csci'),
        float(pick([0.25, 0.5, 0.75, 1.5, 2.25, 0.2]), 'cfrac'),
        bool(rnd() < 0.5),
        date(`${iso.slice(0, 8)}01`, 'cmonth'),
        float(Math.round(amount * (1 - vat) * 1e6) / 1e6, 'c2', `of:=[.F${r}]*(1-[.G${r}])`),
      ]),
    );
  }
  const summary = [
    row([text('Generated'), date('2020-11-21', 'clong')]),
    row([text('Transactions'), float(LEDGER_ROWS, undefined, `of:=COUNT([Transactions.A2:.A${LEDGER_ROWS + 1}])`)]),
    row([text('Largest amount'), money(largest, 'ceur')]),
    row([text('Note'), text('Amounts in euro; VAT as charged; durations in hours and minutes.')]),
  ];
  const tables = markdownTables(benchmarksMd).map(row);
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
 <office:automatic-styles>${LEDGER_STYLES}
 </office:automatic-styles>
 <office:body><office:spreadsheet>
  <table:table table:name="Transactions">${tx.join('\n')}</table:table>
  <table:table table:name="Summary">${summary.join('\n')}</table:table>
  <table:table table:name="Benchmarks (docs)">${tables.join('\n')}</table:table>
  <table:table table:name="Empty"/>
 </office:spreadsheet></office:body>
</office:document>
`;
}

/** The rows of every pipe table in a Markdown text, numbers as numbers, a blank row between tables. */
function markdownTables(markdown) {
  const rows = [];
  for (const block of markdown.split(/\n(?!\|)/)) {
    if (!block.startsWith('|')) continue;
    for (const line of block.split('\n')) {
      if (/^\|[\s:|-]+\|$/.test(line)) continue;
      const cells = line.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim().replace(/`/g, ''));
      rows.push(cells.map((c) => (/^-?\d+(\.\d+)?$/.test(c) ? float(c) : c ? text(c) : '<table:table-cell/>')));
    }
    rows.push([]);
  }
  return rows;
}

/** The same orders in US conventions (comma-separated, M/D/YYYY, $1,234.56) and German ones (semicolons, D.M.YYYY, 1.234,56 €). */
function localeCsvs() {
  const rnd = random(1404);
  const us = ['Order,Date,Customer,Amount,Discount,Time'];
  const de = ['Bestellung;Datum;Kunde;Betrag;Rabatt;Uhrzeit'];
  for (let i = 1; i <= CSV_ROWS; i += 1) {
    const d = new Date(Date.UTC(2021, 0, 1) + Math.floor(rnd() * 700) * 86_400_000);
    const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
    const cents = Math.floor(rnd() * 5_000_000);
    const whole = Math.floor(cents / 100).toLocaleString('en-US');
    const frac = pad(cents % 100);
    const discount = Math.floor(rnd() * 300) / 10;
    const [hh, mm] = [Math.floor(rnd() * 24), pad(Math.floor(rnd() * 60))];
    const customer = PAYEES[i % PAYEES.length];
    const quote = (s) => `"${s.replace(/"/g, '""')}"`;
    us.push([`A-${i}`, `${m}/${day}/${y}`, quote(customer), quote(`$${whole}.${frac}`), `${discount}%`, `${(hh % 12) || 12}:${mm} ${hh < 12 ? 'AM' : 'PM'}`].join(','));
    de.push([`A-${i}`, `${day}.${m}.${y}`, quote(customer), `${whole.replace(/,/g, '.')},${frac} €`, `${String(discount).replace('.', ',')} %`, `${hh}:${mm}`].join(';'));
  }
  return { us: us.join('\n') + '\n', de: de.join('\n') + '\n' };
}
