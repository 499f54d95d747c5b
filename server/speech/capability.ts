// Which provider would handle a transcription (4.6). Shared by the capability probe and transcribeFile, so
// the probe never promises a provider that transcription would not use. Checks are side-effect free: model
// files on disk, executables on PATH, credentials present. Nothing is loaded, run or called.
import type { ProviderName, SttConfig } from './config.js';
import { isLocalModelPresent } from './local.js';
import { isRuntimePresent } from './runtime.js';
import { resolveExecutable } from './run-command.js';

/** Reported when nothing is available and no provider was named (and for any internal failure). */
export const NO_PROVIDER = 'none';
/** Without an explicit provider (custom `command` only ever runs when named). */
export const AUTO_ORDER: readonly ProviderName[] = ['local', 'local_command', 'openai', 'groq'];
/** `local` and `local_command` stand in for each other when named explicitly. */
const EXPLICIT_FALLBACK: Partial<Record<ProviderName, ProviderName>> = { local: 'local_command', local_command: 'local' };

export type Resolution = { available: true; provider: ProviderName } | { available: false; provider: string };

/**
 * How long one look at the model's files answers for its folder. The probe is asked on every page load and by
 * clients that poll it; two stats per request were a tenth of its cost. A model installed or removed shows
 * within this time (and transcription itself checks the files again before loading them).
 */
export const MODEL_CHECK_TTL_MS = 1000;
/** Model folders remembered at once (a setting changed back and forth); past it, all are looked at again. */
const MAX_MODEL_CHECKS = 16;
const modelChecks = new Map<string, { present: boolean; at: number }>();

function localModelPresent(modelDir: string): boolean {
  const now = Date.now();
  const seen = modelChecks.get(modelDir);
  if (seen && now - seen.at < MODEL_CHECK_TTL_MS && now >= seen.at) return seen.present;
  if (modelChecks.size >= MAX_MODEL_CHECKS) modelChecks.clear();
  const present = isLocalModelPresent(modelDir);
  modelChecks.set(modelDir, { present, at: now });
  return present;
}

function commandPresent(argv: readonly string[] | undefined, env: NodeJS.ProcessEnv): boolean {
  return !!argv?.[0] && resolveExecutable(argv[0], env) !== undefined;
}

/** Whether one provider could run now, judged without side effects. */
export function isProviderAvailable(cfg: SttConfig, name: ProviderName, env: NodeJS.ProcessEnv = process.env): boolean {
  switch (name) {
    case 'local':
      // The model's files and this machine's ONNX Runtime binding (an installer may carry none for it).
      return localModelPresent(cfg.modelDir) && isRuntimePresent();
    case 'local_command':
      // ffmpeg is needed only for formats decoded outside the process, so it is not required here.
      return commandPresent(cfg.localCommand, env);
    case 'command':
      return commandPresent(cfg.command, env);
    case 'openai':
    case 'groq':
      return !!cfg[name].apiKey && typeof fetch === 'function';
  }
}

export function resolveProvider(cfg: SttConfig, env: NodeJS.ProcessEnv = process.env): Resolution {
  if (!cfg.enabled) return { available: false, provider: NO_PROVIDER };
  if (cfg.unknownProvider !== undefined) return { available: false, provider: cfg.unknownProvider || NO_PROVIDER };
  if (cfg.provider) {
    const fallback = EXPLICIT_FALLBACK[cfg.provider];
    for (const name of fallback ? [cfg.provider, fallback] : [cfg.provider]) {
      if (isProviderAvailable(cfg, name, env)) return { available: true, provider: name };
    }
    return { available: false, provider: cfg.provider };
  }
  for (const name of AUTO_ORDER) {
    if (isProviderAvailable(cfg, name, env)) return { available: true, provider: name };
  }
  return { available: false, provider: NO_PROVIDER };
}

/** 4.6: `{available, provider}`; any internal failure is `{available: false, provider: "none"}`. */
export async function probeCapability(cfg: SttConfig): Promise<{ available: boolean; provider: string }> {
  return capabilityNow(cfg);
}

/** probeCapability's answer without a promise: the capability route answers it with no await in between. */
export function capabilityNow(cfg: SttConfig): { available: boolean; provider: string } {
  try {
    const { available, provider } = resolveProvider(cfg);
    return { available, provider };
  } catch {
    return { available: false, provider: NO_PROVIDER };
  }
}
