// A tool call's arguments as the agent wrote them: a JSON object in a string, possibly broken, huge or of the
// wrong shape. Read here into what the tools take, or into the one sentence that says what was wrong.
import { LIST_FILES, READ_FILE, SEARCH_DOCUMENTS } from './specs.js';
import { MAX_ARGUMENT_CHARS } from './limits.js';

export type Args = Record<string, unknown>;

/** The arguments as an object, or a sentence saying why they are not one. */
export function parseArgs(raw: string): Args | string {
  if (raw.length > MAX_ARGUMENT_CHARS) return `Refused: the arguments are longer than ${MAX_ARGUMENT_CHARS} characters.`;
  if (!raw.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return 'Refused: the arguments are not valid JSON; send an object such as {"name": "report.pdf"}.';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'Refused: the arguments must be a JSON object.';
  return parsed as Args;
}

/** The arguments as the live card's frame carries them: the object, or {} when there is none. */
export function toolArgs(raw: string): Args {
  const args = parseArgs(raw);
  return typeof args === 'string' ? {} : args;
}

const quoted = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The card's one line: what the tool was asked for (the activity log cuts and redacts it). */
export function toolPreview(name: string, raw: string): string {
  const args = toolArgs(raw);
  switch (name) {
    case LIST_FILES:
      return 'the conversation’s files';
    case READ_FILE: {
      const pages = quoted(args.pages);
      return `${quoted(args.name)}${pages ? `, pages ${pages}` : ''}`;
    }
    case SEARCH_DOCUMENTS:
      return quoted(args.query);
    default:
      return name;
  }
}
