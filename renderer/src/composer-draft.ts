// The composer's draft as data: what the server keeps of it (draft-sync.ts saves it), and the chips that a
// stored draft or a sent message (Edit) brings back.
import type { ChatAttachment, ExtractResult, SessionDraft } from './api.js';
import type { DraftContent, DraftItem } from './draft-sync.js';
import { attachmentSource } from './file-preview.js';
import type { Chip, ChipOrigin, Draft } from './store.js';

/** The draft as the server keeps it: the text and the uploaded chips of this session, with their extraction. */
export function draftContent(draft: Draft): DraftContent {
  const attachments: DraftItem[] = [];
  for (const c of draft.chips) {
    if (c.status !== 'done' || !c.result || !('filename' in c.result) || c.origin.kind === 'carried') continue;
    const x = c.extract?.status === 'done' ? c.extract.result : undefined;
    attachments.push(x ? { path: c.result.path, extract: { dest: x.dest, extracted: x.extracted, files: x.files } } : { path: c.result.path });
  }
  return { text: draft.text, attachments };
}

/** A chip for an attachment stored already (a sent message's, or the draft's). */
export function storedChip(id: number, a: ChatAttachment, origin: ChipOrigin, sessionId: string | null): Chip {
  const name = 'filename' in a ? a.filename : a.name;
  const size = 'filename' in a ? a.size : 0;
  // Its bytes are not in the page: the stored file is its thumbnail.
  const thumbUrl = 'filename' in a && a.is_image && sessionId ? attachmentSource(sessionId, a.filename).rawUrl : undefined;
  return { id, name, size, origin, status: 'done', loaded: size, result: a, thumbUrl };
}

/** The chips of a stored draft. Skipped members were said when it was extracted; the draft keeps only what was written. */
export function restoredChips(nextId: () => number, draft: SessionDraft, sessionId: string): Chip[] {
  return draft.attachments.map(({ extract, ...attachment }) => {
    const chip = storedChip(nextId(), attachment, { kind: 'restored' }, sessionId);
    return extract ? { ...chip, extract: { status: 'done', result: { ok: true, ...extract, skipped: [] } } } : chip;
  });
}

/**
 * The chips of a sent message put back for editing. An archive sent with its extraction (the extraction right
 * after it, under its name) is one chip showing that extraction.
 */
export function carriedChips(nextId: () => number, attachments: readonly ChatAttachment[], sessionId: string | null): Chip[] {
  const chips: Chip[] = [];
  for (let i = 0; i < attachments.length; i++) {
    const a = attachments[i]!;
    let chip = storedChip(nextId(), a, { kind: 'carried' }, sessionId);
    const next = attachments[i + 1];
    if ('filename' in a && next && !('filename' in next) && next.name === a.filename) {
      i++;
      const result: ExtractResult = { ok: true, extracted: next.files ?? 0, files: [], dest: next.path, skipped: [] };
      chip = { ...chip, extract: { status: 'done', result, sent: next } };
    }
    chips.push(chip);
  }
  return chips;
}
