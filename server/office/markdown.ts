// Markdown output helpers shared by the three converters. Text from a document is escaped so that it reads
// back as the same text: a `*` in a cell stays a star, a line starting with `#` stays a line, not a heading.

/** Inline characters that would otherwise start emphasis, code, links or raw HTML. */
const INLINE_SPECIAL = /[\\`*_[\]<]/g;
/** Line starts that would otherwise open a heading, quote, list item or thematic break. */
const BLOCK_START = /^(\s*)(#{1,6}(?=\s|$)|>|[-+](?=\s|$)|[-=]+(?=\s*$)|\d{1,9}[.)](?=\s|$))/;

export const TRUNCATION_NOTICE = (max: number) => `*[Preview truncated at ${max.toLocaleString('en-US')} characters]*`;

export function escapeInline(text: string): string {
  return text.replace(INLINE_SPECIAL, '\\$&');
}

/** Escape block markers at the start of every line of an already inline-escaped text. */
export function escapeLineStarts(text: string): string {
  if (!text.includes('\n')) return escapeLineStart(text);
  return text.split('\n').map(escapeLineStart).join('\n');
}

function escapeLineStart(line: string): string {
  return line.replace(BLOCK_START, (_whole, space: string, marker: string) =>
    /^\d/.test(marker) ? `${space}${marker.slice(0, -1)}\\${marker.slice(-1)}` : `${space}\\${marker}`,
  );
}

/** Whitespace runs (newlines and tabs included) become one space; the ends are trimmed. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A heading line; the text must already be escaped, and is collapsed to one line. */
export function heading(level: number, text: string): string {
  return `${'#'.repeat(level)} ${collapseWhitespace(text)}`;
}

/** Escape a raw text for a table cell: one line, `|` escaped. */
export function tableCell(text: string): string {
  return escapeInline(collapseWhitespace(text)).replace(/\|/g, '\\|');
}

/**
 * A GitHub-flavoured Markdown table from already-escaped cells. The first row is the header, as GFM requires;
 * short rows are padded so every row has the same number of columns.
 */
export function table(rows: readonly (readonly string[])[]): string {
  const width = Math.max(1, ...rows.map((r) => r.length));
  const line = (cells: readonly string[]) => {
    const padded = Array.from({ length: width }, (_, i) => cells[i] ?? '');
    return `| ${padded.join(' | ')} |`.replace(/ {2}\|/g, ' |');
  };
  const [header = [], ...body] = rows;
  return [line(header), line(Array.from({ length: width }, () => '---')), ...body.map(line)].join('\n');
}

/** Join blocks with blank lines, dropping empty ones; the result ends with one newline (or is empty). */
export function joinBlocks(blocks: readonly string[]): string {
  const kept = blocks.filter((b) => b.trim() !== '');
  return kept.length === 0 ? '' : `${kept.join('\n\n')}\n`;
}

/** Cut `markdown` to at most `max` characters and say so; a surrogate pair is never split. */
export function capPreview(markdown: string, max: number): string {
  if (markdown.length <= max) return markdown;
  let end = max;
  const last = markdown.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  const kept = markdown.slice(0, end);
  return `${kept}${kept.endsWith('\n') ? '' : '\n'}\n${TRUNCATION_NOTICE(max)}\n`;
}
