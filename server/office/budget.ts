// One request's allowance for Office sidecars. An upload may carry (or unpack to) many Office files; their
// previews share this time and size so that a zip of thousands of documents cannot hold the request, or the
// one conversion slot, for long. Files past the allowance are kept; only their preview is skipped, and the
// response says why.
import { OfficeError } from './office-error.js';

// Real batches (a folder of a few dozen reports) convert in a few seconds; this leaves room for a loaded
// machine while bounding what one request can ask of the conversion slot.
export const SIDECAR_BUDGET_MS = 90_000;
// Bytes of Office files (as stored, before inflating) converted for one request: about sixteen files at the
// per-file limit, hundreds of typical ones.
export const SIDECAR_BUDGET_BYTES = 256 * 1024 * 1024;

export class SidecarBudget {
  private readonly deadline: number;
  private bytesLeft: number;

  constructor(ms = SIDECAR_BUDGET_MS, bytes = SIDECAR_BUDGET_BYTES, now = Date.now()) {
    this.deadline = now + ms;
    this.bytesLeft = bytes;
  }

  /** Milliseconds left, never below zero. */
  remainingMs(now = Date.now()): number {
    return Math.max(0, this.deadline - now);
  }

  /** Throws when the time is up. */
  checkTime(): void {
    if (this.remainingMs() === 0) throw new OfficeError('Sidecar time budget of the request exhausted', { reason: 'time-budget' });
  }

  /** Reserve `size` bytes for one file; throws (reserving nothing) when they are not left, or the time is up. */
  take(size: number): void {
    this.checkTime();
    if (size > this.bytesLeft) throw new OfficeError('Sidecar size budget of the request exhausted', { reason: 'size-budget' });
    this.bytesLeft -= size;
  }
}
