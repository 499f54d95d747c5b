// Speech-to-text settings: `<stateDir>/stt.json` (optional; the keys are the settings table's `sttKey`
// column, `openai`/`groq` as objects) overridden by the environment (its `env` column); see
// ../settings/table.ts for every name, parser and default. A bad value is logged by its key name only (it
// may be a secret) and ignored, never fatal: a typo in a settings file must not keep the server from
// starting. An empty environment variable counts as unset. In stt.json, argv values are JSON arrays, not
// strings.
import fs from 'node:fs';
import path from 'node:path';
import { log } from '../core/log.js';
import type { ProviderChoice, ProviderName, Warn } from '../settings/parsers.js';
import {
  DEFAULT_GROQ_BASE_URL,
  DEFAULT_GROQ_MODEL,
  DEFAULT_OPENAI_BASE_URL,
  DEFAULT_OPENAI_MODEL,
  DEFAULT_TIMEOUT_MS,
  readSetting,
  SETTING_NAMES,
  SETTINGS,
  type SettingName,
  type SettingValue,
} from '../settings/table.js';
import { defaultModelDir } from './local.js';

export {
  MAX_PROVIDER_NAME_LENGTH,
  MAX_TIMEOUT_MS,
  PROVIDER_NAMES,
  type ProviderName,
} from '../settings/parsers.js';
export {
  DEFAULT_GROQ_BASE_URL,
  DEFAULT_GROQ_MODEL,
  DEFAULT_OPENAI_BASE_URL,
  DEFAULT_OPENAI_MODEL,
  DEFAULT_TIMEOUT_MS,
} from '../settings/table.js';

export const SETTINGS_FILE_NAME = 'stt.json';
/** A settings file is a few hundred bytes; anything near this is not one. */
export const MAX_SETTINGS_FILE_BYTES = 64 * 1024;
/** The handlers load the settings per request: each distinct warning is logged once, up to this many. */
export const MAX_REMEMBERED_WARNINGS = 256;

export interface HostedConfig {
  apiKey?: string;
  baseUrl: string;
  model: string;
}

export interface SttConfig {
  enabled: boolean;
  /** Explicit provider: tried alone (with local ⇄ local_command fallback). Undefined = automatic order. */
  provider?: ProviderName;
  /** An explicit provider name that is not one of PROVIDER_NAMES: nothing is available, and the probe
   *  reports this name (4.6: "provider is the configured name"). */
  unknownProvider?: string;
  /** BCP-47-ish language hint for hosted providers (`en`, `pt-BR`). */
  language?: string;
  modelDir: string;
  /** argv for the local_command provider; `{input}` becomes a 16 kHz mono WAV. */
  localCommand?: string[];
  /** argv for the custom command provider; `{input}` becomes the uploaded file. */
  command?: string[];
  openai: HostedConfig;
  groq: HostedConfig;
  timeoutMs: number;
}

const warned = new Set<string>();

/** Forget which warnings were logged (tests; a settings reload that should speak up again). */
export function resetSttConfigWarnings(): void {
  warned.clear();
  current.clear();
}

function warnOnce(message: string): void {
  if (warned.has(message)) return;
  if (warned.size >= MAX_REMEMBERED_WARNINGS) warned.clear();
  warned.add(message);
  log.warn(message);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The table's rows that stt.json can hold, scalars before the `openai`/`groq` sections (the order the
 *  file's warnings are given in). */
const SPEECH_SETTINGS: readonly SettingName[] = SETTING_NAMES.filter((name) => sttKeyOf(name) !== undefined).sort(
  (a, b) => Number(sttKeyOf(a)!.includes('.')) - Number(sttKeyOf(b)!.includes('.')),
);
const FILE_KEYS = new Set(SPEECH_SETTINGS.map((name) => sttKeyOf(name)!.split('.')[0]));

function sttKeyOf(name: SettingName): string | undefined {
  return (SETTINGS[name] as { sttKey?: string }).sttKey;
}

/** What one source (the file, or the environment) contributed, after validation. */
type Layer = { [N in SettingName]?: SettingValue<N> };

function readSettingsFile(file: string, warn: Warn): Record<string, unknown> {
  let text: string;
  try {
    // No settings file is the usual case, asked on every probe: answered without building an ENOENT error.
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) return {};
    if (!stat.isFile() || stat.size > MAX_SETTINGS_FILE_BYTES) {
      warn(SETTINGS_FILE_NAME, `not a regular file under ${MAX_SETTINGS_FILE_BYTES} bytes; ignored`);
      return {};
    }
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') warn(SETTINGS_FILE_NAME, 'unreadable; ignored');
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The parser's message can quote the file's text (a key), so it is not logged.
    warn(SETTINGS_FILE_NAME, 'not valid JSON; ignored');
    return {};
  }
  if (!isPlainObject(parsed)) {
    warn(SETTINGS_FILE_NAME, 'expected a JSON object; ignored');
    return {};
  }
  return parsed;
}

function fileLayer(raw: Record<string, unknown>, warn: Warn): Layer {
  const layer: Record<string, unknown> = {};
  const w: Warn = (key, why) => warn(`${SETTINGS_FILE_NAME}: ${key}`, why);
  for (const key of Object.keys(raw)) if (!FILE_KEYS.has(key)) w(key, 'unknown key; ignored');
  // A section is checked once, when its first key comes up: not an object, or holding unknown keys.
  const sections = new Map<string, Record<string, unknown> | undefined>();
  const section = (name: string) => {
    if (!sections.has(name)) {
      const value = raw[name];
      let usable: Record<string, unknown> | undefined;
      if (value === undefined || value === null) usable = undefined;
      else if (!isPlainObject(value)) w(name, 'expected an object');
      else {
        const known = new Set(SPEECH_SETTINGS.map(sttKeyOf).filter((key) => key!.startsWith(`${name}.`)));
        for (const key of Object.keys(value)) if (!known.has(`${name}.${key}`)) w(`${name}.${key}`, 'unknown key; ignored');
        usable = value;
      }
      sections.set(name, usable);
    }
    return sections.get(name);
  };
  for (const name of SPEECH_SETTINGS) {
    const key = sttKeyOf(name)!;
    const dot = key.indexOf('.');
    const holder = dot === -1 ? raw : section(key.slice(0, dot));
    const value = holder?.[dot === -1 ? key : key.slice(dot + 1)];
    if (value === undefined || value === null) continue;
    layer[name] = SETTINGS[name].parse(value, { key, source: 'file', warn: w });
  }
  return layer as Layer;
}

function envLayer(env: NodeJS.ProcessEnv, warn: Warn): Layer {
  const layer: Record<string, unknown> = {};
  for (const name of SPEECH_SETTINGS) layer[name] = readSetting(name, env, warn);
  return layer as Layer;
}

/**
 * Settings file `<stateDir>/stt.json` (optional; same keys as SttConfig, `openai`/`groq` as objects)
 * overridden by the environment. Never throws for a bad file: a warning names the key, never its value.
 */
export function loadSttConfig(stateDir: string, env: NodeJS.ProcessEnv = process.env): SttConfig {
  const warn: Warn = (key, why) => warnOnce(`Speech-to-text setting ${key}: ${why}`);
  const file = fileLayer(readSettingsFile(path.join(stateDir, SETTINGS_FILE_NAME), warn), warn);
  const fromEnv = envLayer(env, warn);
  // A present-but-invalid env value leaves the file's value in force (it was warned about).
  const pick = <N extends SettingName>(name: N): SettingValue<N> | undefined => fromEnv[name] ?? file[name];
  const choice: ProviderChoice = pick('sttProvider') ?? {};
  const openaiKey = pick('openaiApiKey');
  const groqKey = pick('groqApiKey');
  const cfg: SttConfig = {
    enabled: pick('sttEnabled') ?? true,
    modelDir: pick('sttModelDir') ?? defaultModelDir(env),
    openai: {
      ...(openaiKey ? { apiKey: openaiKey } : {}),
      baseUrl: pick('openaiBaseUrl') ?? DEFAULT_OPENAI_BASE_URL,
      model: pick('openaiModel') ?? DEFAULT_OPENAI_MODEL,
    },
    groq: {
      ...(groqKey ? { apiKey: groqKey } : {}),
      baseUrl: pick('groqBaseUrl') ?? DEFAULT_GROQ_BASE_URL,
      model: pick('groqModel') ?? DEFAULT_GROQ_MODEL,
    },
    timeoutMs: pick('sttTimeoutMs') ?? DEFAULT_TIMEOUT_MS,
  };
  if (choice.provider) cfg.provider = choice.provider;
  if (choice.unknownProvider !== undefined) cfg.unknownProvider = choice.unknownProvider;
  const language = pick('sttLanguage');
  if (language) cfg.language = language;
  const localCommand = pick('sttLocalCommand');
  if (localCommand) cfg.localCommand = localCommand;
  const command = pick('sttCommand');
  if (command) cfg.command = command;
  return cfg;
}

/**
 * How long one look at `<state>/stt.json` answers for it. The settings are asked for on every capability probe
 * (each page load, and clients that poll it); reading and parsing the file each time was most of the probe's
 * cost. A file edited behind Satchel's back takes effect within this time; the environment is compared on every
 * call, so a changed variable takes effect at once.
 */
export const SETTINGS_FILE_CHECK_MS = 1000;
/** State folders whose settings are kept at once (one per server; tests start many); past it, all are read again. */
const MAX_KEPT_SETTINGS = 16;

interface Kept {
  /** The raw value of each speech variable, in SPEECH_SETTINGS order, when `config` was built. */
  env: (string | undefined)[];
  /** The file's identity (inode, size, change and modification times) when `config` was built; '' = none. */
  file: string;
  checkedAt: number;
  config: SttConfig;
}
const current = new Map<string, Kept>();
const SPEECH_ENV = SPEECH_SETTINGS.map((name) => SETTINGS[name].env);

function fileIdentity(file: string): string {
  try {
    const stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
    return stat ? `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.mode}` : '';
  } catch {
    // Unreadable now: loadSttConfig says why (once) and ignores it; a different identity makes it look.
    return '?';
  }
}

/**
 * loadSttConfig's answer, built again only when a speech variable or the settings file changed (the file is
 * looked at once per SETTINGS_FILE_CHECK_MS). The result is shared between callers: read it, never change it.
 */
export function currentSttConfig(stateDir: string, env: NodeJS.ProcessEnv = process.env): SttConfig {
  const now = Date.now();
  const kept = current.get(stateDir);
  let file: string | undefined;
  if (kept) {
    let sameEnv = true;
    for (let i = 0; i < SPEECH_ENV.length && sameEnv; i++) sameEnv = env[SPEECH_ENV[i]!] === kept.env[i];
    if (sameEnv) {
      if (now - kept.checkedAt < SETTINGS_FILE_CHECK_MS && now >= kept.checkedAt) return kept.config;
      file = fileIdentity(path.join(stateDir, SETTINGS_FILE_NAME));
      if (file === kept.file) {
        kept.checkedAt = now;
        return kept.config;
      }
    }
  }
  file ??= fileIdentity(path.join(stateDir, SETTINGS_FILE_NAME));
  const config = loadSttConfig(stateDir, env);
  if (!kept && current.size >= MAX_KEPT_SETTINGS) current.clear();
  current.set(stateDir, { env: SPEECH_ENV.map((name) => env[name]), file, checkedAt: now, config });
  return config;
}
