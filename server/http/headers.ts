// Security headers and the Content-Security-Policy of spec-notes 4.0; the operator extras are README.md "Configuration".
// The operator extras are read from the environment on every response, as the specification requires, so a
// changed variable takes effect without a restart.
import { log } from '../core/log.js';
import { rawSetting, SETTINGS } from '../settings/table.js';

export const CONNECT_EXTRA_ENV = SETTINGS.cspConnectExtra.env;
export const FRAME_EXTRA_ENV = SETTINGS.cspFrameExtra.env;

const ACCESS_PROXY_ORIGIN = 'https://*.cloudflareaccess.com';
const CDN_ORIGIN = 'https://cdn.jsdelivr.net';
const ANALYTICS_ORIGIN = 'https://static.cloudflareinsights.com';
const FONT_CSS_ORIGIN = 'https://fonts.googleapis.com';
const FONT_FILE_ORIGIN = 'https://fonts.gstatic.com';

const LOOPBACK_CONNECT = [
  'http://127.0.0.1:*',
  'http://localhost:*',
  'http://ipc.localhost',
  'https://127.0.0.1:*',
  'https://localhost:*',
  'ws://127.0.0.1:*',
  'ws://localhost:*',
];

// scheme://[*.]host[:port] with port 1-65535 or *. The host alphabet is the specification's, nothing more, so an
// entry can never smuggle a `;` or a quote into the policy.
const PORT = '(?::(?:\\*|6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3}))?';
const CONNECT_ENTRY = new RegExp(`^(?:https?|wss?)://(?:\\*\\.)?[A-Za-z0-9._~-]+${PORT}$`);
const FRAME_ENTRY = new RegExp(`^https?://(?:\\*\\.)?[A-Za-z0-9._~-]+${PORT}$`);

/** Entries of an extras variable, or [] when empty or when any entry is invalid (then a warning is logged). */
export function parseCspExtra(name: string, raw: string | undefined, pattern: RegExp): string[] {
  const entries = (raw ?? '').split(/\s+/).filter(Boolean);
  const bad = entries.find((entry) => !pattern.test(entry));
  if (bad !== undefined) {
    log.warn(`Ignoring ${name}: invalid entry ${JSON.stringify(bad.slice(0, 200))}`);
    return [];
  }
  return entries;
}

/** The enforced policy, extras included, built from the environment at the time of the call. */
export function contentSecurityPolicy(env: NodeJS.ProcessEnv = process.env): string {
  const connectExtra = parseCspExtra(CONNECT_EXTRA_ENV, rawSetting('cspConnectExtra', env), CONNECT_ENTRY);
  const frameExtra = parseCspExtra(FRAME_EXTRA_ENV, rawSetting('cspFrameExtra', env), FRAME_ENTRY);
  const directives: [string, string[]][] = [
    ['default-src', ["'self'", ACCESS_PROXY_ORIGIN]],
    ['object-src', ["'none'"]],
    ['frame-ancestors', ["'none'"]],
    ['script-src', ["'self'", "'unsafe-inline'", CDN_ORIGIN, ANALYTICS_ORIGIN, 'blob:']],
    ['worker-src', ['blob:', "'self'", CDN_ORIGIN]],
    ['style-src', ["'self'", "'unsafe-inline'", CDN_ORIGIN, FONT_CSS_ORIGIN]],
    ['img-src', ["'self'", 'data:', 'https:', 'blob:']],
    ['font-src', ["'self'", 'data:', FONT_FILE_ORIGIN]],
    ['media-src', ["'self'", 'data:', 'blob:']],
    ['connect-src', ["'self'", ...LOOPBACK_CONNECT, CDN_ORIGIN, ...connectExtra]],
    ['frame-src', ["'self'", ...frameExtra]],
    ['manifest-src', ["'self'", ACCESS_PROXY_ORIGIN]],
    ['base-uri', ["'self'"]],
    ['form-action', ["'self'"]],
  ];
  return directives.map(([name, sources]) => `${name} ${sources.join(' ')}`).join('; ');
}

// The variables are read on every response; only the policy built from the same two values is reused, which
// also logs an invalid value's warning once instead of on every response.
let cached: { connect: string | undefined; frame: string | undefined; headers: Readonly<Record<string, string>> } | undefined;

/** The headers every response carries, errors and parser rejections included. */
export function securityHeaders(env: NodeJS.ProcessEnv = process.env): Readonly<Record<string, string>> {
  const connect = rawSetting('cspConnectExtra', env);
  const frame = rawSetting('cspFrameExtra', env);
  if (cached && cached.connect === connect && cached.frame === frame) return cached.headers;
  const headers = Object.freeze({
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(self), geolocation=(), clipboard-write=(self)',
    'Content-Security-Policy': contentSecurityPolicy(env),
  });
  cached = { connect, frame, headers };
  return headers;
}
