// Where the packaged app keeps the speech model: electron-builder copies models/moonshine-tiny into the
// resources folder (extraResources), outside the asar archive, because onnxruntime reads it with native I/O.
import path from 'node:path';
import { SETTINGS } from '../server/settings/table.js';

export const STT_MODEL_ENV = SETTINGS.sttModelDir.env;
export const PACKAGED_MODEL_SUBDIR = path.join('models', 'moonshine-tiny');

export interface PackagingFacts {
  isPackaged: boolean;
  resourcesPath: string | undefined;
}

/** The model directory to announce to the server, or undefined to leave the environment alone. */
export function packagedModelDir(env: NodeJS.ProcessEnv, facts: PackagingFacts): string | undefined {
  if (!facts.isPackaged || !facts.resourcesPath) return undefined;
  if (env[STT_MODEL_ENV]?.trim()) return undefined;
  return path.join(facts.resourcesPath, PACKAGED_MODEL_SUBDIR);
}

/** Set SATCHEL_STT_MODEL_DIR when packaged and not already chosen by the user. Returns what it set. */
export function applyPackagedModelDir(env: NodeJS.ProcessEnv, facts: PackagingFacts): string | undefined {
  const dir = packagedModelDir(env, facts);
  if (dir !== undefined) env[STT_MODEL_ENV] = dir;
  return dir;
}
