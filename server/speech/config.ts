// Speech-to-text settings: `<stateDir>/stt.json` (optional, same keys as SttConfig) overridden by the
// environment. A bad value is logged by its key name only (it may be a secret) and ignored, never fatal:
// a typo in a settings file must not keep the server from starting.
//
//   environment                   stt.json            default
//   SATCHEL_STT_ENABLED           enabled             true   (0/false/no/off disable, 1/true/yes/on enable)
//   SATCHEL_STT_PROVIDER          provider            auto   (local, local_command, openai, groq, command)
//   SATCHEL_STT_MODEL_DIR         modelDir            defaultModelDir() of the on-device engine
//   SATCHEL_STT_LOCAL_COMMAND     localCommand        —      JSON argv; {input} = a 16 kHz mono WAV
//   SATCHEL_STT_COMMAND           command             —      JSON argv; {input} = the uploaded file
//   OPENAI_API_KEY                openai.apiKey       —
//   SATCHEL_STT_OPENAI_BASE_URL   openai.baseUrl      https://api.openai.com/v1
//   SATCHEL_STT_OPENAI_MODEL      openai.model        whisper-1
//   GROQ_API_KEY                  groq.apiKey         —
//   SATCHEL_STT_GROQ_BASE_URL     groq.baseUrl        https://api.groq.com/openai/v1
//   SATCHEL_STT_GROQ_MODEL        groq.model          whisper-large-v3-turbo
//   SATCHEL_STT_LANGUAGE          language            —      hint for hosted providers (en, pt-BR → pt)
//   SATCHEL_STT_TIMEOUT_MS        timeoutMs           120000 per command run or hosted request
// An empty environment variable counts as unset. In stt.json, argv values are JSON arrays, not strings.
import fs from 'node:fs';
import path from 'node:path';
import { expandUser } from '../config.js';
import { log } from '../log.js';
import { defaultModelDir } from './local.js';

export const SETTINGS_FILE_NAME = 'stt.json';
/** A settings file is a few hundred bytes; anything near this is not one. */
export const MAX_SETTINGS_FILE_BYTES = 64 * 1024;
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_GROQ_BASE_URL = 'https://api.groq.com/openai/v1';
export const DEFAULT_OPENAI_MODEL = 'whisper-1';
export const DEFAULT_GROQ_MODEL = 'whisper-large-v3-turbo';
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Longer than any sane transcription; guards against a typo like 1e12 turning a hang into forever. */
export const MAX_TIMEOUT_MS = 60 * 60_000;
/** The handlers load the settings per request: each distinct warning is logged once, up to this many. */
export const MAX_REMEMBERED_WARNINGS = 256;
/** A reported unknown provider name is cut to this length (it is echoed by the capability route). */
export const MAX_PROVIDER_NAME_LENGTH = 64;

export const PROVIDER_NAMES = ['local', 'local_command', 'openai', 'groq', 'command'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

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

const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);
const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
/** `auto` (or empty) means "no explicit provider": use the automatic order. */
const AUTO_WORDS = new Set(['', 'auto']);
const LANGUAGE_PATTERN = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/;

type Source = 'file' | 'env';

const warned = new Set<string>();

/** Forget which warnings were logged (tests; a settings reload that should speak up again). */
export function resetSttConfigWarnings(): void {
  warned.clear();
}

function warnOnce(message: string): void {
  if (warned.has(message)) return;
  if (warned.size >= MAX_REMEMBERED_WARNINGS) warned.clear();
  warned.add(message);
  log.warn(message);
}
type Warn = (key: string, why: string) => void;

function parseBoolean(raw: unknown, key: string, warn: Warn): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'string') {
    const word = raw.trim().toLowerCase();
    if (word === '') return undefined;
    if (FALSE_WORDS.has(word)) return false;
    if (TRUE_WORDS.has(word)) return true;
  }
  warn(key, 'expected true/false, 1/0, yes/no or on/off');
  return undefined;
}

type ProviderChoice = { provider?: ProviderName; unknownProvider?: string } | undefined;

function parseProvider(raw: unknown, key: string, warn: Warn): ProviderChoice {
  if (typeof raw !== 'string') {
    warn(key, 'expected a string');
    return undefined;
  }
  const name = raw.trim().toLowerCase();
  if (AUTO_WORDS.has(name)) return {};
  if ((PROVIDER_NAMES as readonly string[]).includes(name)) return { provider: name as ProviderName };
  warn(key, `unknown provider (expected auto, ${PROVIDER_NAMES.join(', ')}); speech-to-text is unavailable`);
  return { unknownProvider: name.slice(0, MAX_PROVIDER_NAME_LENGTH) };
}

function parseString(raw: unknown, key: string, warn: Warn): string | undefined {
  if (typeof raw !== 'string') {
    warn(key, 'expected a string');
    return undefined;
  }
  const value = raw.trim();
  return value === '' ? undefined : value;
}

function parseArgv(raw: unknown, key: string, source: Source, warn: Warn): string[] | undefined {
  let value = raw;
  if (source === 'env') {
    if (typeof raw !== 'string' || raw.trim() === '') return undefined;
    try {
      value = JSON.parse(raw);
    } catch {
      warn(key, 'expected a JSON array of strings, e.g. ["whisper-cli","{input}"]');
      return undefined;
    }
  }
  if (!Array.isArray(value) || value.length === 0 || !value.every((a) => typeof a === 'string') || value[0] === '') {
    warn(key, 'expected a non-empty array of strings whose first item is the program');
    return undefined;
  }
  // Kept (a command may find its input another way), but almost always a mistake worth a line in the log.
  if (!value.some((arg: string) => arg.includes('{input}'))) warn(key, 'no argument contains {input}');
  return value as string[];
}

function parseUrl(raw: unknown, key: string, warn: Warn): string | undefined {
  const text = parseString(raw, key, warn);
  if (text === undefined) return undefined;
  try {
    const url = new URL(text);
    if (url.protocol === 'http:' || url.protocol === 'https:') return text.replace(/\/+$/, '');
  } catch {
    // Reported below.
  }
  warn(key, 'expected an http(s) URL');
  return undefined;
}

function parseLanguage(raw: unknown, key: string, warn: Warn): string | undefined {
  const text = parseString(raw, key, warn);
  if (text === undefined) return undefined;
  if (LANGUAGE_PATTERN.test(text)) return text;
  warn(key, 'expected a language code such as en or pt-BR');
  return undefined;
}

function parseTimeout(raw: unknown, key: string, warn: Warn): number | undefined {
  if (typeof raw === 'string' && raw.trim() === '') return undefined;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw.trim()) : NaN;
  if (Number.isInteger(n) && n > 0 && n <= MAX_TIMEOUT_MS) return n;
  warn(key, `expected whole milliseconds between 1 and ${MAX_TIMEOUT_MS}`);
  return undefined;
}

function parseDir(raw: unknown, key: string, warn: Warn): string | undefined {
  const text = parseString(raw, key, warn);
  return text === undefined ? undefined : path.resolve(expandUser(text));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What the settings file contributed, after validation. */
interface Layer {
  enabled?: boolean;
  choice?: ProviderChoice;
  language?: string;
  modelDir?: string;
  localCommand?: string[];
  command?: string[];
  openai: Partial<HostedConfig>;
  groq: Partial<HostedConfig>;
  timeoutMs?: number;
}

const FILE_KEYS = new Set([
  'enabled',
  'provider',
  'language',
  'modelDir',
  'localCommand',
  'command',
  'openai',
  'groq',
  'timeoutMs',
]);
const HOSTED_KEYS = new Set(['apiKey', 'baseUrl', 'model']);

function readSettingsFile(file: string, warn: Warn): Record<string, unknown> {
  let text: string;
  try {
    const stat = fs.statSync(file);
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
  const layer: Layer = { openai: {}, groq: {} };
  const w: Warn = (key, why) => warn(`${SETTINGS_FILE_NAME}: ${key}`, why);
  for (const key of Object.keys(raw)) if (!FILE_KEYS.has(key)) w(key, 'unknown key; ignored');
  const has = (key: string) => raw[key] !== undefined && raw[key] !== null;
  if (has('enabled')) layer.enabled = parseBoolean(raw.enabled, 'enabled', w);
  if (has('provider')) layer.choice = parseProvider(raw.provider, 'provider', w);
  if (has('language')) layer.language = parseLanguage(raw.language, 'language', w);
  if (has('modelDir')) layer.modelDir = parseDir(raw.modelDir, 'modelDir', w);
  if (has('localCommand')) layer.localCommand = parseArgv(raw.localCommand, 'localCommand', 'file', w);
  if (has('command')) layer.command = parseArgv(raw.command, 'command', 'file', w);
  if (has('timeoutMs')) layer.timeoutMs = parseTimeout(raw.timeoutMs, 'timeoutMs', w);
  for (const name of ['openai', 'groq'] as const) {
    if (!has(name)) continue;
    const section = raw[name];
    if (!isPlainObject(section)) {
      w(name, 'expected an object');
      continue;
    }
    for (const key of Object.keys(section)) if (!HOSTED_KEYS.has(key)) w(`${name}.${key}`, 'unknown key; ignored');
    const target = layer[name];
    if (section.apiKey != null) target.apiKey = parseString(section.apiKey, `${name}.apiKey`, w);
    if (section.baseUrl != null) target.baseUrl = parseUrl(section.baseUrl, `${name}.baseUrl`, w);
    if (section.model != null) target.model = parseString(section.model, `${name}.model`, w);
  }
  return layer;
}

function envLayer(env: NodeJS.ProcessEnv, warn: Warn): Layer {
  const layer: Layer = { openai: {}, groq: {} };
  const set = (name: string) => env[name] !== undefined && env[name]!.trim() !== '';
  if (set('SATCHEL_STT_ENABLED')) layer.enabled = parseBoolean(env.SATCHEL_STT_ENABLED, 'SATCHEL_STT_ENABLED', warn);
  if (set('SATCHEL_STT_PROVIDER'))
    layer.choice = parseProvider(env.SATCHEL_STT_PROVIDER, 'SATCHEL_STT_PROVIDER', warn);
  if (set('SATCHEL_STT_LANGUAGE')) layer.language = parseLanguage(env.SATCHEL_STT_LANGUAGE, 'SATCHEL_STT_LANGUAGE', warn);
  if (set('SATCHEL_STT_MODEL_DIR')) layer.modelDir = parseDir(env.SATCHEL_STT_MODEL_DIR, 'SATCHEL_STT_MODEL_DIR', warn);
  if (set('SATCHEL_STT_LOCAL_COMMAND'))
    layer.localCommand = parseArgv(env.SATCHEL_STT_LOCAL_COMMAND, 'SATCHEL_STT_LOCAL_COMMAND', 'env', warn);
  if (set('SATCHEL_STT_COMMAND')) layer.command = parseArgv(env.SATCHEL_STT_COMMAND, 'SATCHEL_STT_COMMAND', 'env', warn);
  if (set('SATCHEL_STT_TIMEOUT_MS'))
    layer.timeoutMs = parseTimeout(env.SATCHEL_STT_TIMEOUT_MS, 'SATCHEL_STT_TIMEOUT_MS', warn);
  if (set('OPENAI_API_KEY')) layer.openai.apiKey = env.OPENAI_API_KEY!.trim();
  if (set('GROQ_API_KEY')) layer.groq.apiKey = env.GROQ_API_KEY!.trim();
  if (set('SATCHEL_STT_OPENAI_BASE_URL'))
    layer.openai.baseUrl = parseUrl(env.SATCHEL_STT_OPENAI_BASE_URL, 'SATCHEL_STT_OPENAI_BASE_URL', warn);
  if (set('SATCHEL_STT_GROQ_BASE_URL'))
    layer.groq.baseUrl = parseUrl(env.SATCHEL_STT_GROQ_BASE_URL, 'SATCHEL_STT_GROQ_BASE_URL', warn);
  if (set('SATCHEL_STT_OPENAI_MODEL')) layer.openai.model = env.SATCHEL_STT_OPENAI_MODEL!.trim();
  if (set('SATCHEL_STT_GROQ_MODEL')) layer.groq.model = env.SATCHEL_STT_GROQ_MODEL!.trim();
  return layer;
}

function hosted(fileValue: Partial<HostedConfig>, envValue: Partial<HostedConfig>, baseUrl: string, model: string) {
  const apiKey = envValue.apiKey ?? fileValue.apiKey;
  return {
    ...(apiKey ? { apiKey } : {}),
    baseUrl: envValue.baseUrl ?? fileValue.baseUrl ?? baseUrl,
    model: envValue.model ?? fileValue.model ?? model,
  };
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
  const choice = fromEnv.choice ?? file.choice ?? {};
  const cfg: SttConfig = {
    enabled: fromEnv.enabled ?? file.enabled ?? true,
    modelDir: fromEnv.modelDir ?? file.modelDir ?? defaultModelDir(env),
    openai: hosted(file.openai, fromEnv.openai, DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL),
    groq: hosted(file.groq, fromEnv.groq, DEFAULT_GROQ_BASE_URL, DEFAULT_GROQ_MODEL),
    timeoutMs: fromEnv.timeoutMs ?? file.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  if (choice.provider) cfg.provider = choice.provider;
  if (choice.unknownProvider !== undefined) cfg.unknownProvider = choice.unknownProvider;
  const language = fromEnv.language ?? file.language;
  if (language) cfg.language = language;
  const localCommand = fromEnv.localCommand ?? file.localCommand;
  if (localCommand) cfg.localCommand = localCommand;
  const command = fromEnv.command ?? file.command;
  if (command) cfg.command = command;
  return cfg;
}
