// Token shapes that are not "prefix + tail": AWS key ids (A2, C), JWTs (B8), Discord bot tokens, Zhipu keys (B2),
// Twilio key sids (C), Telegram bot tokens (B6) and phone numbers (B10).
import { ALNUM, BASE64URL, BASE64URL_DOT, boundedLeft, boundedRight, DIGIT, inTable, LOWER_HEX, runEnd, runStart } from './chars.js';
import type { Finding } from './finding.js';
import { maskPhone, maskToken, SHORT_MASK } from './mask.js';

export const TOKEN_RANK = 50;
/** AWS access key ids: `AKIA`/`ASIA` + exactly this many of A-Z0-9. */
export const AWS_KEY_TAIL = 16;
/** AWS access key ids (AKIA) and temporary ids (ASIA). */
export const AWS_PREFIXES = ['AKIA', 'ASIA'] as const;
const AWS = new RegExp(`(?:${AWS_PREFIXES.join('|')})[A-Z0-9]{${AWS_KEY_TAIL}}`, 'g');
export const JWT_PREFIX = 'eyJ';
export const JWT_MIN_TAIL = 10;
// B8: no boundary check (found inside a base64 blob too). Bounded repeats only between literals: linear.
const JWT = new RegExp(`${JWT_PREFIX}[A-Za-z0-9_-]{${JWT_MIN_TAIL},}(?:\\.[A-Za-z0-9_=-]{4,}){0,2}`, 'g');
/** Twilio API key sids: `SK` + exactly this many lower-case hex digits. */
export const TWILIO_PREFIX = 'SK';
export const TWILIO_HEX = 32;
const TWILIO = new RegExp(`${TWILIO_PREFIX}[0-9a-f]{${TWILIO_HEX}}`, 'y');
/** Discord: [MN] + 23–25 alphanumerics, `.`, 6, `.`, 27 or more. */
export const DISCORD_FIRST_MIN = 24;
export const DISCORD_FIRST_MAX = 26;
export const DISCORD_MIDDLE = 6;
export const DISCORD_LAST_MIN = 27;
/** Zhipu: 32 lower-case hex, `.`, 16 or more alphanumerics. */
export const ZHIPU_ID = 32;
export const ZHIPU_SECRET_MIN = 16;
/** Telegram: 8 or more digits, `:`, 30 or more of [-A-Za-z0-9_]. */
export const TELEGRAM_ID_MIN = 8;
export const TELEGRAM_SECRET_MIN = 30;
/** Phone numbers (E.164-like): `+`, a digit 1–9, then 6 to 14 digits. */
export const PHONE_DIGITS_MIN = 7;
export const PHONE_DIGITS_MAX = 15;

function pushMasked(out: Finding[], text: string, start: number, end: number, rule: string): void {
  out.push({ start, end, text: () => maskToken(text.slice(start, end)), rule, rank: TOKEN_RANK });
}

export function scanAws(text: string, out: Finding[]): void {
  AWS.lastIndex = 0;
  for (let m = AWS.exec(text); m !== null; m = AWS.exec(text)) pushMasked(out, text, m.index, AWS.lastIndex, 'aws access key id');
}

export function scanJwt(text: string, out: Finding[]): void {
  JWT.lastIndex = 0;
  for (let m = JWT.exec(text); m !== null; m = JWT.exec(text)) pushMasked(out, text, m.index, JWT.lastIndex, 'jwt');
}

// indexOf finds a literal much faster than a global regex that starts with the same two characters.
export function scanTwilio(text: string, out: Finding[]): void {
  for (let at = text.indexOf(TWILIO_PREFIX); at !== -1; at = text.indexOf(TWILIO_PREFIX, at + 1)) {
    TWILIO.lastIndex = at;
    if (!TWILIO.test(text) || !boundedLeft(text, at) || !boundedRight(text, TWILIO.lastIndex)) continue;
    pushMasked(out, text, at, TWILIO.lastIndex, 'twilio api key sid');
    at = TWILIO.lastIndex - 1;
  }
}

/** A Discord bot token whose first dot is at `dot` (pushed), its end, or -1. */
export function discordAt(text: string, dot: number, out: Finding[]): number {
  const start = runStart(text, dot, ALNUM, DISCORD_FIRST_MAX + 1);
  const first = dot - start;
  if (first < DISCORD_FIRST_MIN || first > DISCORD_FIRST_MAX) return -1;
  const lead = text.charCodeAt(start);
  if ((lead !== 0x4d && lead !== 0x4e) || !boundedLeft(text, start)) return -1;
  const middleEnd = runEnd(text, dot + 1, BASE64URL, dot + 1 + DISCORD_MIDDLE + 1);
  if (middleEnd - dot - 1 !== DISCORD_MIDDLE || text.charCodeAt(middleEnd) !== 0x2e) return -1;
  const end = runEnd(text, middleEnd + 1, BASE64URL);
  if (end - middleEnd - 1 < DISCORD_LAST_MIN) return -1;
  pushMasked(out, text, start, end, 'discord bot token');
  return end;
}

/** A Zhipu key whose dot is at `dot` (pushed), its end, or -1. No [A-Za-z0-9_.-] on either side. */
export function zhipuAt(text: string, dot: number, out: Finding[]): number {
  const start = runStart(text, dot, LOWER_HEX, ZHIPU_ID + 1);
  if (dot - start !== ZHIPU_ID || (start > 0 && inTable(BASE64URL_DOT, text.charCodeAt(start - 1)))) return -1;
  const end = runEnd(text, dot + 1, ALNUM);
  if (end - dot - 1 < ZHIPU_SECRET_MIN || inTable(BASE64URL_DOT, text.charCodeAt(end))) return -1;
  pushMasked(out, text, start, end, 'zhipu api key');
  return end;
}

/** B6, at a `:`: the part after the colon becomes SHORT_MASK. */
export function telegramAt(text: string, colon: number, out: Finding[]): void {
  const digits = runStart(text, colon, DIGIT);
  if (colon - digits < TELEGRAM_ID_MIN) return;
  const end = runEnd(text, colon + 1, BASE64URL);
  if (end - colon - 1 < TELEGRAM_SECRET_MIN) return;
  out.push({ start: colon + 1, end, text: SHORT_MASK, rule: 'telegram bot token', rank: TOKEN_RANK - 10 });
}

export function scanPhones(text: string, out: Finding[]): void {
  for (let start = text.indexOf('+'); start !== -1; start = text.indexOf('+', start + 1)) {
    const first = text.charCodeAt(start + 1);
    if (first < 0x31 || first > 0x39 || (start > 0 && inTable(ALNUM, text.charCodeAt(start - 1)))) continue;
    const end = runEnd(text, start + 1, DIGIT);
    const digits = end - start - 1;
    if (digits < PHONE_DIGITS_MIN || digits > PHONE_DIGITS_MAX || inTable(ALNUM, text.charCodeAt(end))) continue;
    out.push({ start, end, text: maskPhone(text.slice(start, end)), rule: 'phone number', rank: TOKEN_RANK });
    start = end - 1;
  }
}
