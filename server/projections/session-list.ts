// GET /api/sessions's body, kept between calls. Projecting and serializing 10,000 summaries took 73 ms a call
// (docs/benchmarks.md); nearly all of it is the same each time. A stored listing is never changed in place (the
// store replaces it on every change), so a summary's JSON is kept per listing object, and the whole body per
// profile until the list itself changes. Both are made again when the known secrets change (a title redacted
// under the old ones may hide too little under the new).
import { knownSecretsGeneration } from '../redact/index.js';
import type { SessionListing } from '../store/sessions.js';
import { publicJsonLine } from './brand.js';
import { publicSessionSummary } from './sessions.js';

/** JSON text built only from projections: what `sendSerializedJson` (http/respond.ts) accepts. */
export type SerializedJson = string & { readonly __serializedJson: unique symbol };

/** Bodies kept, one per profile: a person has a few profiles; a request naming many others evicts the oldest. */
export const MAX_CACHED_LIST_BODIES = 8;

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
    const secrets = knownSecretsGeneration();
    if (secrets !== this.secrets) {
      this.summaries = new WeakMap();
      this.bodies.clear();
      this.secrets = secrets;
    }
    const kept = this.bodies.get(profile);
    if (kept && kept.listVersion === listVersion && kept.secrets === secrets) return kept;
    const parts = listings().map((listing) => {
      let json = this.summaries.get(listing);
      if (json === undefined) {
        json = publicJsonLine(publicSessionSummary(listing));
        this.summaries.set(listing, json);
      }
      return json;
    });
    const json = `{"sessions":[${parts.join(',')}]}` as SerializedJson;
    const body = { listVersion, secrets, json };
    this.bodies.delete(profile);
    this.bodies.set(profile, body);
    if (this.bodies.size > MAX_CACHED_LIST_BODIES) this.bodies.delete(this.bodies.keys().next().value as string);
    return body;
  }
}
