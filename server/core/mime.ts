// A file's media type from its name (mime-types' table), for attachment records and previews.
import mime from 'mime-types';

export const FALLBACK_MIME = 'application/octet-stream';

export function guessMime(name: string): string {
  return mime.lookup(name) || FALLBACK_MIME;
}
