// Extract on a composer chip: the archive is stored in the session already (uploaded, or brought back from the
// draft or by Edit), so the server extracts the stored file (POST /api/attachment/extract) instead of the page
// uploading its bytes a second time. A chip brought back by Edit lists its extraction from the folder itself.
import { type ExtractedAttachment, type ExtractResult } from './api.js';
import { storedUpload } from './composer-chips.js';
import { fetchFolder } from './preview.js';
import { extractStored } from './stored-extract.js';
import { withChip, type AppState, type Chip, type ChipExtraction, type Store } from './store.js';
import { UploadAborted, type UploadHandle } from './upload.js';

export class ChipExtractions {
  private readonly running = new Map<number, UploadHandle<ExtractResult>>();

  constructor(
    private readonly store: Store<AppState>,
    /** The draft changed (an extraction finished): save it. */
    private readonly changed: () => void,
  ) {}

  private chip(id: number): Chip | undefined {
    return this.store.state.draft.chips.find((c) => c.id === id);
  }

  private set(id: number, extract: ChipExtraction | undefined): void {
    this.store.update((s) => ({ draft: withChip(s.draft, id, (c) => ({ ...c, extract })) }));
  }

  isRunning(id: number): boolean {
    return this.running.has(id);
  }

  async extract(id: number): Promise<void> {
    const chip = this.chip(id);
    const stored = chip && storedUpload(chip);
    const sessionId = this.store.state.draft.owner;
    if (!stored || !sessionId || this.running.has(id)) return;
    const handle = extractStored(sessionId, stored.path);
    this.running.set(id, handle);
    this.set(id, { status: 'running' });
    try {
      const result = await handle.promise;
      this.set(id, { status: 'done', result });
      this.changed();
    } catch (err) {
      this.set(id, err instanceof UploadAborted ? undefined : { status: 'error', error: err instanceof Error ? err.message : String(err) });
    } finally {
      this.running.delete(id);
    }
  }

  /** Stop the chip's extraction; the server removes what it had written. */
  abort(id: number): void {
    this.running.get(id)?.abort();
  }

  abortAll(): void {
    for (const handle of this.running.values()) handle.abort();
  }

  /** The sent message keeps only how many files its extraction wrote: their names come from the folder itself. */
  async listCarried(id: number, sessionId: string, x: ExtractedAttachment): Promise<void> {
    const before = this.chip(id)?.extract;
    const folder = x.path.split(/[\\/]/).filter(Boolean).pop() ?? '';
    let listed;
    try {
      listed = await fetchFolder(sessionId, folder);
    } catch {
      return; // the count the message kept still says what was extracted
    }
    const now = this.chip(id)?.extract;
    if (!now || now !== before || !now.result) return;
    // Relative to the session's attachment folder, as an extraction's own result names them.
    this.set(id, { ...now, result: { ...now.result, extracted: x.file_count ?? listed.total, files: listed.files.map((f) => `${folder}/${f.path}`) } });
  }
}
