// Worker-thread entry for one Office conversion (started by index.ts from the compiled build only). It gets
// the file's bytes, converts them, posts one reply and exits; the error's kind travels with its text so the
// main thread rethrows exactly what an in-thread conversion would have thrown.
import { parentPort, workerData } from 'node:worker_threads';
import { convertOfficeBuffer, type OfficeFormat } from './convert.js';
import { OfficeError, type SidecarReasonCode } from './office-error.js';

export interface ConvertRequest {
  bytes: Uint8Array;
  format: OfficeFormat;
}
export type ConvertReply = { ok: true; markdown: string } | { ok: false; message: string; office: boolean; reason?: SidecarReasonCode };

async function run(request: ConvertRequest): Promise<ConvertReply> {
  const buffer = Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength);
  try {
    return { ok: true, markdown: await convertOfficeBuffer(buffer, request.format) };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err), office: err instanceof OfficeError, reason: err instanceof OfficeError ? err.reason : undefined };
  }
}

if (parentPort) {
  const port = parentPort;
  void run(workerData as ConvertRequest).then((reply) => port.postMessage(reply));
}
