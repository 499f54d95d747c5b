// GET /api/sessions's body, kept between calls. Projecting and serializing 10,000 summaries took 73 ms a call
// (docs/benchmarks.md); nearly all of it is the same each time. A stored listing is never changed in place (the
// store replaces it on every change), so a summary's JSON is kept per listing object, and the whole body per
// profile until the list itself changes. Both are made again when the known secrets change (a title redacted
// under the old ones may hide too little under the new).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { knownSecretsGeneration } from '../redact/index.js';
import type { SessionListing } from '../store/sessions.js';
import { publicJsonLine } from './brand.js';
import { publicSessionSummary } from './sessions.js';

/** JSON text built only from projections: what `sendSerializedJson` (http/respond.ts) accepts. */
export type SerializedJson = string & { readonly __serializedJson: unique symbol };

/** Bodies kept, one per profile: a person has a few profiles; a request naming many others evicts the oldest. */
export const MAX_CACHED_LIST_BODIES = 8;

/**
 * How long one slice of the list's warm-up (`warm`) runs before it lets requests and timers in: a request that
 * arrives meanwhile waits at most about this long for the event loop.
 */
export const WARM_SLICE_MS = 4;

/** A session list body as one store version and one profile see it: the same object while it holds. */
export interface ListBody {
  listVersion: number;
  secrets: number;
  json: SerializedJson;
}

export class SessionListCache {
  /** Each listing's summary, compact JSON, redacted under `secrets` (WeakMap: a replaced listing's goes with it). */
  private summaries = new WeakMap<SessionListing, string>();
  private secrets = knownSecretsGeneration();
  /** The last body per profile. Profiles are few (a name each, validated), so this stays small. */
  private readonly bodies = new Map<string, ListBody>();

  /**
   * `{"sessions":[…]}` compact, byte for byte what `JSON.stringify({ sessions: listings.map(publicSessionSummary) })`
   * gives (the answer before this cache), for `listings` as of `listVersion` (SessionStore.listVersion).
   */
  body(profile: string, listVersion: number, listings: () => readonly SessionListing[]): ListBody {
    const secrets = this.currentSecrets();
    const kept = this.bodies.get(profile);
    if (kept && kept.listVersion === listVersion && kept.secrets === secrets) return kept;
    const parts = listings().map((listing) => this.summary(listing));
    const json = `{"sessions":[${parts.join(',')}]}` as SerializedJson;
    const body = { listVersion, secrets, json };
    this.bodies.delete(profile);
    this.bodies.set(profile, body);
    if (this.bodies.size > MAX_CACHED_LIST_BODIES) this.bodies.delete(this.bodies.keys().next().value as string);
    return body;
  }

  /**
   * Every listing's summary made ahead of the first list (issue 37, finding 9: after a start, redacting 2,000
   * titles was ~90 ms of CPU in the first GET /api/sessions, the window's first request). Run in the background
   * after start, in slices of WARM_SLICE_MS, so a request arriving meanwhile is not held behind it; the first list
   * then only joins what is made (a listing not yet reached is made by body() as before). Stops at `signal`.
   * Returns how many summaries it made.
   */
  async warm(listings: () => readonly SessionListing[], signal: AbortSignal): Promise<number> {
    const all = listings();
    let made = 0;
    for (let i = 0; i < all.length && !signal.aborted; ) {
      // A secret learnt between slices drops what was made under the old ones (as body() does).
      this.currentSecrets();
      const until = performance.now() + WARM_SLICE_MS;
      for (; i < all.length && performance.now() < until; i++) {
        if (!this.summaries.has(all[i]!)) {
          this.summary(all[i]!);
          made++;
        }
      }
      if (i < all.length) await nextTurn();
    }
    return made;
  }

  /** The known secrets' generation, the kept JSON dropped when it moved on since. */
  private currentSecrets(): number {
    const secrets = knownSecretsGeneration();
    if (secrets !== this.secrets) {
      this.summaries = new WeakMap();
      this.bodies.clear();
      this.secrets = secrets;
    }
    return secrets;
  }

  private summary(listing: SessionListing): string {
    let json = this.summaries.get(listing);
    if (json === undefined) {
      json = publicJsonLine(publicSessionSummary(listing));
      this.summaries.set(listing, json);
    }
    return json;
  }
}
