// Multipart uploads over XMLHttpRequest, the only browser API with upload progress. The body is assembled
// by hand (text fields first, so a streaming server knows the session before the file bytes arrive) as a Blob
// of references to the files, never a copy. Knowing each part's exact offset turns the request-level
// progress into byte-accurate per-file progress.
import { ApiError, errorText } from './api.js';
import { noteStatus } from './access-lost.js';

export interface FilePart {
  field: string;
  filename: string;
  blob: Blob;
}

export interface Progress {
  /** Bytes of the file parts sent so far (multipart framing excluded). */
  loaded: number;
  /** Bytes of the file parts in all. */
  total: number;
}

export interface UploadHandle<T> {
  promise: Promise<T>;
  abort(): void;
}

export class UploadAborted extends Error {
  constructor() {
    super('Upload cancelled');
    this.name = 'UploadAborted';
  }
}

const encoder = new TextEncoder();

/** Browsers percent-encode these three in a multipart name so a crafted file name can't break the framing. */
function quoteParam(value: string): string {
  return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function makeBoundary(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return `----SatchelBoundary${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export interface MultipartBody {
  body: Blob;
  contentType: string;
  /** [start, end) byte ranges of each file's content inside the body. */
  fileRanges: Array<[number, number]>;
}

export function buildMultipart(fields: Record<string, string>, files: FilePart[], boundary = makeBoundary()): MultipartBody {
  const pieces: BlobPart[] = [];
  const fileRanges: Array<[number, number]> = [];
  let offset = 0;
  const pushText = (text: string) => {
    const bytes = encoder.encode(text);
    pieces.push(bytes);
    offset += bytes.byteLength;
  };
  for (const [name, value] of Object.entries(fields)) {
    pushText(`--${boundary}\r\nContent-Disposition: form-data; name="${quoteParam(name)}"\r\n\r\n${value}\r\n`);
  }
  for (const part of files) {
    const type = part.blob.type || 'application/octet-stream';
    pushText(
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoteParam(part.field)}"; filename="${quoteParam(part.filename)}"\r\nContent-Type: ${type}\r\n\r\n`,
    );
    pieces.push(part.blob);
    fileRanges.push([offset, offset + part.blob.size]);
    offset += part.blob.size;
    pushText('\r\n');
  }
  pushText(`--${boundary}--\r\n`);
  return { body: new Blob(pieces), contentType: `multipart/form-data; boundary=${boundary}`, fileRanges };
}

/** Bytes of file content inside the first `sent` bytes of the body. */
export function fileBytesSent(ranges: Array<[number, number]>, sent: number): number {
  let n = 0;
  for (const [start, end] of ranges) n += Math.max(0, Math.min(sent, end) - start);
  return n;
}

export function uploadMultipart<T>(
  url: string,
  fields: Record<string, string>,
  files: FilePart[],
  onProgress?: (p: Progress) => void,
): UploadHandle<T> {
  const { body, contentType, fileRanges } = buildMultipart(fields, files);
  const total = files.reduce((n, f) => n + f.blob.size, 0);
  const xhr = new XMLHttpRequest();
  const promise = new Promise<T>((resolve, reject) => {
    xhr.open('POST', url);
    xhr.withCredentials = true;
    xhr.setRequestHeader('Content-Type', contentType);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => onProgress?.({ loaded: fileBytesSent(fileRanges, e.loaded), total });
    xhr.onload = () => {
      noteStatus(xhr.status);
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress?.({ loaded: total, total });
        try {
          resolve(JSON.parse(xhr.responseText) as T);
        } catch {
          reject(new ApiError(xhr.status, 'The server sent an unreadable answer.'));
        }
      } else {
        reject(new ApiError(xhr.status, errorText(xhr.status, xhr.responseText)));
      }
    };
    xhr.onerror = () => reject(new ApiError(0, errorText(0, '')));
    xhr.onabort = () => reject(new UploadAborted());
    xhr.send(body);
  });
  return { promise, abort: () => xhr.abort() };
}

/** Multipart framing added around one file; the server's cap applies to the whole request body. */
export const MULTIPART_OVERHEAD_BYTES = 1024;

/** The pre-upload size check: a message to show, or null when the file fits under the server's cap. */
export function sizeCheck(name: string, size: number, maxUploadBytes: number | undefined, format: (n: number) => string): string | null {
  if (!maxUploadBytes || maxUploadBytes <= 0) return null;
  if (size + MULTIPART_OVERHEAD_BYTES <= maxUploadBytes) return null;
  return `${name} is ${format(size)}, larger than this server’s upload limit of ${format(maxUploadBytes)}. Split or compress it, or raise SATCHEL_WEBUI_MAX_UPLOAD_MB.`;
}
