// Every setting Satchel reads, in one table: its environment variable, its stt.json key and command-line flag
// where it has one, its parser, its default as the README shows it, and whether it is read per request.
// README.md's Configuration table lists exactly these rows in this order (readme.test.ts), and every reader
// gets its value through readSetting/rawSetting below, so a name is spelled in one place.
//
// perRequest: true means the reader asks at the moment it needs the value (each response, each upload, each
// log line, each transcription), so a changed variable takes effect without a restart, as the specification
// requires for the CSP extras, the extraction cap and the attachment folder. false means it is read once at
// start (loadConfig).
import {
  argv,
  boolean,
  dir,
  dirList,
  language,
  port,
  positiveDecimal,
  positiveNumber,
  provider,
  text,
  timeoutMs,
  unlessOffWord,
  url,
  word,
  type Parser,
  type Warn,
} from './parsers.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_MAX_UPLOAD_MB = 100;
export const DEFAULT_LOG_LEVEL = 'info';
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_GROQ_BASE_URL = 'https://api.groq.com/openai/v1';
export const DEFAULT_OPENAI_MODEL = 'whisper-1';
export const DEFAULT_GROQ_MODEL = 'whisper-large-v3-turbo';
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Tools can be slow: an agent silent this long has stopped (agent.md). */
export const DEFAULT_AGENT_TIMEOUT_MS = 600_000;
/**
 * The most one turn may take, however busy the agent keeps the connection (keepalive comments reset only the
 * idle timeout): generous for a long tool run, but a turn that never ends would hold a conversation slot
 * (MAX_CONCURRENT_TURNS) and its session forever.
 */
export const DEFAULT_AGENT_TURN_MAX_MS = 30 * 60_000;
export const DEFAULT_AGENT_CONTEXT_CHARS = 200_000;

export interface Setting<T> {
  env: string;
  /** Dotted path in `<state>/stt.json` (`openai.apiKey`); the environment wins over it. */
  sttKey?: string;
  /** Command-line flag of both entry points; the flag wins over the environment. */
  flag?: `--${string}`;
  /** What the flag's value is called in the usage line (`--port N`). */
  flagArg?: string;
  parse: Parser<T>;
  /** The default in the README's words (markdown). */
  default: string;
  perRequest: boolean;
  /** The README's "Meaning" cell (markdown). */
  meaning: string;
}

// Keeps each row's literal type, so the rows with a flag are known to the type checker (FlagSettingName).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const row = <const S extends Setting<any>>(setting: S): S => setting;
const code = (value: string | number) => `\`${value}\``;

export const SETTINGS = {
  port: row({
    env: 'SATCHEL_WEBUI_PORT',
    flag: '--port',
    flagArg: 'N',
    parse: port,
    // Both entry points start on the port they last listened on (server/process/port-store.ts) unless this is set.
    default: 'the last port used (`<state>/last-port.json`), else any free port',
    perRequest: false,
    meaning: 'the port to listen on, over the remembered one (`0` = any free port)',
  }),
  host: row({
    env: 'SATCHEL_WEBUI_HOST',
    flag: '--host',
    flagArg: 'H',
    parse: text,
    default: code(DEFAULT_HOST),
    perRequest: false,
    meaning: 'the address to listen on',
  }),
  stateDir: row({
    env: 'SATCHEL_WEBUI_STATE_DIR',
    flag: '--state-dir',
    flagArg: 'DIR',
    parse: dir,
    default:
      'the per-user app-data folder (`~/.config/Satchel`, `~/Library/Application Support/Satchel`, `%APPDATA%\\Satchel`)',
    perRequest: false,
    meaning: 'sessions, attachments, settings',
  }),
  token: row({
    env: 'SATCHEL_WEBUI_TOKEN',
    parse: text,
    default: 'random per launch',
    perRequest: false,
    meaning: 'fixed access token',
  }),
  maxUploadMb: row({
    env: 'SATCHEL_WEBUI_MAX_UPLOAD_MB',
    parse: positiveNumber,
    default: String(DEFAULT_MAX_UPLOAD_MB),
    perRequest: false,
    meaning: 'upload cap in MiB',
  }),
  maxExtractedMb: row({
    env: 'SATCHEL_WEBUI_MAX_EXTRACTED_MB',
    parse: positiveDecimal,
    default: '10 × the upload cap',
    perRequest: true,
    meaning: 'cap on bytes extracted from one archive, in MiB',
  }),
  attachmentDir: row({
    env: 'SATCHEL_WEBUI_ATTACHMENT_DIR',
    parse: dir,
    default: '`<state>/attachments`',
    perRequest: true,
    meaning: 'where attachments go',
  }),
  defaultWorkspace: row({
    env: 'SATCHEL_WEBUI_DEFAULT_WORKSPACE',
    parse: dir,
    default: '`<state>/workspace`',
    perRequest: false,
    meaning: 'a trusted default workspace',
  }),
  // Checked entry by entry against each directive's pattern by headers.ts, which owns the policy.
  cspConnectExtra: row({
    env: 'SATCHEL_WEBUI_CSP_CONNECT_EXTRA',
    parse: text,
    default: 'none',
    perRequest: true,
    meaning: 'extra CSP `connect-src` sources in the header, space-separated (the page’s own `<meta>` policy still allows only its origin)',
  }),
  cspFrameExtra: row({
    env: 'SATCHEL_WEBUI_CSP_FRAME_EXTRA',
    parse: text,
    default: 'none',
    perRequest: true,
    meaning: 'extra CSP `frame-src` sources in the header, space-separated (the page’s own `<meta>` policy still allows none)',
  }),
  logLevel: row({
    env: 'SATCHEL_LOG_LEVEL',
    parse: word,
    default: code(DEFAULT_LOG_LEVEL),
    perRequest: true,
    meaning: '`debug`, `info`, `warn`, `error`, `silent`',
  }),
  // Speech: the handlers load these on each request (speech/config.ts), stt.json first, the environment over it.
  // The stt.json keys without a dot come before the `openai`/`groq` sections, the order its warnings follow.
  sttEnabled: row({
    env: 'SATCHEL_STT_ENABLED',
    sttKey: 'enabled',
    parse: boolean,
    default: 'on',
    perRequest: true,
    meaning: '`0`/`false`/`no`/`off` turns speech-to-text off',
  }),
  sttProvider: row({
    env: 'SATCHEL_STT_PROVIDER',
    sttKey: 'provider',
    parse: provider,
    default: 'automatic: local → local_command → openai → groq',
    perRequest: true,
    meaning: '`auto`, `local`, `local_command`, `openai`, `groq`, `command`',
  }),
  sttLanguage: row({
    env: 'SATCHEL_STT_LANGUAGE',
    sttKey: 'language',
    parse: language,
    default: 'none',
    perRequest: true,
    meaning: 'language hint for hosted providers (`en`, `pt-BR`)',
  }),
  sttModelDir: row({
    env: 'SATCHEL_STT_MODEL_DIR',
    sttKey: 'modelDir',
    parse: dir,
    default: '`models/moonshine-tiny`',
    perRequest: true,
    meaning: 'where the local model lives',
  }),
  sttPreload: row({
    env: 'SATCHEL_STT_PRELOAD',
    parse: unlessOffWord,
    default: 'on',
    perRequest: false,
    meaning: '`0`/`false`/`no`/`off`: do not load the local model at start (the first dictation loads it)',
  }),
  sttLocalCommand: row({
    env: 'SATCHEL_STT_LOCAL_COMMAND',
    sttKey: 'localCommand',
    parse: argv,
    default: 'none',
    perRequest: true,
    meaning: 'JSON argv for `local_command`; `{input}` = a 16 kHz mono WAV',
  }),
  sttCommand: row({
    env: 'SATCHEL_STT_COMMAND',
    sttKey: 'command',
    parse: argv,
    default: 'none',
    perRequest: true,
    meaning: 'JSON argv for `command`; `{input}` = the uploaded file',
  }),
  sttTimeoutMs: row({
    env: 'SATCHEL_STT_TIMEOUT_MS',
    sttKey: 'timeoutMs',
    parse: timeoutMs,
    default: String(DEFAULT_TIMEOUT_MS),
    perRequest: true,
    meaning: 'milliseconds per command run or hosted request',
  }),
  openaiApiKey: row({
    env: 'OPENAI_API_KEY',
    sttKey: 'openai.apiKey',
    parse: text,
    default: 'none',
    perRequest: true,
    meaning: 'enables the `openai` provider',
  }),
  openaiBaseUrl: row({
    env: 'SATCHEL_STT_OPENAI_BASE_URL',
    sttKey: 'openai.baseUrl',
    parse: url,
    default: code(DEFAULT_OPENAI_BASE_URL),
    perRequest: true,
    meaning: 'the `openai` provider’s API (any OpenAI-compatible server)',
  }),
  openaiModel: row({
    env: 'SATCHEL_STT_OPENAI_MODEL',
    sttKey: 'openai.model',
    parse: text,
    default: code(DEFAULT_OPENAI_MODEL),
    perRequest: true,
    meaning: 'the `openai` provider’s transcription model',
  }),
  groqApiKey: row({
    env: 'GROQ_API_KEY',
    sttKey: 'groq.apiKey',
    parse: text,
    default: 'none',
    perRequest: true,
    meaning: 'enables the `groq` provider',
  }),
  groqBaseUrl: row({
    env: 'SATCHEL_STT_GROQ_BASE_URL',
    sttKey: 'groq.baseUrl',
    parse: url,
    default: code(DEFAULT_GROQ_BASE_URL),
    perRequest: true,
    meaning: 'the `groq` provider’s API',
  }),
  groqModel: row({
    env: 'SATCHEL_STT_GROQ_MODEL',
    sttKey: 'groq.model',
    parse: text,
    default: code(DEFAULT_GROQ_MODEL),
    perRequest: true,
    meaning: 'the `groq` provider’s transcription model',
  }),
  // The agent (agent/config.ts): `<state>/agent.json` first, the environment over it, read at each turn.
  agentBaseUrl: row({
    env: 'SATCHEL_AGENT_BASE_URL',
    parse: url,
    default: 'none (no agent)',
    perRequest: true,
    meaning: 'the agent’s OpenAI-compatible API, with or without `/v1` (Hermes’ gateway: `http://127.0.0.1:8642`)',
  }),
  agentApiKey: row({
    env: 'SATCHEL_AGENT_API_KEY',
    parse: text,
    default: 'none',
    perRequest: true,
    meaning: 'sent as `Authorization: Bearer …`; never returned or logged',
  }),
  agentModel: row({
    env: 'SATCHEL_AGENT_MODEL',
    parse: text,
    default: 'none (Hermes: `hermes-agent`)',
    perRequest: true,
    meaning: 'the model each turn asks for',
  }),
  agentKind: row({
    env: 'SATCHEL_AGENT_KIND',
    parse: word,
    default: 'detected',
    perRequest: true,
    meaning: '`hermes` (the gateway keeps the history while it holds exactly what Satchel shows, and is sent it otherwise) or `openai` (the history is sent each turn)',
  }),
  agentTimeoutMs: row({
    env: 'SATCHEL_AGENT_TIMEOUT_MS',
    parse: timeoutMs,
    default: String(DEFAULT_AGENT_TIMEOUT_MS),
    perRequest: true,
    meaning: 'milliseconds without a byte from the agent before a turn fails as `timeout`',
  }),
  agentTurnMaxMs: row({
    env: 'SATCHEL_AGENT_TURN_MAX_MS',
    parse: timeoutMs,
    default: String(DEFAULT_AGENT_TURN_MAX_MS),
    perRequest: true,
    meaning: 'milliseconds a whole turn may take, keepalives or not, before it fails as `timeout`',
  }),
  agentContextChars: row({
    env: 'SATCHEL_AGENT_CONTEXT_CHARS',
    parse: positiveNumber,
    default: String(DEFAULT_AGENT_CONTEXT_CHARS),
    perRequest: true,
    meaning: 'characters of history and inlined attachments sent per turn',
  }),
  // Watched by the server itself (server/inbox/), so the headless server watches too; the settings panel adds more.
  inboxFolders: row({
    env: 'SATCHEL_INBOX_FOLDERS',
    parse: dirList,
    default: 'none',
    perRequest: false,
    meaning: 'folders whose new or changed files arrive once in the Inbox conversation, separated by `:` (`;` on Windows); each must pass the workspace rules',
  }),
} as const;

export type SettingName = keyof typeof SETTINGS;
export type SettingValue<N extends SettingName> = (typeof SETTINGS)[N]['parse'] extends Parser<infer T> ? T : never;
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];
/** The rows a command-line flag can set. */
export type FlagSettingName = { [N in SettingName]: (typeof SETTINGS)[N] extends { flag: string } ? N : never }[SettingName];
export const FLAG_SETTING_NAMES = SETTING_NAMES.filter((name) => 'flag' in SETTINGS[name]) as FlagSettingName[];

const ignore: Warn = () => {};

/** The environment variable's text as it is at this moment (undefined when unset). */
export function rawSetting(name: SettingName, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[SETTINGS[name].env];
}

/**
 * The parsed value from the environment at this moment; undefined when unset, blank or unusable (the caller
 * falls back to its default). Per-request readers call this each time; nothing is cached here.
 */
export function readSetting<N extends SettingName>(
  name: N,
  env: NodeJS.ProcessEnv = process.env,
  warn: Warn = ignore,
): SettingValue<N> | undefined {
  const setting = SETTINGS[name] as Setting<SettingValue<N>>;
  const raw = env[setting.env];
  if (raw === undefined || raw.trim() === '') return undefined;
  return setting.parse(raw, { key: setting.env, source: 'env', warn });
}

/** Set and not blank: the user chose a value (valid or not). */
export function isSettingSet(name: SettingName, env: NodeJS.ProcessEnv = process.env): boolean {
  return !!rawSetting(name, env)?.trim();
}
