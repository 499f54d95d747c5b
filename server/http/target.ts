// The request target (RFC 9112 section 3.2), parsed without ever throwing: `new URL` on a client's bytes
// throws for `//%zz` or `http://[/`, and a throw before the lifecycle's guard once took the whole server down.

/** Where relative targets are resolved: only the path and query of the result are ever used. */
const BASE = 'http://localhost';
const ABSOLUTE_FORM = /^https?:\/\//i;

export type RequestTarget =
  /** origin-form (`/path?query`): the usual shape. */
  | { kind: 'origin'; url: URL }
  /** absolute-form (`http://host/path`): the authority replaces the Host header (RFC 9112 section 3.2.2). */
  | { kind: 'absolute'; url: URL; authority: string }
  /** Anything else (`*`, authority-form, garbage, an unparseable URL): answered 400. */
  | { kind: 'invalid' };

export function parseTarget(raw: string | undefined): RequestTarget {
  const target = raw ?? '';
  try {
    if (target.startsWith('/')) {
      // Concatenated, not resolved: `//evil/x` is a path here, never a network-path reference to another host.
      return { kind: 'origin', url: new URL(BASE + target) };
    }
    if (ABSOLUTE_FORM.test(target)) {
      const url = new URL(target);
      if (url.username || url.password) return { kind: 'invalid' };
      return { kind: 'absolute', url, authority: url.host };
    }
  } catch {
    // An unparseable target is the client's mistake: answered 400 below.
  }
  return { kind: 'invalid' };
}
