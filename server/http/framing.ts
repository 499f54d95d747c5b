// Request framing as the specification defines it (spec-notes 4.0, "Connection reuse"). It is judged
// from the raw header lines, never from the method, and the same code judges both the requests Node hands to
// us and the raw bytes of requests Node's parser refused (see clienterror.ts).

export interface Framing {
  /** The first Transfer-Encoding value trimmed of SP/HTAB (`(blank)` when empty); undefined when absent. */
  transferEncoding?: string;
  /** A Content-Length value is not a run of ASCII digits, or two values differ. */
  contentLengthUnreadable: boolean;
  /** The one declared length; undefined when no Content-Length was sent or it is unreadable. */
  contentLength?: number;
  /** An unsupported Transfer-Encoding, an unreadable Content-Length, or a declared non-zero length. */
  bodyDeclared: boolean;
}

const DIGITS = /^[0-9]+$/;
const MAX_ECHOED_CODING_CHARS = 100;

/** The 411 text of spec-notes 4.1 (first check), the coding shortened so a huge header is not echoed back whole. */
export function transferEncodingError(coding: string): string {
  const shown = coding.length > MAX_ECHOED_CODING_CHARS ? coding.slice(0, MAX_ECHOED_CODING_CHARS) + '…' : coding;
  return `Unsupported Transfer-Encoding: ${shown} (uploads must send an undecoded body with a Content-Length)`;
}

/** The framing verdict as an answer: the first two checks of spec-notes 4.1, in order; undefined when the framing is readable. */
export function framingRefusal(framing: Framing): [number, string] | undefined {
  if (framing.transferEncoding !== undefined) return [411, transferEncodingError(framing.transferEncoding)];
  if (framing.contentLengthUnreadable) return [400, 'Invalid Content-Length'];
  return undefined;
}

/** Trim SP and HTAB only: other whitespace (NBSP, CR inside a value, vertical tab) makes a value unreadable. */
function trimSpHtab(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** Judge framing from `[name, value, name, value, …]` (Node's rawHeaders shape). */
export function analyzeFraming(rawHeaders: readonly string[]): Framing {
  const lengths = new Set<string>();
  let sawLength = false;
  let unreadable = false;
  let transferEncoding: string | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    if (name === 'content-length') {
      sawLength = true;
      for (const piece of value.split(',')) {
        const trimmed = trimSpHtab(piece);
        if (!DIGITS.test(trimmed)) unreadable = true;
        // Leading zeros do not make two values different: "010" and "10" declare the same length.
        else lengths.add(trimmed.replace(/^0+(?=\d)/, ''));
      }
    } else if (name === 'transfer-encoding' && transferEncoding === undefined) {
      const first = trimSpHtab(value.split(',')[0] ?? '');
      transferEncoding = first === '' ? '(blank)' : first;
    }
  }
  if (lengths.size > 1) unreadable = true;
  let contentLength: number | undefined;
  if (sawLength && !unreadable) {
    const only = [...lengths][0]!;
    contentLength = only.length > 15 ? Number.POSITIVE_INFINITY : Number(only);
  }
  return {
    transferEncoding,
    contentLengthUnreadable: unreadable,
    contentLength,
    bodyDeclared: transferEncoding !== undefined || unreadable || (contentLength ?? 0) > 0,
  };
}

export interface RawHead {
  method: string;
  target: string;
  rawHeaders: string[];
}

const MAX_RAW_HEAD_BYTES = 64 * 1024;

/**
 * Parse the request line and header lines out of the bytes Node's parser refused. Lenient on purpose: it only
 * has to find the method, target and headers well enough to pick the specification's answer.
 */
export function parseRawHead(bytes: Buffer | undefined): RawHead | undefined {
  if (!bytes || bytes.length === 0) return undefined;
  const text = bytes.subarray(0, MAX_RAW_HEAD_BYTES).toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const head = end === -1 ? text : text.slice(0, end);
  const lines = head.split(/\r?\n/);
  const requestLine = (lines.shift() ?? '').split(' ');
  if (requestLine.length < 2) return undefined;
  const rawHeaders: string[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    rawHeaders.push(line.slice(0, colon).trim(), line.slice(colon + 1));
  }
  return { method: requestLine[0]!, target: requestLine[1]!, rawHeaders };
}
