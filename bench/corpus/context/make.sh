#!/bin/sh
# Makes the issue-36 recall corpus (bench/context-recall.mjs) from real English text on this machine with real
# tools: LibreOffice headless, pandoc, ImageMagick + img2pdf, zip. The sources and their licenses: README.md here.
# Usage: sh bench/corpus/context/make.sh [out-dir] [committed|handbook|all]   (default: this folder, committed).
# Run from the project root, where node_modules resolves. "committed" makes the 19 files kept in git (the bench uses
# them as committed, so the page numbers in questions.json stay true); "handbook" makes the 150-page PDF (1.2 MiB,
# not committed: the bench makes it in its run; the same tools and fonts give the same pages).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE}
WHAT=${2:-committed}
NM=${NM:-node_modules}
LIC=/usr/share/common-licenses
WORK=$(mktemp -d /tmp/ctx-corpus.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# A private LibreOffice profile: other soffice runs on the machine do not share (or lock) this one.
SOFFICE="soffice -env:UserInstallation=file://$WORK/profile --headless"

# pandoc Markdown → docx (the README's own structure as Word headings).
md2docx() { pandoc -f gfm -t docx -o "$2" "$1"; }
# anything LibreOffice opens → $2 format, written into $3.
lo() { $SOFFICE --convert-to "$2" --outdir "$3" "$1" >/dev/null 2>&1; }

committed() {
# 1–2, 15: license texts as plain text → PDF (Writer's text import).
for name in GPL-3 Apache-2.0 LGPL-2.1; do
  lower=$(echo "$name" | tr 'A-Z' 'a-z')
  cp "$LIC/$name" "$WORK/$lower-license.txt"
  lo "$WORK/$lower-license.txt" pdf "$WORK"
  cp "$WORK/$lower-license.pdf" "$OUT/$lower-license.pdf"
done

# 3, 4, 17, 19: READMEs → docx (pandoc) → PDF (LibreOffice).
for p in dotenv semver mammoth socks; do
  md2docx "$NM/$p/README.md" "$WORK/$p-readme.docx"
  lo "$WORK/$p-readme.docx" pdf "$WORK"
  cp "$WORK/$p-readme.pdf" "$OUT/$p-readme.pdf"
done

# 6: a scanned-looking PDF: the BSD licence and the start of the Artistic licence, one page each, set by
# LibreOffice, rendered to greyscale images by Ghostscript (150 dpi), turned a little, greyed and noised with sharp
# as a flatbed scan would, saved as JPEG and wrapped by img2pdf. No text layer: only OCR can read it.
i=0
for part in BSD Artistic; do
  i=$((i + 1))
  head -c 2400 "$LIC/$part" > "$WORK/scan$i.txt"
  lo "$WORK/scan$i.txt" pdf "$WORK"
  gs -q -dNOPAUSE -dBATCH -sDEVICE=pnggray -r150 -dFirstPage=1 -dLastPage=1 -sOutputFile="$WORK/scan$i.png" "$WORK/scan$i.pdf"
  node -e '
const sharp = require(require.resolve("sharp", { paths: [process.cwd()] }));
const [src, dst] = process.argv.slice(1);
(async () => {
  const img = sharp(src).rotate(0.7, { background: "#f4f4f0" }).greyscale().linear(0.82, 30);
  const { width, height } = await img.clone().metadata().then(() => img.clone().toBuffer({ resolveWithObject: true })).then((r) => r.info);
  const noise = await sharp({ create: { width, height, channels: 3, noise: { type: "gaussian", mean: 128, sigma: 18 } } }).greyscale().png().toBuffer();
  await sharp(await img.png().toBuffer()).composite([{ input: noise, blend: "soft-light" }]).greyscale().jpeg({ quality: 72 }).toFile(dst);
})().catch((e) => { console.error(e); process.exit(1); });
' "$WORK/scan$i.png" "$WORK/scan$i.jpg"
done
img2pdf --pagesize Letter -o "$OUT/scanned-licenses.pdf" "$WORK/scan1.jpg" "$WORK/scan2.jpg"

# 7–8, 10, 18: READMEs → docx with pandoc.
md2docx "$NM/commander/Readme.md" "$OUT/commander-readme.docx"
md2docx "$NM/debug/README.md" "$OUT/debug-readme.docx"
md2docx "$NM/undici/README.md" "$OUT/undici-readme.docx"
md2docx "$NM/cacache/README.md" "$OUT/cacache-readme.docx"

# 9: the MPL 2.0 text → docx with LibreOffice.
cp "$LIC/MPL-2.0" "$WORK/mpl-2.0-license.txt"
lo "$WORK/mpl-2.0-license.txt" docx:"MS Word 2007 XML" "$WORK"
cp "$WORK/mpl-2.0-license.docx" "$OUT/mpl-2.0-license.docx"

# 11: a sheet of the project's npm packages (name, version, license, description), CSV → xlsx.
node -e '
const fs = require("fs"), path = require("path");
const nm = process.argv[1];
const q = (s) => "\"" + String(s ?? "").replace(/"/g, "\"\"").replace(/\s+/g, " ") + "\"";
const rows = [["Package", "Version", "License", "Description"].map(q).join(",")];
for (const name of fs.readdirSync(nm).filter((n) => !n.startsWith(".") && !n.startsWith("@")).sort()) {
  try {
    const p = JSON.parse(fs.readFileSync(path.join(nm, name, "package.json"), "utf8"));
    if (!p.description) continue;
    rows.push([p.name, p.version, typeof p.license === "string" ? p.license : "", p.description].map(q).join(","));
  } catch {}
}
fs.writeFileSync(process.argv[2], rows.join("\n") + "\n");
' "$NM" "$WORK/npm-packages.csv"
$SOFFICE --infilter=CSV:44,34,76,1 --convert-to xlsx --outdir "$WORK" "$WORK/npm-packages.csv" >/dev/null 2>&1
cp "$WORK/npm-packages.xlsx" "$OUT/npm-packages.xlsx"

# 12: a sheet of the machine's Debian packages (name, version, section, summary), CSV → xlsx.
dpkg-query -W -f='"${Package}","${Version}","${Section}","${binary:Summary}"\n' | LC_ALL=C sort > "$WORK/body.csv"
{ echo '"Package","Version","Section","Summary"'; cat "$WORK/body.csv"; } > "$WORK/debian-packages.csv"
$SOFFICE --infilter=CSV:44,34,76,1 --convert-to xlsx --outdir "$WORK" "$WORK/debian-packages.csv" >/dev/null 2>&1
cp "$WORK/debian-packages.xlsx" "$OUT/debian-packages.xlsx"

# 13–14: slide decks: a README's sections as slides (pandoc's pptx writer, one slide per level-2 heading).
pandoc -f gfm -t pptx --slide-level=2 -o "$OUT/picomatch-slides.pptx" "$NM/picomatch/README.md"
pandoc -f gfm -t pptx --slide-level=2 -o "$OUT/yazl-slides.pptx" "$NM/yazl/README.md"

# 16: a zip of text files (license texts and READMEs).
mkdir -p "$WORK/zip/licenses" "$WORK/zip/readmes"
cp "$LIC/CC0-1.0" "$WORK/zip/licenses/CC0-1.0.txt"
cp "$LIC/GPL-1" "$WORK/zip/licenses/GPL-1.txt"
cp "$NM/source-map/README.md" "$WORK/zip/readmes/source-map.md"
cp "$NM/qs/README.md" "$WORK/zip/readmes/qs.md"
cp "$NM/ini/README.md" "$WORK/zip/readmes/ini.md"
rm -f "$OUT/texts.zip"
(cd "$WORK/zip" && TZ=UTC touch -t 202601010000 licenses/* readmes/* && zip -X -q -r "$OUT/texts.zip" licenses readmes)

# 20: a Markdown file as it is.
cp "$NM/expect-type/README.md" "$OUT/expect-type-readme.md"
}

handbook() {
# 5: the long PDF: six package manuals, each from a new page, one Word document → PDF (~150 pages).
: > "$WORK/handbook.md"
for f in got/readme.md yauzl/README.md tar/README.md ip-address/README.md fast-check/README.md node-gyp/CHANGELOG.md; do
  cat "$NM/$f" >> "$WORK/handbook.md"
  printf '\n\n```{=openxml}\n<w:p><w:r><w:br w:type="page"/></w:r></w:p>\n```\n\n' >> "$WORK/handbook.md"
done
pandoc -f gfm+raw_attribute -t docx -o "$WORK/node-package-handbook.docx" "$WORK/handbook.md"
lo "$WORK/node-package-handbook.docx" pdf "$WORK"
cp "$WORK/node-package-handbook.pdf" "$OUT/node-package-handbook.pdf"

}

case "$WHAT" in
  committed) committed ;;
  handbook) handbook ;;
  all) committed; handbook ;;
  *) echo "usage: make.sh [out-dir] [committed|handbook|all]" >&2; exit 2 ;;
esac
ls -l "$OUT"
