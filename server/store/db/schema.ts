// The database's schema, as numbered migrations. `schema_version` holds the number applied; a start applies
// those after it, each in its own transaction with the new number, so a start killed halfway applies it again.
import type { Db, Queries } from './connection.js';

/**
 * sessions: one row per conversation; `header` is its JSON without messages and attachments (title, times,
 * a pending turn, internal fields), `updated_at` and the counts beside it so the list is read without it.
 * messages / attachments: one row per stored row of the session, its JSON whole (versions and internal fields
 * stay inside), at its position. search_docs: the text search finds (a title, a message's text, an
 * attachment's name), one row each, and `search` the FTS5 index over it, kept in step by triggers inside the
 * very transaction that changes the text. Every text is indexed redacted (search-query.ts indexText).
 */
/** The triggers that keep the FTS5 index `search` in step with search_docs (made again when it is rebuilt). */
const SEARCH_TRIGGERS = `
  CREATE TRIGGER search_docs_added AFTER INSERT ON search_docs BEGIN
    INSERT INTO search (rowid, text) VALUES (new.id, new.text);
  END;
  CREATE TRIGGER search_docs_removed AFTER DELETE ON search_docs BEGIN
    INSERT INTO search (search, rowid, text) VALUES ('delete', old.id, old.text);
  END;
  CREATE TRIGGER search_docs_changed AFTER UPDATE ON search_docs BEGIN
    INSERT INTO search (search, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO search (rowid, text) VALUES (new.id, new.text);
  END;
`;

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    updated_at TEXT NOT NULL,
    message_count INTEGER NOT NULL,
    attachment_count INTEGER NOT NULL,
    header TEXT NOT NULL
  );
  CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    row TEXT NOT NULL,
    PRIMARY KEY (session_id, position)
  ) WITHOUT ROWID;
  CREATE TABLE attachments (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (session_id, position)
  ) WITHOUT ROWID;
  CREATE TABLE search_docs (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('title', 'message', 'attachment')),
    position INTEGER NOT NULL,
    text TEXT NOT NULL
  );
  CREATE UNIQUE INDEX search_docs_place ON search_docs (session_id, kind, position);
  CREATE VIRTUAL TABLE search USING fts5 (text, content = 'search_docs', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
  ${SEARCH_TRIGGERS}
  `,
  // 2: the text the agent got from an attachment (an Office sidecar, a text file, a transcript) is indexed as
  // kind 'attachment_text', at its attachment's position. SQLite cannot change a CHECK in place, so search_docs
  // is rebuilt: its rows are copied with their ids, so the FTS5 index, keyed by them, stays as it is (its
  // triggers went with the old table and are made again). attachment_text_pending lists every attachment stored
  // before this migration, for the background pass that indexes their text (search/backfill.ts). The FTS5
  // index is made again with prefix indexes of 1-3 characters: the last word is matched as a prefix as the person
  // types, and without them a short prefix ("t", "he") merged the lists of every word it starts, 0.1-0.2 s over
  // 40,000 messages; with them 1-4 ms, for an index about a quarter larger (docs/benchmarks.md).
  `
  CREATE TABLE search_docs_new (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('title', 'message', 'attachment', 'attachment_text')),
    position INTEGER NOT NULL,
    text TEXT NOT NULL
  );
  INSERT INTO search_docs_new (id, session_id, kind, position, text) SELECT id, session_id, kind, position, text FROM search_docs;
  DROP TABLE search_docs;
  ALTER TABLE search_docs_new RENAME TO search_docs;
  CREATE UNIQUE INDEX search_docs_place ON search_docs (session_id, kind, position);
  ${SEARCH_TRIGGERS}
  DROP TABLE search;
  CREATE VIRTUAL TABLE search USING fts5 (text, content = 'search_docs', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3');
  INSERT INTO search (search) VALUES ('rebuild');
  CREATE TABLE attachment_text_pending (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (session_id, position)
  ) WITHOUT ROWID;
  INSERT INTO attachment_text_pending (session_id, position) SELECT session_id, position FROM attachments;
  `,
  // 3: MCP read receipts (store/receipts.ts): which MCP client read what of a conversation and when, repeated
  // reads coalesced into `count`, at most MAX_RECEIPTS_PER_SESSION per conversation. Removed with the conversation
  // (cascade); not in search_docs, so never searched.
  `
  CREATE TABLE mcp_receipts (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    client TEXT NOT NULL,
    client_version TEXT,
    kind TEXT NOT NULL CHECK (kind IN ('conversation', 'attachment', 'workspace')),
    name TEXT NOT NULL,
    first_at INTEGER NOT NULL,
    last_at INTEGER NOT NULL,
    count INTEGER NOT NULL
  );
  CREATE INDEX mcp_receipts_recent ON mcp_receipts (session_id, last_at);
  `,
  // 4 (issue 33): each session's revision, raised by every write of it (session-rows.ts writeSession). A write
  // names the revision it read and is refused when the stored one moved on, so a writer holding a stale copy
  // (a second process on the state folder) can never replace rows another one stored.
  `
  ALTER TABLE sessions ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
  `,
  // 5 (issue 33 #11): a streaming reply's text as it was shown, in batches
  // (store/streamed-text.ts), so a crash keeps it: the next start stores it as the interrupted turn's partial reply.
  // One small INSERT per batch, never a rewrite of the conversation's rows; removed once the turn's rows are stored.
  `
  CREATE TABLE streamed_text (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    stream_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('content', 'reasoning')),
    text TEXT NOT NULL
  );
  CREATE INDEX streamed_text_stream ON streamed_text (session_id, stream_id, id);
  `,
  // 6 (issue 33, the Inbox): the content hashes of the files the Inbox took (store/inbox-taken.ts), written in
  // the very transaction that records the file and its arrival row, so a crash never takes a file twice. They
  // were kept in `<state>/inbox.json`, written up to 500 ms later; the watcher moves that list in once. `id`
  // orders them, so the oldest are forgotten first beyond MAX_REMEMBERED_HASHES. Not tied to a session: a file
  // taken into an Inbox later deleted is still not taken again.
  `
  CREATE TABLE inbox_taken (
    id INTEGER PRIMARY KEY,
    profile TEXT NOT NULL,
    hash TEXT NOT NULL,
    UNIQUE (profile, hash)
  );
  `,
  // 7 (issue 35, preview-search; the lead renumbers): the index takes more of what the agent is sent (an
  // archive's members, 4 Mi characters of a text rather than 100,000: MAX_INDEXED_ATTACHMENT_CHARS), so every
  // stored attachment is marked again for the background pass (search/backfill.ts) to index it anew. A text the
  // pass cannot make (a transcript, a PDF's pages) is left as a turn indexed it.
  `
  INSERT OR IGNORE INTO attachment_text_pending (session_id, position) SELECT session_id, position FROM attachments;
  `,
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Bring the database to SCHEMA_VERSION (`target`: an earlier one, for tests that make an older database);
 * refuse one written by a newer Satchel rather than misread it.
 */
export async function migrateSchema(db: Db, target = SCHEMA_VERSION): Promise<void> {
  await db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
  for (;;) {
    const applied = await db.transaction(async (q) => {
      const version = await currentVersion(q);
      if (version > SCHEMA_VERSION) throw new Error(`the session database is of a newer Satchel (schema ${version}, this one knows ${SCHEMA_VERSION})`);
      if (version >= target) return false;
      await q.exec(MIGRATIONS[version]!);
      await q.run('DELETE FROM schema_version');
      await q.run('INSERT INTO schema_version (version) VALUES (?)', [version + 1]);
      return true;
    });
    if (!applied) return;
  }
}

async function currentVersion(q: Queries): Promise<number> {
  const row = await q.get<{ version: number }>('SELECT version FROM schema_version');
  return row?.version ?? 0;
}
