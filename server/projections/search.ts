// GET /api/search's answer (docs/API.md "Search"). Titles and snippets are free text: redacted here once more
// (they were indexed redacted, store/search.ts checked each hit against the redactor; redacting twice changes
// nothing, and a piece can only be masked more). Ids, times and stored attachment names are the server's own.
import type { SearchHits } from '../store/search.js';
import { redactText, serverValue, type RedactedText, type ServerValue } from './brand.js';

export interface PublicSearchSegment {
  text: RedactedText;
  match: boolean;
}

export interface PublicSearchResult {
  session_id: ServerValue;
  title: RedactedText;
  updated_at: ServerValue;
  archived?: true;
  pinned?: true;
  kind: 'title' | 'message' | 'attachment' | 'attachment_text';
  message_index?: number;
  role?: 'user' | 'assistant';
  attachment?: ServerValue;
  /** The name the person gave the attachment, where it differs from its stored name `attachment`. */
  display_name?: ServerValue;
  snippet: PublicSearchSegment[];
}

export interface PublicSearchResults {
  query: RedactedText;
  results: PublicSearchResult[];
  complete: boolean;
  /** The search ran out of time and was stopped: the sentence saying so (store/search.ts SEARCH_STOPPED). */
  note?: ServerValue;
}

export function publicSearchResults(found: SearchHits): PublicSearchResults {
  return {
    query: redactText(found.query),
    results: found.hits.map((hit): PublicSearchResult => {
      return {
        session_id: serverValue(hit.listing.session_id),
        title: redactText(hit.listing.title),
        updated_at: serverValue(hit.listing.updated_at),
        ...(hit.listing.archived ? { archived: true as const } : {}),
        ...(hit.listing.pinned ? { pinned: true as const } : {}),
        kind: hit.kind,
        ...(hit.kind === 'message' ? { message_index: hit.position } : {}),
        ...(hit.role ? { role: hit.role } : {}),
        ...(hit.attachment !== undefined ? { attachment: serverValue(hit.attachment) } : {}),
        ...(hit.display_name !== undefined ? { display_name: serverValue(hit.display_name) } : {}),
        snippet: hit.snippet.map((s) => ({ text: redactText(s.text), match: s.match })),
      };
    }),
    complete: found.complete,
    ...(found.stopped !== undefined ? { note: serverValue(found.stopped) } : {}),
  };
}
