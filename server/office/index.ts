// Office documents as Markdown (spec-notes 4.7 step 7): the conversion, and the sidecar `<name>.md` an upload
// writes beside its .docx, .xlsx or .pptx (sidecar.ts reads and writes it). The zip is guarded before any
// parser sees it, the preview is capped, and the sidecar is either written completely or not at all.
import fs, { type FileHandle } from 'node:fs/promises';
import { constants, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ConvertReply, ConvertRequest } from './convert-worker.js';
import { convertOfficeBuffer, OFFICE_MAX_FILE_BYTES, type OfficeFormat } from './convert.js';
import { createLimiter } from '../core/limiter.js';
import { SidecarBudget } from './budget.js';
import { OfficeError } from './office-error.js';
import { unpackedPath } from '../core/unpacked-path.js';
import type { AnchoredDir } from '../store/anchored.js';
import { sidecarName, writeSidecar } from './sidecar.js';

export {
  OFFICE_LIMITS,
  OFFICE_MAX_FILE_BYTES,
  OFFICE_MAX_MEMBER_BYTES,
  OFFICE_MAX_MEMBERS,
  OFFICE_MAX_RATIO,
  OFFICE_MAX_TOTAL_BYTES,
  PREVIEW_MAX_CHARS,
  type OfficeFormat,
} from './convert.js';
export { SIDECAR_BUDGET_BYTES, SIDECAR_BUDGET_MS, SidecarBudget } from './budget.js';
export { SIDECAR_REASONS, sidecarReason } from './office-error.js';
// A FIFO put in a document's place would hold the open until a writer came.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
// Conversions are CPU-bound and hold the whole package in memory: one at a time bounds both, whatever the
// number of simultaneous uploads (the others wait; an upload itself never fails for it).
export const OFFICE_MAX_CONCURRENT = 1;
const limit = createLimiter(OFFICE_MAX_CONCURRENT);
// A file at the limits converts in about 1.5 s on an idle core; this is room for a loaded, shared machine,
// and a bound on a conversion that would otherwise hold the one-at-a-time slot for ever.
export const OFFICE_WORKER_TIMEOUT_MS = 60_000;
// At the limits a conversion holds the inflated parts plus their parsed trees: well under this, while a
// runaway parse is stopped (ERR_WORKER_OUT_OF_MEMORY) instead of growing the server's heap.
export const OFFICE_WORKER_MAX_HEAP_MB = 256;
// The worker exists only in the compiled build (dist/server/office/); from the TypeScript sources, as under
// the test runner, the conversion runs in-thread, through the same function. In the installed app it starts
// from app.asar.unpacked (see server/core/unpacked-path.ts).
const WORKER_NEXT_TO_US = new URL('./convert-worker.js', import.meta.url);
const WORKER_PATH = WORKER_NEXT_TO_US.protocol === 'file:' ? unpackedPath(fileURLToPath(WORKER_NEXT_TO_US)) : null;
const USE_WORKER = WORKER_PATH !== null && existsSync(WORKER_PATH);
const WORKER_URL = WORKER_PATH === null ? WORKER_NEXT_TO_US : pathToFileURL(WORKER_PATH);

const FORMATS: Record<string, OfficeFormat> = { '.docx': 'docx', '.xlsx': 'xlsx', '.pptx': 'pptx' };

/** The Office format named by the file's extension (case-insensitive), or null. */
export function officeFormat(filename: string): OfficeFormat | null {
  return FORMATS[path.extname(filename).toLowerCase()] ?? null;
}

import type { Sidecar } from '../core/wire.js';

export type { Sidecar };

/**
 * Convert the Office file `name` of the held folder `dir` (opened there, never through a symlink) and write its
 * sidecar beside it (sidecar.ts writeSidecar: whole or not at all, never over anything already at that name).
 * Any failure is thrown (the handler turns it into `sidecar_error: SIDECAR_FAILED` with its reason).
 */
export async function writeOfficeSidecar(dir: AnchoredDir, name: string, format: OfficeFormat, budget = new SidecarBudget()): Promise<Sidecar> {
  const file = await dir.openFile(name, constants.O_RDONLY | O_NONBLOCK).catch((err: unknown) => {
    throw new OfficeError(`Office conversion failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err, reason: 'failed' });
  });
  let data: Buffer;
  try {
    // Converted first, so a document that fails to convert never leaves a file behind.
    data = Buffer.from(await officeToMarkdown(file, format, budget), 'utf8');
  } finally {
    await file.close();
  }
  await writeSidecar(dir, name, data, { replace: false });
  const filename = sidecarName(name);
  return { filename, path: dir.pathOf(filename), size: data.length, preview_kind: 'office', office_format: format };
}

/**
 * The Markdown alone (used by writeOfficeSidecar; exported for tests). `source` is a path, or a file the caller
 * already opened through held directories (previews): then its bytes are read from that very descriptor, never
 * by a path a swapped directory could send elsewhere.
 */
export async function officeToMarkdown(source: string | FileHandle, format: OfficeFormat, budget = new SidecarBudget()): Promise<string> {
  budget.checkTime();
  return limit(() => convert(source, format, budget));
}

async function convert(source: string | FileHandle, format: OfficeFormat, budget: SidecarBudget): Promise<string> {
  try {
    const buffer = typeof source === 'string' ? await readOfficeFile(source, budget) : await readOfficeHandle(source, budget);
    return USE_WORKER ? await convertInWorker(buffer, format, budget) : await convertOfficeBuffer(buffer, format);
  } catch (err) {
    if (err instanceof OfficeError) throw err;
    throw new OfficeError(`Office conversion failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err, reason: 'failed' });
  }
}

/**
 * One worker per conversion: the event loop stays free while it runs, and its heap (the inflated parts and
 * parsed trees) is gone when it exits. Whatever happens to it — a refusal, a crash, running out of heap or
 * time — comes back as a rejection, never as an uncaught error.
 */
function convertInWorker(buffer: Buffer, format: OfficeFormat, budget: SidecarBudget): Promise<string> {
  // Moved, not copied, when the buffer owns its memory (readFile's result for any real package does).
  const owned = buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength && buffer.buffer instanceof ArrayBuffer;
  const bytes = owned ? new Uint8Array(buffer.buffer as ArrayBuffer) : new Uint8Array(buffer);
  const request: ConvertRequest = { bytes, format };
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    const worker = new Worker(WORKER_URL, {
      workerData: request,
      transferList: [bytes.buffer as ArrayBuffer],
      resourceLimits: { maxOldGenerationSizeMb: OFFICE_WORKER_MAX_HEAP_MB },
      stdout: false,
      stderr: false,
    });
    const finish = (error: Error | null, markdown?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate().catch(() => {});
      if (error) reject(error);
      else resolve(markdown!);
    };
    // The request's remaining allowance, when shorter, stops a conversion too: then that is the reason given.
    const budgetMs = budget.remainingMs();
    const timer = setTimeout(
      () =>
        finish(
          budgetMs < OFFICE_WORKER_TIMEOUT_MS
            ? new OfficeError(`Sidecar time budget of the request exhausted during conversion`, { reason: 'time-budget' })
            : new OfficeError(`Office conversion timed out (> ${OFFICE_WORKER_TIMEOUT_MS} ms)`, { reason: 'timeout' }),
        ),
      Math.min(budgetMs, OFFICE_WORKER_TIMEOUT_MS),
    );
    worker.on('message', (reply: ConvertReply) => {
      if (reply.ok) finish(null, reply.markdown);
      // Rebuilt as the in-thread path would have thrown it: refusals as they are, other errors wrapped by convert().
      else finish(reply.office ? new OfficeError(reply.message, { reason: reply.reason }) : new Error(reply.message));
    });
    worker.on('error', (err) => {
      const outOfHeap = (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
      finish(new OfficeError(`Office conversion failed: ${err.message}`, { cause: err, reason: outOfHeap ? 'too-large' : 'failed' }));
    });
    worker.on('exit', (code) => finish(new OfficeError(`Office conversion worker exited unexpectedly (code ${code})`, { reason: 'failed' })));
  });
}

async function readOfficeFile(filePath: string, budget: SidecarBudget): Promise<Buffer> {
  const handle = await fs.open(filePath, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    return await readOfficeHandle(handle, budget);
  } finally {
    await handle.close();
  }
}

/** The whole file behind `handle`, read by position (the caller's own reads leave its offset anywhere). */
async function readOfficeHandle(handle: FileHandle, budget: SidecarBudget): Promise<Buffer> {
  const stat = await handle.stat();
  if (!stat.isFile()) throw new OfficeError('Office file is not a regular file', { reason: 'failed' });
  if (stat.size > OFFICE_MAX_FILE_BYTES) {
    throw new OfficeError(`Office file too large to preview (> ${OFFICE_MAX_FILE_BYTES} bytes)`, { reason: 'too-large' });
  }
  budget.take(stat.size);
  const buffer = Buffer.alloc(stat.size);
  let filled = 0;
  while (filled < stat.size) {
    const { bytesRead } = await handle.read(buffer, filled, stat.size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled === stat.size ? buffer : buffer.subarray(0, filled);
}
