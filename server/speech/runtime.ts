// ONNX Runtime, the engine of the on-device model, loaded only when the model is: a build can lack the native
// binding for its machine (onnxruntime-node ships none for Intel Macs, and each installer carries only its own
// architecture's), and a binding imported at module load would take the whole server down with it. Instead the
// capability probe asks whether the binding is there (a file check, no load) and says `available: false`.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
export type OrtModule = typeof import('onnxruntime-node');

/** Where onnxruntime-node keeps its bindings: `bin/napi-v<N>/<platform>/<arch>/`. */
const BINDING_FILE = 'onnxruntime_binding.node';
const NAPI_DIR = /^napi-v\d+$/;

const require = createRequire(import.meta.url);

/** The binding for this platform and architecture, or undefined when this build has none. */
export function runtimeBindingPath(platform: string = process.platform, arch: string = process.arch): string | undefined {
  let bin: string;
  try {
    bin = path.join(path.dirname(require.resolve('onnxruntime-node')), '..', 'bin');
  } catch {
    return undefined;
  }
  let napis: string[];
  try {
    napis = fs.readdirSync(bin).filter((name) => NAPI_DIR.test(name));
  } catch {
    return undefined;
  }
  for (const napi of napis) {
    const file = path.join(bin, napi, platform, arch, BINDING_FILE);
    if (fs.existsSync(file)) return file;
  }
  return undefined;
}

let present: boolean | undefined;

/** Whether this machine's binding is installed (checked once: files do not appear while Satchel runs). */
export function isRuntimePresent(): boolean {
  present ??= runtimeBindingPath() !== undefined;
  return present;
}

let loading: Promise<OrtModule> | undefined;

/** The runtime, imported at first use. */
export function loadRuntime(): Promise<OrtModule> {
  // A CommonJS package: its exports are the default export of the dynamic import.
  // A CommonJS package: Node hands its exports over as the dynamic import's default export.
  const load = (loading ??= import('onnxruntime-node').then((mod) => ((mod as unknown as { default?: OrtModule }).default ?? mod) as OrtModule));
  return load;
}
