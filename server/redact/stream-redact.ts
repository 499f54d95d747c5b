// Redaction of text that arrives in pieces (a reply's token and reasoning frames). Contract: what has gone out at
// any moment is a prefix of redact(the whole reply), whatever the pieces; after flush() it is all of it.
//
// Why that can be done without waiting for the end: redact(text) is the text cut into *pieces* at line breaks,
// at private-key blocks and at `[REDACTED PRIVATE KEY]` placeholders, each piece redacted on its own (no rule but
// a key block crosses a line break: server/redact/chars.ts isLineBreak, and the `npm run redact` tests hold
// redact(whole) == its lines one by one). So every finished piece goes out exactly, a key block goes out as
// REDACTED_PRIVATE_KEY the moment its BEGIN line is complete, and only the open piece (the current line) waits.
//
//
// The line judge (stableEnd) is stream-judge.ts; the restart bookkeeping that keeps a long line linear
// (restartPoint) is stream-restart.ts.
import { isLineBreak } from './chars.js';
import { findAll } from './engine.js';
import { apply, type Finding } from './finding.js';
import { findPrivateKeyBegin, findPrivateKeyEnd } from './pem.js';
import { REDACTED_PRIVATE_KEY, SHORT_MASK } from './mask.js';
import { BEGIN_MARKER_MAX, END_MARKER_MAX, pendingBoundary, RULE_CHAR, SETTLING, stableEnd } from './stream-judge.js';
import { RESTART_CONTEXT, restartPoint } from './stream-restart.js';

/**
 * Raw characters of one line held back at most. Past it the line's held text never goes out: a SHORT_MASK
 * stands for all of it up to the line's end (a key block starting there is still cut out whole). Safe because it
 * only ever shows less than redact() would: the stable prefix is exactly redact's, the rest is a mask. It is
 * reached only by a construct still open after this many characters (one 8 KiB word such as a data URI, a quoted
 * value not closed for 8 KiB); the stored reply and the `done` frame are redacted whole and show that line fully.
 */
export const MAX_HELD_CHARS = 8192;
/**
 * The open piece (the text since the line's last restart point, normally a word or two) is judged at every word
 * end while it is at most this long: word-by-word latency, at most this many characters judged per push.
 */
export const RESCAN_EVERY_PUSH_CHARS = 256;
/**
 * Past RESCAN_EVERY_PUSH_CHARS (no restart point: a value still open, operators on every word), it is judged again
 * only once it has grown by 1/2^this of its excess: every character is then judged a bounded number of times
 * (about 2^this + 1), whatever the line's length.
 */
export const RESCAN_SHIFT = 2;

type Mode = 'text' | 'key' | 'suppress';

export class StreamRedactor {
  private mode: Mode = 'text';
  /**
   * text mode: the raw open piece after the last restart point (no line break, complete placeholder or BEGIN
   * marker in it). What is judged is `context + piece`; the positions below are in that text.
   */
  private piece = '';
  /** text mode: '' while the open piece starts at its line's start, RESTART_CONTEXT after a restart. */
  private context = '';
  /** text mode: the piece's last characters, where a marker split across pushes is looked for. */
  private tail = '';
  /** text mode: how much of the judged text's redaction has gone out (UTF-16 units of the output). */
  private sent = 0;
  /** text mode: the position the last judgement found stable, and the judged text's length then. */
  private stable = 0;
  private judgedAt = 0;
  /** text mode: a character after which a held word may have become final arrived since the last judgement. */
  private settling = false;
  /** key / suppress mode: the unsearched tail that may hold the start of a marker. */
  private carry = '';
  /**
   * Characters judged so far (the judged text's length, summed over every judgement): the cost measure the tests
   * bound, a few times the reply's length however long its lines.
   */
  judgedChars = 0;

  /** The redacted text to send now for `piece` (possibly '' while something is held). */
  push(piece: string): string {
    let out = '';
    let rest = piece;
    while (rest !== '') {
      if (this.mode === 'key') {
        const buffer = this.carry + rest;
        const end = findPrivateKeyEnd(buffer);
        if (end === null) {
          this.carry = buffer.slice(-(END_MARKER_MAX - 1));
          return out;
        }
        this.mode = 'text';
        this.carry = '';
        rest = buffer.slice(end.end);
        continue;
      }
      if (this.mode === 'suppress') {
        const buffer = this.carry + rest;
        let lineEnd = 0;
        while (lineEnd < buffer.length && !isLineBreak(buffer.charCodeAt(lineEnd))) lineEnd++;
        const begin = findPrivateKeyBegin(buffer.slice(0, lineEnd));
        if (begin !== null) {
          out += REDACTED_PRIVATE_KEY;
          this.mode = 'key';
          this.carry = '';
          rest = buffer.slice(begin.end);
        } else if (lineEnd < buffer.length) {
          out += buffer[lineEnd];
          this.mode = 'text';
          this.carry = '';
          rest = buffer.slice(lineEnd + 1);
        } else {
          this.carry = buffer.slice(-(BEGIN_MARKER_MAX - 1));
          return out;
        }
        continue;
      }
      const { text, leftover } = this.append(rest);
      out += text;
      rest = leftover;
    }
    if (this.mode === 'text') out += this.release();
    return out;
  }

  /** The reply ended (done, cancelled, failed): whatever is held goes out, redacted. */
  flush(): string {
    const out = this.mode === 'text' ? this.finishPiece(this.piece) : '';
    this.mode = 'text';
    this.piece = '';
    this.carry = '';
    return out;
  }

  /**
   * Text mode: add `raw` to the open piece and send every piece it finishes. Returns what to send and, when a key
   * block began, the raw text after its BEGIN marker (for key mode). Only `raw` and the piece's short tail are
   * searched: the open piece itself is never rescanned here, however long its line.
   */
  private append(raw: string): { text: string; leftover: string } {
    let out = '';
    let rest = raw;
    for (;;) {
      let lineBreak = 0;
      while (lineBreak < rest.length && !isLineBreak(rest.charCodeAt(lineBreak))) lineBreak++;
      const line = rest.slice(0, lineBreak);
      // The window: the piece's tail (no complete marker in it) and the new text up to the line break.
      const tail = this.tail;
      const window = tail + line;
      const placeholderAt = window.indexOf(REDACTED_PRIVATE_KEY);
      const begin = findPrivateKeyBegin(window);
      // Where a window position falls in the open piece + `line`.
      const base = this.piece.length - tail.length;
      if (begin !== null && (placeholderAt === -1 || begin.start < placeholderAt)) {
        const before = this.piece.slice(0, Math.max(0, base + begin.start)) + window.slice(tail.length, Math.max(tail.length, begin.start));
        out += this.finishPiece(before) + REDACTED_PRIVATE_KEY;
        this.mode = 'key';
        this.piece = '';
        this.tail = '';
        return { text: out, leftover: window.slice(begin.end) + rest.slice(lineBreak) };
      }
      if (placeholderAt !== -1) {
        const before = this.piece.slice(0, Math.max(0, base + placeholderAt)) + window.slice(tail.length, Math.max(tail.length, placeholderAt));
        out += this.finishPiece(before) + REDACTED_PRIVATE_KEY;
        rest = window.slice(placeholderAt + REDACTED_PRIVATE_KEY.length) + rest.slice(lineBreak);
        continue;
      }
      if (lineBreak < rest.length) {
        out += this.finishPiece(this.piece + line) + rest[lineBreak];
        rest = rest.slice(lineBreak + 1);
        continue;
      }
      this.piece += line;
      this.tail = window.slice(-(BEGIN_MARKER_MAX - 1));
      if (!this.settling && SETTLING.test(line)) this.settling = true;
      return { text: out, leftover: '' };
    }
  }

  /** The rest of a finished piece's redaction, and a fresh open piece. */
  private finishPiece(raw: string): string {
    const text = this.context + raw;
    this.judgedChars += text.length;
    const out = text === '' ? '' : apply(text, findAll(text)).slice(this.sent);
    this.reset();
    return out;
  }

  private reset(): void {
    this.piece = '';
    this.context = '';
    this.tail = '';
    this.sent = 0;
    this.stable = 0;
    this.judgedAt = 0;
    this.settling = false;
  }

  /** Text mode: what of the open piece has become final since the last call. */
  private release(): string {
    const length = this.context.length + this.piece.length;
    const held = length - this.stable;
    const grown = length - this.judgedAt;
    if (grown === 0) return '';
    const due = grown >= Math.max(1, (length - RESCAN_EVERY_PUSH_CHARS) >> RESCAN_SHIFT) && this.settling;
    if (!due && held <= MAX_HELD_CHARS) return '';
    const piece = this.context + this.piece;
    this.judgedAt = length;
    this.settling = false;
    // A placeholder or BEGIN marker still arriving may end the piece: judge the text before it as a piece.
    const judged = piece.slice(0, pendingBoundary(piece));
    this.judgedChars += judged.length;
    let cut = stableEnd(judged);
    // Findings can only move the cut back: nothing new can go out unless the cut passed the last one.
    const findings = cut > this.stable && RULE_CHAR.test(judged) ? findAll(judged) : [];
    for (const f of findings) {
      if (f.start < cut && f.end > cut) {
        cut = f.start;
        break;
      }
    }
    let out = '';
    if (cut > this.stable) {
      const final = findings.filter((f) => f.end <= cut);
      const prefix = apply(judged.slice(0, cut), final);
      out = prefix.slice(this.sent);
      this.sent = Math.max(this.sent, prefix.length);
      this.stable = cut;
      this.restart(judged, cut, findings);
    }
    if (this.context.length + this.piece.length - this.stable > MAX_HELD_CHARS) {
      out += SHORT_MASK;
      this.mode = 'suppress';
      this.carry = this.tail;
      this.reset();
    }
    return out;
  }

  /** Drops the settled text before the latest restart point at or before `cut` (see the top). */
  private restart(judged: string, cut: number, findings: readonly Finding[]): void {
    const from = this.context.length;
    const r = restartPoint(judged, cut, findings, from, this.context !== '');
    if (r === -1) return;
    // The character before the restart point stays: the rules at `r` see what they saw in the whole line.
    const context = RESTART_CONTEXT + judged[r - 1]!;
    const shift = r - context.length;
    const before = apply(judged.slice(0, r), findings.filter((f) => f.end <= r)).length;
    this.sent = this.sent - before + context.length;
    this.stable -= shift;
    this.judgedAt -= shift;
    this.piece = this.piece.slice(r - from);
    this.context = context;
    // No marker starts before a restart point (pendingBoundary holds the cut before it): the tail needs no more.
    if (this.tail.length > this.piece.length) this.tail = this.piece;
  }
}
