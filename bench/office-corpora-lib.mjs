// The reference side of bench/office-corpora.mjs: what an independent reader finds in each real Office file,
// and the word recall of a sidecar against it. References: pandoc (`-t plain`) for .docx, python-pptx for
// .pptx, openpyxl for .xlsx; none of them shares code with Satchel's converter.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
// A reference reader that needs longer than this on one test file is stuck on it (pandoc on a pathological
// table); the file is then counted as one the reference cannot open, apart from the recall.
export const REFERENCE_TIMEOUT_MS = 60_000;
// Enough for the largest corpus file's text as JSON (POI's biggest workbooks hold a few MB of cells).
const MAX_BUFFER = 256 << 20;

/**
 * Words as the brief counts them: Unicode NFKC, lower case, split on anything that is not a letter, a
 * combining mark or a digit. A multiset: `a b a` is three words.
 */
export const words = (text) => text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];

// Emphasis markers are Markdown, not text: `abc**de**fg` is one word to whoever reads it (POI's Bug55142.docx
// bolds inside words). An escaped `\*` is a star of the document and stays.
const markdownText = (markdown) => markdown.replace(/(?<!\\)\*+/g, '');
// pandoc renders the equations it cannot write in Unicode as TeX between dollars: its control words
// (`\frac`, `\theta`, `\begin{pmatrix}`) are not words of the document. An inline span may cross lines (a
// matrix); a pair of dollar amounts read as one span loses nothing, as only backslash words are dropped.
const withoutTex = (plain) =>
  plain.replace(/\$\$[\s\S]*?\$\$|\$[^$]+\$/g, (math) => math.replace(/\\(?:begin|end)\{[^}]*\}|\\[A-Za-z]+/g, ' '));

/**
 * The share of the reference's words (each occurrence, up to as often as the sidecar has it) in the sidecar.
 * `reference` is plain text (pandoc's TeX math spans are read without their control words); `sidecar` is
 * Markdown (its emphasis markers are dropped first).
 */
export function wordRecall(reference, sidecar) {
  const count = (list) => list.reduce((m, w) => m.set(w, (m.get(w) ?? 0) + 1), new Map());
  const ref = count(words(withoutTex(reference)));
  const got = count(words(markdownText(sidecar)));
  let total = 0;
  let matched = 0;
  const missing = new Map();
  for (const [w, n] of ref) {
    total += n;
    const found = Math.min(n, got.get(w) ?? 0);
    matched += found;
    if (found < n) missing.set(w, n - found);
  }
  // Most-missed first, so the worst files' lines name what was lost.
  const missed = [...missing].sort((a, b) => b[1] - a[1]).map(([w, n]) => (n > 1 ? `${w}×${n}` : w));
  return { total, matched, recall: total ? matched / total : 1, missing: missed };
}

/** `pandoc -t plain` of a .docx: `{ text }`, or `{ error }` when pandoc cannot read it. */
export async function pandocText(file) {
  try {
    const { stdout } = await run('pandoc', ['-f', 'docx', '-t', 'plain', '--wrap=none', file], { timeout: REFERENCE_TIMEOUT_MS, maxBuffer: MAX_BUFFER });
    return { text: stdout };
  } catch (err) {
    return { error: firstLine(err.stderr || err.message) };
  }
}

// python-pptx: every slide's shapes (inside groups too), their text frames and table cells, and the notes
// page's text. openpyxl (cached values, as `data_only`): every worksheet's non-empty cells, typed, in the
// shape bench/office-recall-lib.mjs cellRecall takes (`float`, `date` as ISO, `time` as PT..H..M..S).
// One process per format reads the file list from stdin and prints one JSON line per file.
const PY_READER = String.raw`
import sys, json, signal, datetime, re
# openpyxl leaves OOXML's escapes for characters XML cannot carry (_x000D_) as they are; Excel shows the character.
def unescape(s): return re.sub(r'_x([0-9A-Fa-f]{4})_', lambda m: chr(int(m.group(1), 16)), s)
class Slow(Exception): pass
def alarm(*_): raise Slow('reference timed out')
signal.signal(signal.SIGALRM, alarm)
fmt, limit = sys.argv[1], int(sys.argv[2])
def pptx_text(path):
    from pptx import Presentation
    out = []
    def shapes(coll):
        for s in coll:
            if s.shape_type == 6:  # MSO_SHAPE_TYPE.GROUP
                shapes(s.shapes)
                continue
            if s.has_text_frame: out.append(s.text_frame.text)
            if s.has_table:
                for row in s.table.rows:
                    for cell in row.cells: out.append(cell.text)
    p = Presentation(path)
    for slide in p.slides:
        shapes(slide.shapes)
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            out.append(slide.notes_slide.notes_text_frame.text)
    return {'text': '\n'.join(out)}
def xlsx_cells(path):
    import openpyxl
    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    sheets, text = [], []
    for ws in wb.worksheets:
        cells = []
        for row in ws.iter_rows(values_only=True):
            for v in row:
                if v is None or v == '': continue
                if isinstance(v, bool): cells.append({'type': 'boolean', 'value': 'true' if v else 'false', 'shown': 'TRUE' if v else 'FALSE'})
                elif isinstance(v, (int, float)): cells.append({'type': 'float', 'value': repr(v), 'shown': repr(v)})
                elif isinstance(v, datetime.datetime): cells.append({'type': 'date', 'value': v.isoformat(), 'shown': v.isoformat(' ')})
                elif isinstance(v, datetime.date): cells.append({'type': 'date', 'value': v.isoformat(), 'shown': v.isoformat()})
                elif isinstance(v, datetime.time): cells.append({'type': 'time', 'value': 'PT%dH%dM%sS' % (v.hour, v.minute, v.second + v.microsecond / 1e6), 'shown': v.isoformat()})
                elif isinstance(v, datetime.timedelta):
                    s = v.total_seconds(); cells.append({'type': 'time', 'value': 'PT%dH%dM%sS' % (s // 3600, s % 3600 // 60, s % 60), 'shown': str(v)})
                else:
                    t = unescape(str(v)); cells.append({'type': 'string', 'value': None, 'shown': t}); text.append(t)
        sheets.append({'name': ws.title, 'cells': cells})
    wb.close()
    return {'text': '\n'.join(text), 'sheets': sheets}
read = pptx_text if fmt == 'pptx' else xlsx_cells
for line in sys.stdin:
    path = line.rstrip('\n')
    signal.alarm(limit)
    try: r = read(path)
    except BaseException as e: r = {'error': (type(e).__name__ + ': ' + str(e)).splitlines()[0][:200] if str(e) else type(e).__name__}
    signal.alarm(0)
    r['file'] = path
    print(json.dumps(r), flush=True)
`;

/**
 * The python reference's reading of every file of one format: Map file → `{ text, sheets? }` or `{ error }`.
 * `python` is the interpreter that has python-pptx and openpyxl (Debian's /usr/bin/python3 with
 * python3-openpyxl; python-pptx from its source tree on PYTHONPATH).
 */
export function pythonReadings(format, files, { python = 'python3', pythonPath } = {}) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...(pythonPath ? { PYTHONPATH: pythonPath } : {}) };
    const child = execFile(python, ['-c', PY_READER, format, String(REFERENCE_TIMEOUT_MS / 1000)], { env, maxBuffer: 4 * MAX_BUFFER }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${format} reference failed: ${firstLine(stderr || err.message)}`));
      const out = new Map();
      for (const line of stdout.split('\n').filter(Boolean)) {
        const r = JSON.parse(line);
        out.set(r.file, r);
      }
      resolve(out);
    });
    child.stdin.end(files.map((f) => `${f}\n`).join(''));
  });
}

const firstLine = (s) => String(s).trim().split('\n').filter(Boolean).pop()?.slice(0, 200) ?? '';

/** Median and 95th percentile (nearest rank) of a list of numbers. */
export function quantiles(list) {
  const s = [...list].sort((a, b) => a - b);
  const at = (q) => (s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] : NaN);
  return { median: s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN, p95: at(0.95) };
}
