// Each document's whole text as its reader gives it (issue 36), kept between turns: a follow-up turn ranks and
// places passages of every earlier document, and redoing OCR, an Office conversion or a transcript each turn
// would cost seconds. Keyed by the file's identity (device, inode, size, modification time), so a file replaced
// or edited is read again; bounded in documents and in characters held, least recently used first out.
import { promises as fs } from 'node:fs';
import { Budget, readAttachment, type InputOptions } from '../content/index.js';
import type { ConversationDoc, DocText } from './types.js';

/**
 * Characters one document is read to: above an Office document's Markdown cap (120,000), so its reader decides,
 * and a large text file stays a bounded string (2 MB of UTF-16). A PDF is read this far too (DOC_PDF_LIMITS).
 */
export const MAX_DOC_CHARS = 1_000_000;
/**
 * How far a PDF is read for the conversation's passages: past the preview's first 50 pages, so a question about
 * page 120 of a handbook finds it (a 152-page manual is ~450,000 characters). Bounded by the same worker's
 * deadline and memory as every PDF read; a document too long for them is named with why.
 */
export const DOC_PDF_LIMITS = { pages: 500, chars: MAX_DOC_CHARS };

/** Characters (text and images' base64) held for all documents: ~64 MiB of UTF-16 at most, whatever is attached. */
export const MAX_CACHED_CHARS = 32_000_000;

/** Documents held: a busy app with many conversations keeps the recent ones. */
export const MAX_CACHED_DOCS = 500;

/**
 * After this long without a turn reading any document, what is held is cut down to DOC_TEXTS_IDLE_KEEP_CHARS, the
 * most recently used kept (issue 37, finding 8: "release on idle"). A busy hour's documents (500 of them, images'
 * base64 among them) stayed in the server's heap until the next turn: ~20 MiB of a 4-minute soak's 120 MiB live
 * after idle (heap snapshot, session 17). The same minute as the OCR worker's idle exit (OCR_WORKER_IDLE_MS).
 */
export const DOC_TEXTS_IDLE_MS = 60_000;
/**
 * What stays held once idle: the latest conversation's documents as a rule (a 150-page manual is ~450,000
 * characters, a scanned page ~3,000), so the next question about them reads nothing again; older ones are read
 * again when a turn needs them. 4 M characters kept 3.9 MiB of a 731-turn soak's 42 MiB live heap after idle
 * (issue 37, finding 8, session 18): two such manuals fit in 1 M.
 */
export const DOC_TEXTS_IDLE_KEEP_CHARS = 1_000_000;

/**
 * How long a document that could not be read is taken as unreadable before a turn tries it again. Some failures
 * pass (a PDF's worker deadline on a loaded machine: the 152-page handbook took over 15 s at load 20, and with it
 * every later turn lost the document for good); retrying at most this often keeps a hostile file from costing
 * every turn its full deadline.
 */
export const UNREADABLE_RETRY_MS = 60_000;

/** What a PDF's summary says when it was too long or too large to read whole in time (content/read/pdf.ts). */
const PDF_TOO_HEAVY = /^(took too long to read|needed over \d+ MiB of memory)/;

interface Entry {
  identity: string;
  text: Promise<DocText>;
  /** Known once read; counted against MAX_CACHED_CHARS. */
  size: number;
  /** Set when the read found the document unreadable: from then (Date.now()), the next turn reads it again. */
  retryAt?: number;
}

/** What reading a document costs the cache: its text and its images' base64. */
function sizeOf(text: DocText): number {
  let n = 0;
  for (const p of text.parts) n += p.type === 'text' ? p.text.length : p.data.length;
  return n;
}

export function textOf(parts: DocText['parts']): number {
  let n = 0;
  for (const p of parts) if (p.type === 'text') n += p.text.length;
  return n;
}

export interface DocTextOptions {
  /**
   * A preview (POST /api/chat/context): nothing is waited for that a turn would wait for (an audio file not yet
   * transcribed is reported unread), and a read made so is not kept.
   */
  dry?: boolean;
}

export class DocTexts {
  /** By path; Map order is recency (oldest first). */
  private readonly entries = new Map<string, Entry>();
  private held = 0;

  /** When a turn last asked for a document (Date.now()); the idle timer runs from it. */
  private lastUse = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly maxChars = MAX_CACHED_CHARS,
    private readonly maxDocs = MAX_CACHED_DOCS,
    private readonly retryMs = UNREADABLE_RETRY_MS,
    private readonly idle = { ms: DOC_TEXTS_IDLE_MS, keepChars: DOC_TEXTS_IDLE_KEEP_CHARS },
  ) {}

  /** Characters held now (for tests and the benchmark). */
  get heldChars(): number {
    return this.held;
  }

  async get(doc: ConversationDoc, opts: InputOptions, how: DocTextOptions = {}): Promise<DocText> {
    const file = doc.attachment.path;
    this.lastUse = Date.now();
    this.armIdle();
    let identity: string;
    try {
      // lstat: the identity of the name itself; the reader refuses a link on its own anchored walk.
      const st = await fs.lstat(file, { bigint: true });
      identity = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`;
    } catch {
      return { parts: [], chars: 0, summary: { state: 'unreadable', text: 'it is no longer in the attachment folder' } };
    }
    const hit = this.entries.get(file);
    if (hit && hit.identity === identity && (hit.retryAt === undefined || Date.now() < hit.retryAt)) {
      this.entries.delete(file);
      this.entries.set(file, hit);
      return hit.text;
    }
    if (hit) this.drop(file);
    const read = this.read(doc, opts, how);
    if (how.dry) return read;
    const entry: Entry = { identity, text: read, size: 0 };
    this.entries.set(file, entry);
    read.then(
      (text) => {
        if (this.entries.get(file) !== entry) return;
        entry.size = sizeOf(text);
        this.held += entry.size;
        if (text.summary.state === 'unreadable') entry.retryAt = Date.now() + this.retryMs;
        this.trim();
      },
      // A read stopped (the turn cancelled) or failed is not kept: the next turn reads again.
      () => {
        if (this.entries.get(file) === entry) this.entries.delete(file);
      },
    );
    return read;
  }

  private async read(doc: ConversationDoc, opts: InputOptions, how: DocTextOptions): Promise<DocText> {
    // Dry: without a state folder or a transcriber an audio file is only named at once (content/read/audio.ts).
    const { stateDir: _s, transcribe: _t, onAttachmentText: _o, ...bare } = opts;
    const readOpts: InputOptions = { ...(how.dry ? bare : opts), pdfLimits: DOC_PDF_LIMITS };
    let got = await readAttachment(doc.attachment, new Budget(MAX_DOC_CHARS), readOpts);
    // A long PDF read whole may pass the reader's deadline or memory bound (a 150-page manual on a loaded machine):
    // its first pages, as a turn and the preview read them, are better than only its name.
    if (got.kind === 'pdf' && got.summary.state === 'unreadable' && PDF_TOO_HEAVY.test(got.summary.text)) {
      const { pdfLimits: _l, ...first } = readOpts;
      got = await readAttachment(doc.attachment, new Budget(MAX_DOC_CHARS), first);
    }
    // The turn will transcribe it; a preview only knows it is there.
    if (how.dry && got.kind === 'audio' && got.summary.state === 'unreadable') return { kind: 'audio', parts: [], chars: 0, summary: { state: 'partial', text: 'not transcribed yet' }, pending: true };
    return { ...(got.kind ? { kind: got.kind } : {}), parts: got.parts, chars: textOf(got.parts), summary: got.summary };
  }

  private drop(file: string): void {
    const e = this.entries.get(file);
    if (!e) return;
    this.held -= e.size;
    this.entries.delete(file);
  }

  private trim(): void {
    for (const [file] of this.entries) {
      if (this.held <= this.maxChars && this.entries.size <= this.maxDocs) return;
      this.drop(file);
    }
  }

  /** One timer at a time (not one per read), unref'd: it never keeps the process up. */
  private armIdle(): void {
    if (this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (Date.now() - this.lastUse < this.idle.ms) this.armIdle();
      else this.release();
    }, Math.max(0, this.lastUse + this.idle.ms - Date.now()));
    this.idleTimer.unref();
  }

  /** Idle: the least recently used documents let go until DOC_TEXTS_IDLE_KEEP_CHARS are held; a read still under way
   *  (nothing counted yet) is left to finish. */
  private release(): void {
    for (const [file, entry] of this.entries) {
      if (this.held <= this.idle.keepChars) return;
      if (entry.size > 0) this.drop(file);
    }
  }
}
