// Where a preview comes from: a workspace file (by its path) or a stored attachment (by its name in the
// session's attachment folder). Each source gives the preview's JSON and the URLs of the file's raw bytes.
import { ApiError, browseParams, errorText } from './api.js';
import type { FilePreview } from '../../server/workspace/preview-wire.js';

export type { FilePreview };

export interface PreviewSource {
  /** GET …/preview */
  previewUrl: string;
  /** GET …/raw: an image's bytes for <img>. */
  rawUrl: string;
  /** GET …/raw with download=1. */
  downloadUrl: string;
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

function source(base: string, params: Record<string, string>): PreviewSource {
  return {
    previewUrl: `/api/${base}/preview?${q(params)}`,
    rawUrl: `/api/${base}/raw?${q(params)}`,
    downloadUrl: `/api/${base}/raw?${q({ ...params, download: '1' })}`,
  };
}

export function workspaceSource(sessionId: string, path: string, hidden: boolean): PreviewSource {
  return source('workspace', browseParams(sessionId, path, hidden));
}

export function attachmentSource(sessionId: string, name: string): PreviewSource {
  return source('attachment', { session_id: sessionId, name });
}

const UNREACHABLE = 'Satchel’s server is not reachable. Is it still running?';

export async function fetchPreview(src: PreviewSource): Promise<FilePreview> {
  let res: Response;
  try {
    res = await fetch(src.previewUrl, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  } catch {
    throw new ApiError(0, UNREACHABLE);
  }
  const text = await res.text();
  if (!res.ok) throw new ApiError(res.status, errorText(res.status, text));
  return JSON.parse(text) as FilePreview;
}
