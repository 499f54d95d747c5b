// Office files made by the real tool: LibreOffice converts flat ODF sources (testing/real/) to docx, pptx
// and xlsx. Tests that use it skip, saying why, where it is not installed (Debian: libreoffice-*-nogui).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const SOFFICE = ['/usr/bin/soffice', '/usr/local/bin/soffice'].find((p) => existsSync(p)) ?? null;
export const SOFFICE_MISSING = 'soffice (LibreOffice) is not installed: apt-get install libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui';
// A cold start converts a small file in 1-3 s; a loaded shared machine can take many times that.
const SOFFICE_TIMEOUT_MS = 120_000;
export const REAL_SOURCES = path.join(path.dirname(new URL(import.meta.url).pathname), 'real');

/** Convert each of `sources` to `target` (docx, pptx, xlsx, csv) into `outDir`; returns the output paths. */
export async function sofficeConvert(sources: readonly string[], target: string, outDir: string): Promise<string[]> {
  if (!SOFFICE) throw new Error(SOFFICE_MISSING);
  // Its own profile: a concurrent LibreOffice (another test, the user's) would otherwise take the conversion.
  const profile = `file://${path.join(outDir, '.soffice-profile')}`;
  await run(SOFFICE, [`-env:UserInstallation=${profile}`, '--headless', '--convert-to', target, '--outdir', outDir, ...sources], {
    timeout: SOFFICE_TIMEOUT_MS,
  });
  const ext = target.split(':')[0];
  const outputs = sources.map((s) => path.join(outDir, `${path.basename(s, path.extname(s))}.${ext}`));
  for (const out of outputs) if (!existsSync(out)) throw new Error(`soffice did not write ${out}`);
  return outputs;
}
