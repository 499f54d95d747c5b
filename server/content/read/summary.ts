// What the agent will get from one attachment, in a few words, for its chip and for MCP clients (issue 25: "each
// chip tells what the agent will get, before sending"). Every reader in this folder returns one beside the parts
// it sends, so the words describe what was actually built for the agent, not a second guess at it.

/** ready: the agent gets all of it; partial: some of it (cut, pages without text); unreadable: only its name. */
export type ReadState = 'ready' | 'partial' | 'unreadable';

export interface ReadSummary {
  state: ReadState;
  /** For the person: "12,408 characters of text", "cut at 200,000 characters", "encrypted: …". */
  text: string;
}

/** 12408 → "12,408": the chip's numbers read as the person's own locale-free English text does. */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** "1 page", "3 pages". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

export const ready = (text: string): ReadSummary => ({ state: 'ready', text });
export const partial = (text: string): ReadSummary => ({ state: 'partial', text });
export const unreadable = (text: string): ReadSummary => ({ state: 'unreadable', text });

/** Said of a text file with nothing in it: "Ready: 0 characters of text" read as success (issue 38). */
export const EMPTY_FILE = 'the file is empty; only its name is sent';
export const EMPTY_DOCUMENT = 'the document has no text; only its name is sent';
export const NO_SPEECH = 'no speech was heard in it; only its name is sent';

/** The summary of text sent under a budget: whole, cut where the budget ran out, or nothing there to send. */
export function textSummary(sentChars: number, totalChars: number, what = 'characters of text', empty = EMPTY_FILE): ReadSummary {
  if (totalChars === 0) return partial(empty);
  if (sentChars >= totalChars) return ready(`${count(totalChars)} ${what}`);
  return partial(`cut at ${count(sentChars)} of ${count(totalChars)} characters`);
}
