// An export's JSON read off the event loop, within bounds (issue 33 finding 3). The file is a client's: 64 MiB
// of `{},{},…` deflates to 65 KB, and `JSON.parse` of it on the server's thread built ~21 M objects, held
// `/health` for 39 s and grew the process to 2.2 GB (four in one archive killed it). Here the bytes go to a
// worker thread with a heap limit, which first walks them without building anything (containers counted,
// nesting measured: a refusal costs one pass over the bytes and no memory), parses only what passed, and sends
// back only the fields an import reads: a field Satchel does not know never reaches the server's thread.
//
// The worker is a string evaluated as its script (`new Worker(source, { eval: true })`), as ocr/worker-source.ts
// is, so that the bounds hold, and are tested, on a real thread under the test runner too. It needs nothing but
// Node's built-ins. One worker serves a whole import (an "Export all" archive reads thousands of files), and
// ends with it.
import { Worker } from 'node:worker_threads';
import { ValueError } from '../core/errors.js';

/**
 * Arrays and objects in one export's JSON. A conversation at the store's cap (10,000 messages) with tool calls,
 * usage and attachments on most rows holds some 20-50 per message; the bound is room for that, and stops a file
 * of empty objects after its first few MB, before anything is built. What passes is also what the server's
 * thread copies and stores afterwards, so the bound keeps that short too.
 */
export const MAX_EXPORT_JSON_VALUES = 500_000;
/**
 * Nesting of arrays and objects, checked before any walk that recurses: the store's copy and freeze of a row
 * recurse (100,000 levels overflowed the stack in `sealRows`, a generic 500), and a structured clone (this
 * worker's answer, the store's copy) deeper than about 1,900 levels is lost or throws on Node 20. A real export
 * nests four levels per version of a version (row → `_versions` → `before` → tail → row) plus a few for a row's
 * own fields: MAX_VERSION_DEPTH of those, about half the clone's limit.
 */
export const MAX_VERSION_DEPTH = 240;
export const MAX_EXPORT_JSON_DEPTH = 4 * MAX_VERSION_DEPTH + 16;
/**
 * Arrays and objects inside fields an import does not read (a newer Satchel's additions, or padding). They are
 * dropped in the worker; more than this is no conversation Satchel wrote, and is refused rather than parsed
 * for nothing.
 */
export const MAX_UNKNOWN_FIELD_VALUES = 10_000;
/**
 * The worker's heap. A 64 MiB export of real text (its strings, their parsed copies) fits well below it; a parse
 * that would grow past it ends the worker (ERR_WORKER_OUT_OF_MEMORY) and refuses the import, never the server.
 */
export const PARSE_WORKER_MAX_HEAP_MB = 384;
/** One file's read: under a second for 64 MiB on a loaded machine; past this the worker is stopped. */
export const PARSE_WORKER_TIMEOUT_MS = 120_000;

/** The fields of an export's document an import reads (read-export.ts `importedSession`). */
export const EXPORT_DOCUMENT_FIELDS = [
  'satchel_export', 'title', 'created_at', 'updated_at', 'messages', 'attachments', 'draft',
  // Who the conversation was with (issue 38, item 5).
  'model', 'system_prompt', 'connection_name', 'folder',
] as const;
/** The fields of a row an import reads (read-export.ts `RowReader`); `_versions` is walked apart. */
export const EXPORT_ROW_FIELDS = [
  'role', 'content', 'timestamp', 'reasoning', 'tool_call_id', 'tool_activity', 'tool_activity_omitted', 'usage',
  '_partial', '_error', 'error_type', 'error_hint', 'stopped_by', 'tool_calls', 'attachments', 'arrival', 'answered_by',
] as const;

export const tooManyValues = `This export cannot be imported: it holds more than ${MAX_EXPORT_JSON_VALUES.toLocaleString('en-US')} lists and objects, more than any conversation Satchel keeps.`;
export const tooDeep = `This export cannot be imported: it nests deeper than ${MAX_EXPORT_JSON_DEPTH.toLocaleString('en-US')} levels, deeper than any conversation Satchel keeps.`;
export const tooManyUnknown = `This export cannot be imported: its fields that Satchel does not know hold more than ${MAX_UNKNOWN_FIELD_VALUES.toLocaleString('en-US')} lists and objects.`;
export const tooLargeToRead = 'This export cannot be imported: it is larger than Satchel can read at once.';
export const tooSlowToRead = 'This export cannot be imported: reading it took too long.';

interface WorkerLimits {
  maxValues: number;
  maxDepth: number;
  maxUnknown: number;
  documentFields: readonly string[];
  rowFields: readonly string[];
}

type Reply = { id: number; doc: unknown } | { id: number; refused: 'values' | 'depth' | 'unknown' | 'json' };

const WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData: L } = require('node:worker_threads');

// Containers and nesting, over the bytes: UTF-8 never puts a byte below 0x80 inside a multi-byte character, so
// every quote, backslash and bracket seen here is one of JSON's own.
function shape(bytes) {
  let depth = 0;
  let values = 0;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const c = bytes[i];
    if (c === 0x22) {
      // A string: to its closing quote, stepping over escapes.
      for (i++; i < n; i++) {
        const s = bytes[i];
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++values > L.maxValues) return 'values';
      if (++depth > L.maxDepth) return 'depth';
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return undefined;
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// Containers in a dropped value, iteratively (its depth is bounded already, its breadth is not).
function containers(value, budget) {
  let count = 0;
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (++count > budget) return count;
    for (const inner of Array.isArray(v) ? v : Object.values(v)) if (inner !== null && typeof inner === 'object') stack.push(inner);
  }
  return count;
}

// The known fields of raw; the containers of the others counted against their bound. A field walked apart
// (a row's versions) is neither.
function pick(raw, fields, state, apart) {
  const out = {};
  for (const key of Object.keys(raw)) {
    if (fields.includes(key)) out[key] = raw[key];
    else if (key === apart) continue;
    else if ((state.unknown += containers(raw[key], L.maxUnknown - state.unknown + 1)) > L.maxUnknown) throw 'unknown';
  }
  return out;
}

function rows(list, state) {
  if (!Array.isArray(list)) return list;
  return list.map((raw) => {
    if (!isObject(raw)) return raw;
    const row = pick(raw, L.rowFields, state, '_versions');
    const fork = raw._versions;
    if (fork !== undefined) {
      const tails = (t) => (Array.isArray(t) ? t.map((tail) => rows(tail, state)) : t);
      row._versions = isObject(fork) ? { before: tails(fork.before), after: tails(fork.after) } : fork;
    }
    return row;
  });
}

function read(bytes) {
  const refused = shape(bytes);
  if (refused) return { refused };
  let doc;
  try {
    doc = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return { refused: 'json' };
  }
  if (!isObject(doc)) return { doc };
  const state = { unknown: 0 };
  try {
    const out = pick(doc, L.documentFields, state);
    if (out.messages !== undefined) out.messages = rows(out.messages, state);
    return { doc: out };
  } catch (err) {
    if (err === 'unknown') return { refused: 'unknown' };
    throw err;
  }
}

parentPort.on('message', ({ id, bytes }) => {
  parentPort.postMessage({ id, ...read(bytes) });
});
`;

const REFUSALS = { values: tooManyValues, depth: tooDeep, unknown: tooManyUnknown } as const;

/** The error a worker's end gives every read still waiting on it. */
function workerFailure(err: unknown): Error {
  if ((err as { code?: unknown })?.code === 'ERR_WORKER_OUT_OF_MEMORY') return new ValueError(tooLargeToRead);
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Reads exports' JSON for one import, one file at a time, in one worker started at the first read. `close()`
 * ends it (an import calls it in a `finally`).
 */
export class ExportJsonReader {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (r: Reply) => void; reject: (err: Error) => void }>();

  private start(): Worker {
    if (this.worker) return this.worker;
    const limits: WorkerLimits = {
      maxValues: MAX_EXPORT_JSON_VALUES,
      maxDepth: MAX_EXPORT_JSON_DEPTH,
      maxUnknown: MAX_UNKNOWN_FIELD_VALUES,
      documentFields: EXPORT_DOCUMENT_FIELDS,
      rowFields: EXPORT_ROW_FIELDS,
    };
    // No inherited flags: a parent started with `--input-type=module` would make the script a module (no `require`).
    const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: limits, resourceLimits: { maxOldGenerationSizeMb: PARSE_WORKER_MAX_HEAP_MB }, stdout: false, stderr: false });
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const wait = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      wait?.resolve(reply);
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const wait of this.waiting.values()) wait.reject(err);
      this.waiting.clear();
    };
    worker.on('error', (err) => fail(workerFailure(err)));
    worker.on('exit', (code) => fail(new Error(`the export reader's worker exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  /**
   * The document in `bytes` (UTF-8 JSON) with only the fields an import reads; undefined when it is not JSON.
   * A file over the bounds above is a ValueError with the sentence a person reads; `bytes` are handed over.
   */
  async read(bytes: Uint8Array, signal?: AbortSignal): Promise<unknown> {
    signal?.throwIfAborted();
    const worker = this.start();
    const id = this.nextId++;
    // Handed over, not copied: a buffer of its own (a small file's bytes may share Node's pool).
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice();
    const reply = await new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new ValueError(tooSlowToRead));
        void this.close();
      }, PARSE_WORKER_TIMEOUT_MS);
      const onAbort = () => {
        reject(signal!.reason as Error);
        void this.close();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      this.waiting.set(id, {
        resolve: (r) => (settle(), resolve(r)),
        reject: (err) => (settle(), reject(err)),
      });
      worker.postMessage({ id, bytes: own }, [own.buffer as ArrayBuffer]);
    });
    if ('refused' in reply) {
      if (reply.refused === 'json') return undefined;
      throw new ValueError(REFUSALS[reply.refused]);
    }
    return reply.doc;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
