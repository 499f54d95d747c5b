// Extract an archive the session stored already (POST /api/attachment/extract): a chip restored from the draft
// after a reload, or brought back from a sent message by Edit, has no bytes in the page to upload again. Shaped
// as an upload's handle so the composer treats both extractions alike; aborting leaves the request, and the
// server removes what it had written.
import { ApiError, errorText, type ExtractResult } from './api.js';
import { noteStatus } from './access-lost.js';
import { UploadAborted, type UploadHandle } from './upload.js';

export function extractStored(sessionId: string, path: string): UploadHandle<ExtractResult> {
  const ctl = new AbortController();
  const promise = (async () => {
    let res: Response;
    try {
      res = await fetch('/api/attachment/extract', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
        body: JSON.stringify({ session_id: sessionId, path }),
        signal: ctl.signal,
      });
    } catch {
      throw ctl.signal.aborted ? new UploadAborted() : new ApiError(0, errorText(0, ''));
    }
    noteStatus(res.status);
    const text = await res.text().catch(() => {
      throw ctl.signal.aborted ? new UploadAborted() : new ApiError(0, errorText(0, ''));
    });
    if (!res.ok) throw new ApiError(res.status, errorText(res.status, text));
    try {
      return JSON.parse(text) as ExtractResult;
    } catch {
      throw new ApiError(res.status, 'The server sent an unreadable answer.');
    }
  })();
  return { promise, abort: () => ctl.abort() };
}
