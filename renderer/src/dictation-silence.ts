// Dictation stops by itself after a few seconds of silence (issue 38: a recording forgotten ran to 0:40). How long
// is the person's choice (Settings → Dictation), kept in this browser; 0 turns it off. Pure parts here, so the
// rule is tested without a microphone; voice.ts measures the level and asks.

/** Seconds of silence before a recording stops, unless the person chose otherwise. */
export const DEFAULT_SILENCE_STOP_SECONDS = 3;
/** The longest wait offered: past a minute, "stop on silence" means nothing. */
export const MAX_SILENCE_STOP_SECONDS = 60;
/**
 * The level (RMS of samples in -1…1) under which the microphone counts as silent: about -40 dBFS, above a quiet
 * room's noise floor and well below speech at arm's length (about -25 dBFS and up).
 */
export const SILENCE_RMS = 0.01;
/** Where this browser keeps the choice (both the main window and quick capture read it: one origin). */
export const SILENCE_STORAGE_KEY = 'satchel.dictation.silenceStopSeconds';

/** A stored or typed value as seconds: a whole or decimal number in 0…MAX, else null (refused). */
export function parseSilenceSeconds(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value.trim() === '') return null;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 && n <= MAX_SILENCE_STOP_SECONDS ? n : null;
}

/** The seconds this browser stops after (0: never). */
export function silenceStopSeconds(storage: Pick<Storage, 'getItem'> | null = safeStorage()): number {
  return parseSilenceSeconds(storage?.getItem(SILENCE_STORAGE_KEY)) ?? DEFAULT_SILENCE_STOP_SECONDS;
}

export function setSilenceStopSeconds(seconds: number, storage: Pick<Storage, 'setItem'> | null = safeStorage()): void {
  storage?.setItem(SILENCE_STORAGE_KEY, String(seconds));
}

/**
 * Whether a recording stops now: never while the person holds the button or key (they decide when it ends), nor
 * when turned off; otherwise once nothing louder than SILENCE_RMS came for the chosen time.
 */
export function silenceEnds(now: number, lastSoundAt: number, seconds: number, held: boolean): boolean {
  return !held && seconds > 0 && now - lastSoundAt >= seconds * 1000;
}

/** localStorage, or null where the page may not use it (a sandboxed frame, storage turned off). */
function safeStorage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}
