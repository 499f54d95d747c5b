// Where the window may go. The app is one origin (the loopback server); anything else is either a link the
// user meant to follow in their real browser, or something a compromised page is trying, and is refused.

/** Schemes handed to the system browser. Everything else (file:, javascript:, custom handlers) is denied:
 * shell.openExternal on an arbitrary scheme can launch local programs. */
export const EXTERNAL_SCHEMES: ReadonlySet<string> = new Set(['https:', 'http:']);

/** Longer URLs are not links a person clicked; some OS URL handlers misbehave on them. */
export const MAX_EXTERNAL_URL_LENGTH = 4096;

export type NavigationDecision =
  | { action: 'allow' }
  | { action: 'external'; url: string }
  | { action: 'deny' };

function parse(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

/** True when `raw` is a URL on exactly the app's origin (scheme, host and port). */
export function isAppUrl(raw: string | null | undefined, appOrigin: string): boolean {
  if (typeof raw !== 'string') return false;
  const url = parse(raw);
  // 'null' is the origin of opaque URLs (data:, about:blank, blob: of opaque documents): never ours.
  return url !== undefined && url.origin !== 'null' && url.origin === appOrigin;
}

/** A URL that may go to the system browser: allowlisted scheme, a host, no embedded credentials. */
export function externalUrl(raw: string): string | undefined {
  if (raw.length > MAX_EXTERNAL_URL_LENGTH) return undefined;
  const url = parse(raw);
  if (!url || !EXTERNAL_SCHEMES.has(url.protocol) || url.hostname === '') return undefined;
  // user:pass@host is a classic way to disguise where a link really goes.
  if (url.username !== '' || url.password !== '') return undefined;
  return url.href;
}

/** The decision for a top-level navigation or window.open request made by a page. */
export function decideNavigation(raw: string, appOrigin: string): NavigationDecision {
  if (isAppUrl(raw, appOrigin)) return { action: 'allow' };
  const external = externalUrl(raw);
  return external ? { action: 'external', url: external } : { action: 'deny' };
}
