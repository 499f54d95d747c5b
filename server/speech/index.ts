// Speech-to-text as the HTTP handlers see it: load the settings, probe the capability, transcribe a file.
// Provider resolution is shared with the probe (capability.ts); each provider lives in providers/.
import { log } from '../core/log.js';
import { AudioFormatError } from './audio.js';
import { resolveProvider } from './capability.js';
import type { ProviderName, SttConfig } from './config.js';
import { transcribeWithCommand } from './providers/command.js';
import { transcribeHosted } from './providers/hosted.js';
import { transcribeWithLocalCommand } from './providers/local-command.js';
import { SttUnavailableError, type ProviderRunOptions, type TranscribeResult } from './providers/types.js';
import { LocalModelMissingError, preloadLocalModel, transcribeLocalFile } from './local.js';

export { currentSttConfig, loadSttConfig, PROVIDER_NAMES } from './config.js';
export type { ProviderName, SttConfig, HostedConfig } from './config.js';
export { capabilityNow, probeCapability, resolveProvider, NO_PROVIDER } from './capability.js';
export { SttUnavailableError } from './providers/types.js';
export type { TranscribeResult } from './providers/types.js';

/**
 * Warm the on-device model when it is the provider the probe would pick, so the first dictation does not
 * pay for loading it. Never rejects; returns whether a model was loaded.
 */
export async function preloadSpeech(cfg: SttConfig): Promise<boolean> {
  try {
    const resolution = resolveProvider(cfg);
    if (!resolution.available || resolution.provider !== 'local') return false;
    return await preloadLocalModel(cfg.modelDir);
  } catch (err) {
    log.warn('speech: preload skipped:', err);
    return false;
  }
}

async function run(cfg: SttConfig, provider: ProviderName, filePath: string, opts: ProviderRunOptions) {
  const { signal, filename } = opts;
  switch (provider) {
    case 'local':
      return { success: true, transcript: await transcribeLocalFile(filePath, { modelDir: cfg.modelDir, signal }) };
    case 'local_command':
      return transcribeWithLocalCommand(cfg.localCommand!, filePath, { signal, timeoutMs: cfg.timeoutMs });
    case 'command':
      return transcribeWithCommand(cfg.command!, filePath, { signal, timeoutMs: cfg.timeoutMs });
    case 'openai':
    case 'groq':
      return transcribeHosted(provider, cfg[provider], filePath, {
        signal,
        filename,
        language: cfg.language,
        timeoutMs: cfg.timeoutMs,
      });
  }
}

/**
 * 4.5 steps 3-4. Throws SttUnavailableError when speech-to-text is disabled or no provider is available
 * (→ 503). Resolves {success:false, error} for failures the provider reports or an undecodable upload
 * (→ 400, or 503 when the text says "unavailable"/"not configured"). Anything else throws (→ 500),
 * including the caller's abort reason.
 */
export async function transcribeFile(
  cfg: SttConfig,
  filePath: string,
  opts: ProviderRunOptions = {},
): Promise<TranscribeResult> {
  const resolution = resolveProvider(cfg);
  if (!resolution.available) throw new SttUnavailableError();
  const { provider } = resolution;
  const started = Date.now();
  try {
    const result = await run(cfg, provider, filePath, opts);
    log.info(`speech: ${provider} ${result.success ? 'transcribed' : 'failed'} in ${Date.now() - started} ms`);
    return result;
  } catch (err) {
    // The decoder's texts are written for the client (unknown format, empty file, too long).
    if (err instanceof AudioFormatError) return { success: false, error: err.message };
    // Model files removed after the probe: "unavailable" in its text makes this a 503, not a 500.
    if (err instanceof LocalModelMissingError) return { success: false, error: err.message };
    throw err;
  }
}
