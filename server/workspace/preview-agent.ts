// What the agent gets from a previewed file (issue 35): the preview shows the text the agent's own reader builds
// (a scanned PDF page's OCR text, an archive's list with its small members' text, an audio file's transcript, an
// image's recognized text), so a person can check it (an OCR "Gustomer" for "Customer") before sending. This is
// the preview's (and the search index's, search/attachment-text.ts) one door to the agent's readers: nothing
// here decides what a file is or what it says.
import path from 'node:path';
import { Budget, readAttachment, type AttachmentRead } from '../content/index.js';
import type { ChatAttachment } from '../core/wire.js';
import type { OpenedFile } from '../store/anchored-browse.js';
import type { AgentPreview } from './preview-wire.js';
import { createLimiter } from '../core/limiter.js';

/**
 * Characters of what the agent gets that a preview shows. The agent itself is sent up to its conversation's
 * budget (the chip says how much); a preview is for reading, and this is a 100-page document's text.
 */
export const PREVIEW_AGENT_CHARS = 256 * 1024;
/** Reads at once: each may run OCR or a transcription (seconds of CPU) on a machine that also runs turns. */
export const MAX_PREVIEW_AGENT_READS = 2;
/**
 * How long a preview waits for the agent's text before it answers without it (`pending`): a long recording's
 * transcript can take minutes. The read goes on and is kept, so the preview opened again shows it.
 */
export const PREVIEW_AGENT_WAIT_MS = 20_000;
/** Reads kept by the file's identity (device, inode, size, mtime); at most PREVIEW_AGENT_CHARS each. */
export const PREVIEW_AGENT_CACHE_ENTRIES = 16;

export const AGENT_TEXT_PENDING = 'Still reading what the agent gets (recognizing text or transcribing): open the preview again in a moment.';

export interface AgentReadOptions {
  /** For the configured speech-to-text. */
  stateDir?: string;
  /** The server stopping: a read under way is abandoned. */
  signal?: AbortSignal;
}

/** A file below `root` (its absolute `path`) as a turn hands it to the agent's reader. */
export interface AgentFile {
  root: string;
  path: string;
  name: string;
  size: number;
  /** As the preview serves it (from the bytes for an image); '' when unknown. */
  mime: string;
  isImage: boolean;
}

/** One file as the agent gets it: the summary, and the text of each part in order (images left out). */
export interface AgentRead {
  state: AttachmentRead['summary']['state'];
  summary: string;
  texts: string[];
}

/**
 * `file` read by the agent's reader with a budget of `chars` characters. `transcribe` replaces speech-to-text
 * (a caller that must not wait for one rejects: the file is then only named).
 */
export async function readAsAgent(file: AgentFile, chars: number, opts: AgentReadOptions & { transcribe?: (file: string, filename: string) => Promise<string> }): Promise<AgentRead> {
  const a: ChatAttachment = { kind: 'file', filename: file.name, path: file.path, size: file.size, mime: file.mime, is_image: file.isImage };
  const read = await readAttachment(a, new Budget(chars), {
    roots: [file.root],
    ...(opts.stateDir !== undefined ? { stateDir: opts.stateDir } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.transcribe ? { transcribe: opts.transcribe } : {}),
  });
  return { state: read.summary.state, summary: read.summary.text, texts: read.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])) };
}

const gate = createLimiter(MAX_PREVIEW_AGENT_READS);
const kept = new Map<string, AgentPreview>();
const inFlight = new Map<string, Promise<AgentPreview>>();

function keep(key: string, view: AgentPreview): void {
  kept.delete(key);
  kept.set(key, view);
  if (kept.size > PREVIEW_AGENT_CACHE_ENTRIES) kept.delete(kept.keys().next().value!);
}

/**
 * What the agent gets from `file` (opened below `root`), read by the agent's reader as a turn reads an
 * attachment: `mime` as the preview serves it (from the bytes for an image), so an image is read as one.
 * Answers `pending` when the read takes longer than PREVIEW_AGENT_WAIT_MS.
 */
export async function agentPreview(file: OpenedFile, root: string, mime: string, isImage: boolean, opts: AgentReadOptions): Promise<AgentPreview> {
  const stat = await file.handle.stat();
  const key = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${mime}:${isImage}`;
  const have = kept.get(key);
  if (have) return have;
  let running = inFlight.get(key);
  if (!running) {
    const full = path.join(root, ...file.path.split('/'));
    running = gate(async () => {
      const read = await readAsAgent({ root, path: full, name: file.name, size: file.size, mime, isImage }, PREVIEW_AGENT_CHARS, opts);
      const view: AgentPreview = { state: read.state, summary: read.summary, text: read.texts.join('\n') };
      keep(key, view);
      return view;
    }).finally(() => inFlight.delete(key));
    inFlight.set(key, running);
    // A read the preview stopped waiting for may still fail (the server stopping): nobody else is told.
    running.catch(() => {});
  }
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<AgentPreview>((resolve) => {
    timer = setTimeout(() => resolve({ state: 'pending', summary: AGENT_TEXT_PENDING, text: '' }), PREVIEW_AGENT_WAIT_MS);
  });
  try {
    return await Promise.race([running, waited]);
  } finally {
    clearTimeout(timer);
  }
}
