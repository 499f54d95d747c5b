// The paths of an extraction as a person reads them: relative to the folder the archive was extracted into
// (the server names them from the session's attachment folder, so `report.zip` holding `report/table.csv`
// would read `report/report/table.csv`), each once.

/** `files` (relative to the session's attachment folder, `/`-separated) made relative to the extraction folder `dest`. */
export function extractionRelative(files: readonly string[], dest: string | undefined): string[] {
  const folder = dest ? dest.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? '' : '';
  const prefix = folder ? `${folder}/` : '';
  const seen = new Set<string>();
  const out: string[] = [];
  for (const f of files) {
    const rel = prefix && f.startsWith(prefix) ? f.slice(prefix.length) : f;
    if (!rel || seen.has(rel)) continue;
    seen.add(rel);
    out.push(rel);
  }
  return out;
}

/** "report.zip was extracted into 3 files" (the message's words for an extracted archive). */
export function extractedInto(name: string, count: number | undefined): string {
  if (count === undefined) return `${name} (extracted)`;
  return `${name} was extracted into ${count} file${count === 1 ? '' : 's'}`;
}
