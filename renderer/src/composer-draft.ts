// The composer's draft as data: what the server keeps of it (draft-sync.ts saves it), and the chips that a
// stored draft or a sent message (Edit) brings back.
import type { ExtractedAttachment, ExtractResult, SentAttachment, SessionDraft } from './api.js';
import type { DraftContent, DraftItem } from './draft-sync.js';
import { shownName } from './attachment-name.js';
import { attachmentSource } from './file-preview.js';
import { isExtraction } from './message-rows.js';
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
export function storedChip(id: number, a: SentAttachment, origin: ChipOrigin, sessionId: string | null): Chip {
  const name = 'filename' in a ? shownName(a) : a.name;
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
 * The chips of a sent message put back for editing. An archive sent with its extraction (the extraction names
 * it by `archive_path`) is one chip showing that extraction.
 */
export function carriedChips(nextId: () => number, attachments: readonly SentAttachment[], sessionId: string | null): Chip[] {
  const paired = new Map<string, ExtractedAttachment>();
  for (const a of attachments) if (isExtraction(a) && a.archive_path && attachments.some((f) => !isExtraction(f) && f.path === a.archive_path)) paired.set(a.archive_path, a);
  const chips: Chip[] = [];
  for (const a of attachments) {
    if (isExtraction(a) && a.archive_path && paired.get(a.archive_path) === a) continue; // shown on its archive's chip
    const chip = storedChip(nextId(), a, { kind: 'carried' }, sessionId);
    const x = isExtraction(a) ? undefined : paired.get(a.path);
    if (!x) {
      chips.push(chip);
      continue;
    }
    const result: ExtractResult = { ok: true, extracted: x.file_count ?? 0, files: [], dest: x.path, skipped: [] };
    chips.push({ ...chip, extract: { status: 'done', result, sent: x } });
  }
  return chips;
}
