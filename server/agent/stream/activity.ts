// What the agent did while it wrote a reply, kept with the reply: one entry per tool it ran (name, a one-line
// preview of what it ran it on, how it ended, how long it took). The live `tool` / `tool_complete` frames show
// the same as cards while the reply streams; this is what the stored row keeps of them (`tool_activity`), so the
// cards are still there after the turn and after a reload (issue 23, finding 6).
import type { ToolActivity } from '../../core/wire.js';
import { redact } from '../../redact/index.js';

/**
 * Tool entries one reply keeps. An agent loop runs a few to some tens of tools in a turn; a looping agent may
 * run thousands, and each entry is written into the session file and sent with every GET /api/session. Past this
 * the rest are counted (`tool_activity_omitted`), not kept.
 */
export const MAX_STORED_TOOLS = 64;
/**
 * Characters of a stored preview: one line of a card, as the live card shows it (a command, a path, a query).
 * A preview is the agent's label for the call and may be a whole script; the card has room for a line.
 */
export const MAX_TOOL_PREVIEW_CHARS = 160;
/** Characters of a stored tool name: names are identifiers (`read_file`, `web_search`); this is a bound, not a style. */
export const MAX_TOOL_NAME_CHARS = 80;
/** Ends a name or preview cut at its bound. */
export const CUT_MARK = '…';

/** `text` on one line (every run of white space one space), at most `max` characters with CUT_MARK when cut. */
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  let cut = line.slice(0, max - CUT_MARK.length);
  // A cut between the two halves of a surrogate pair would leave half a character.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}${CUT_MARK}`;
}

/**
 * Redacted whole (the known secrets' values, then every rule: what the live card's projection applies), then
 * made one line and cut: cutting after redaction never leaves the start of a secret a rule would no longer see.
 */
function stored(text: string, max: number): string {
  return oneLine(redact(text), max);
}

interface Entry {
  tid: string;
  name: string;
  preview: string;
  status: ToolActivity['status'] | 'running';
  duration?: number;
}

export class ToolActivityLog {
  private readonly entries: Entry[] = [];
  /** Tools that started past MAX_STORED_TOOLS. */
  omitted = 0;

  started(tid: string, name: string, preview: string): void {
    if (this.find(tid)) return;
    if (this.entries.length >= MAX_STORED_TOOLS) {
      this.omitted++;
      return;
    }
    this.entries.push({ tid, name: stored(name, MAX_TOOL_NAME_CHARS), preview: stored(preview, MAX_TOOL_PREVIEW_CHARS), status: 'running' });
  }

  /**
   * A tool ended. One whose start was not seen (a gateway that skips it) is added as it ends, while there is room;
   * past the bound its start was already counted, or it is left out.
   */
  completed(tid: string, name: string, preview: string, durationSeconds: number, isError: boolean): void {
    if (!this.find(tid) && this.entries.length < MAX_STORED_TOOLS) this.started(tid, name, preview);
    const entry = this.find(tid);
    if (!entry) return;
    entry.status = isError ? 'failed' : 'finished';
    if (Number.isFinite(durationSeconds) && durationSeconds >= 0) entry.duration = durationSeconds;
  }

  get size(): number {
    return this.entries.length + this.omitted;
  }

  /** The entries as a row stores them: a tool still running when the reply ended (stop, failure, end) is `stopped`. */
  rows(): ToolActivity[] {
    return this.entries.map(({ name, preview, status, duration }) => ({
      name,
      preview,
      status: status === 'running' ? 'stopped' : status,
      ...(duration === undefined ? {} : { duration_seconds: duration }),
    }));
  }

  private find(tid: string): Entry | undefined {
    return this.entries.find((e) => e.tid === tid);
  }
}
