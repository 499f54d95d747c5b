// The database's schema, as numbered migrations. `schema_version` holds the number applied; a start applies
// those after it, each in its own transaction with the new number, so a start killed halfway applies it again.
import { log } from '../../core/log.js';
import { DB_PAGE_SIZE, type Db, type Queries } from './connection.js';

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

/**
 * Schema 8 (issue 37, finding 4; the lead renumbers): a message's index row holds no copy of its text where the
 * index holds the message's own words (search_docs.text NULL; the text is read from the message's row), only
 * where redaction changed them (or they would not read back the same from the row's JSON: a NUL, a lone
 * surrogate). `search_texts` is every index row with its text, FTS5's content since schema 8 (its 'rebuild' and
 * integrity check read it); readers of a row's text read it there. The triggers feed the index the same texts as
 * before, so its entries, its ranks and every snippet are unchanged.
 */
const MESSAGE_TEXT = (d: string) => `(SELECT json_extract(m.row, '$.content') FROM messages m WHERE m.session_id = ${d}.session_id AND m.position = ${d}.position)`;
const DOC_TEXT = (d: string) => `ifnull(${d}.text, ${MESSAGE_TEXT(d)})`;
/**
 * The index's triggers from schema 8. A row without its own text is removed from the index with its message's
 * text, so the message must still be there: `messages_removed` takes a message's index row out first (a
 * conversation's delete cascades to both tables in an order SQLite chooses), and a removal that would find no
 * text is refused rather than leave entries in the index that nothing removes. A message row is never changed in
 * place (session-rows.ts replaces it); one whose index row reads its text is refused a change of that text.
 */
const SEARCH_TRIGGERS_8 = `
  CREATE TRIGGER search_docs_added AFTER INSERT ON search_docs BEGIN
    INSERT INTO search (rowid, text) VALUES (new.id, ${DOC_TEXT('new')});
  END;
  CREATE TRIGGER search_docs_removed AFTER DELETE ON search_docs BEGIN
    SELECT RAISE(ABORT, 'an index row is removed after its message') WHERE old.text IS NULL AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.session_id = old.session_id AND m.position = old.position);
    INSERT INTO search (search, rowid, text) VALUES ('delete', old.id, ${DOC_TEXT('old')});
  END;
  CREATE TRIGGER search_docs_changed AFTER UPDATE ON search_docs BEGIN
    INSERT INTO search (search, rowid, text) VALUES ('delete', old.id, ${DOC_TEXT('old')});
    INSERT INTO search (rowid, text) VALUES (new.id, ${DOC_TEXT('new')});
  END;
  CREATE TRIGGER messages_removed BEFORE DELETE ON messages BEGIN
    DELETE FROM search_docs WHERE session_id = old.session_id AND kind = 'message' AND position = old.position;
  END;
  CREATE TRIGGER messages_changed BEFORE UPDATE ON messages
  WHEN (new.session_id, new.position, json_extract(new.row, '$.content')) IS NOT (old.session_id, old.position, json_extract(old.row, '$.content'))
    AND EXISTS (SELECT 1 FROM search_docs d WHERE d.session_id = old.session_id AND d.kind = 'message' AND d.position = old.position AND d.text IS NULL) BEGIN
    SELECT RAISE(ABORT, 'a message whose index row reads its text is replaced, never changed in place');
  END;
`;

/** The FTS5 table as schemas 2-7 made it (content: search_docs) and as schema 8 has it (content: search_texts). */
const SEARCH_TABLE_7 = `CREATE VIRTUAL TABLE search USING fts5 (text, content = 'search_docs', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3')`;
const SEARCH_TABLE_8 = `CREATE VIRTUAL TABLE search USING fts5 (text, content = 'search_texts', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3')`;

/**
 * Schema 8's steps, each told to `progress` as it ends (over 200,000 messages the whole takes ~10-20 s).
 * `messages` becomes a rowid table: WITHOUT ROWID it kept each row inside the key's b-tree, where rows of a few KiB
 * left half of their pages unused (179 of 351 MiB at 200,000 messages). search_docs is copied with its ids (the
 * FTS5 index is keyed by them and stays as it is), a message's text dropped where the index holds it as is.
 * The FTS5 table is pointed at search_texts by rewriting its CREATE statement (SQLite's documented way for a
 * change that leaves the stored data as it is: its shadow tables hold no content); rebuilding the index instead
 * would take minutes here.
 */
async function schema8(q: Queries, progress: (step: string) => void): Promise<void> {
  await q.exec(`
    DROP TRIGGER search_docs_added;
    DROP TRIGGER search_docs_removed;
    DROP TRIGGER search_docs_changed;
    CREATE TABLE messages_new (
      id INTEGER PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      row TEXT NOT NULL
    );
    INSERT INTO messages_new (session_id, position, row) SELECT session_id, position, row FROM messages ORDER BY session_id, position;
    DROP TABLE messages;
    ALTER TABLE messages_new RENAME TO messages;
    CREATE UNIQUE INDEX messages_place ON messages (session_id, position);
  `);
  progress('messages copied');
  // A text stays where it is not byte for byte what the row's JSON gives back (redacted, or holding a NUL), or
  // where the row is not JSON at all.
  await q.exec(`
    CREATE TABLE search_docs_new (
      id INTEGER PRIMARY KEY,
      session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      kind TEXT NOT NULL CHECK (kind IN ('title', 'message', 'attachment', 'attachment_text')),
      position INTEGER NOT NULL,
      text TEXT CHECK (text IS NOT NULL OR kind = 'message')
    );
    INSERT INTO search_docs_new (id, session_id, kind, position, text)
      SELECT d.id, d.session_id, d.kind, d.position,
        CASE WHEN d.kind = 'message' AND instr(CAST(d.text AS BLOB), x'00') = 0
          AND d.text = (SELECT CASE WHEN json_valid(m.row) THEN json_extract(m.row, '$.content') END FROM messages m WHERE m.session_id = d.session_id AND m.position = d.position)
        THEN NULL ELSE d.text END
      FROM search_docs d ORDER BY d.id;
    DROP TABLE search_docs;
    ALTER TABLE search_docs_new RENAME TO search_docs;
    CREATE UNIQUE INDEX search_docs_place ON search_docs (session_id, kind, position);
    CREATE VIEW search_texts (id, session_id, kind, position, text) AS SELECT d.id, d.session_id, d.kind, d.position, ${DOC_TEXT('d')} FROM search_docs d;
    ${SEARCH_TRIGGERS_8}
  `);
  progress('index rows copied');
  const cookie = await q.get<{ schema_version: number }>('PRAGMA schema_version');
  await q.exec('PRAGMA writable_schema = ON');
  try {
    const { changes } = await q.run(`UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = 'search' AND sql = ?`, [SEARCH_TABLE_8, SEARCH_TABLE_7]);
    if (changes !== 1) throw new Error('the search index is not the one schema 7 made');
    // Every connection reads the schema again (this one too, before its next statement).
    await q.exec(`PRAGMA schema_version = ${cookie!.schema_version + 1}`);
  } finally {
    await q.exec('PRAGMA writable_schema = OFF');
  }
}

type Migration = string | ((q: Queries, progress: (step: string) => void) => Promise<void>);

const MIGRATIONS: readonly Migration[] = [
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
  // 8 (issue 37, finding 4; the lead renumbers): messages a rowid table, a message's text stored once (schema8).
  schema8,
  // 9 (issue 39, per-agent MCP keys; the lead renumbers): the agents' keys (only a SHA-256 of each token is kept;
  // the row 'unnamed' stands for the shared MCP token, whose value stays in its SecretStore), what each key is
  // granted, and the ledger of every MCP tool call and resource read (store/mcp-keys.ts, store/mcp-ledger.ts).
  // Not tied to a session by a foreign key: the record of what an agent read outlives the conversation.
  `
  CREATE TABLE mcp_keys (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    hash TEXT UNIQUE,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    paused INTEGER NOT NULL DEFAULT 0,
    revoked_at INTEGER
  );
  CREATE TABLE mcp_grants (
    id INTEGER PRIMARY KEY,
    key_id TEXT NOT NULL REFERENCES mcp_keys(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('all', 'conversation', 'inbox', 'workspace')),
    target TEXT NOT NULL DEFAULT '',
    expires_at INTEGER
  );
  CREATE INDEX mcp_grants_key ON mcp_grants (key_id);
  CREATE TABLE mcp_ledger (
    id INTEGER PRIMARY KEY,
    key_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    op TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'not_found', 'refused', 'error')),
    session_id TEXT,
    kind TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    range TEXT NOT NULL DEFAULT '',
    query TEXT NOT NULL DEFAULT '',
    bytes INTEGER NOT NULL DEFAULT 0,
    sha256 TEXT
  );
  CREATE INDEX mcp_ledger_key ON mcp_ledger (key_id, id);
  CREATE INDEX mcp_ledger_session ON mcp_ledger (session_id, id);
  CREATE INDEX mcp_ledger_at ON mcp_ledger (at);
  `,
  // 10 (issue 38, folders; the lead renumbers): the folders a profile groups its conversations in (store/folders.ts).
  // A conversation names its folder in its header (`folder`, its id), so moving one is an ordinary write of it
  // with its revision; `folded` is the name as compared (NFKC, lower case), unique per profile.
  `
  CREATE TABLE folders (
    id TEXT PRIMARY KEY,
    profile TEXT NOT NULL,
    name TEXT NOT NULL,
    folded TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (profile, folded)
  );
  `,
  // 11 (issue 39, folder grants; the lead renumbers): a key may be granted a folder of conversations (kind
  // 'folder', target the folder's id). SQLite cannot change a CHECK in place, so mcp_grants is rebuilt with its
  // rows and ids; nothing references it, so the rename leaves no dangling reference.
  `
  CREATE TABLE mcp_grants_new (
    id INTEGER PRIMARY KEY,
    key_id TEXT NOT NULL REFERENCES mcp_keys(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('all', 'conversation', 'inbox', 'workspace', 'folder')),
    target TEXT NOT NULL DEFAULT '',
    expires_at INTEGER
  );
  INSERT INTO mcp_grants_new (id, key_id, kind, target, expires_at) SELECT id, key_id, kind, target, expires_at FROM mcp_grants;
  DROP TABLE mcp_grants;
  ALTER TABLE mcp_grants_new RENAME TO mcp_grants;
  CREATE INDEX mcp_grants_key ON mcp_grants (key_id);
  `,
  // 12 (issue 39, a search among an agent key's granted conversations): each session's index rows by id, so the
  // walk of the index can be bounded by the granted sessions' first and last row (search.ts GRANTED_SPAN) with two
  // lookups per session. search_docs_place orders a session's rows by kind and position, not id: reading the
  // bounds from it passed over all of their rows (17,000-38,000 of a 200-conversation grant, 4-5 ms).
  `
  CREATE INDEX search_docs_session ON search_docs (session_id, id);
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
  let rewrote = false;
  let made = false;
  for (;;) {
    const applied = await db.transaction(async (q) => {
      const version = await currentVersion(q);
      if (version > SCHEMA_VERSION) throw new Error(`the session database is of a newer Satchel (schema ${version}, this one knows ${SCHEMA_VERSION})`);
      if (version >= target) return false;
      if (version === 0) made = true;
      const migration = MIGRATIONS[version]!;
      if (typeof migration === 'string') await q.exec(migration);
      else {
        // A long one says so as it goes: a start over a long history is then seen to move, not hang.
        // A database made by this very start (schema 1 applied with it) holds nothing to rewrite or to say.
        const started = Date.now();
        const say = made ? () => {} : (line: string) => log.info(line);
        say(`upgrading the conversation database to schema ${version + 1} (once; about 10-20 s per 100,000 messages)`);
        await migration(q, (step) => say(`schema ${version + 1}: ${step} (${((Date.now() - started) / 1000).toFixed(1)} s)`));
        rewrote ||= !made;
      }
      await q.run('DELETE FROM schema_version');
      await q.run('INSERT INTO schema_version (version) VALUES (?)', [version + 1]);
      return true;
    });
    if (!applied) break;
  }
  if (target === SCHEMA_VERSION) await compactDatabase(db, rewrote);
}

/**
 * Rewrite a database of a smaller page size than DB_PAGE_SIZE (every one made before schema 8) at that size, and
 * without the pages schema 8 left free (`rewrote`: a rewriting migration ran, on a file already at that size): a VACUUM, outside any transaction, in rollback mode (a WAL fixes the page
 * size). Crash-safe as any SQLite write: a start killed in it finds the file as it was, and does it again. Over
 * 200,000 messages it takes ~10-15 s, said in the log. Not needed for correctness: when the file cannot be put in
 * rollback mode (another connection has it open, as only a test does), it is left for the next start.
 */
export async function compactDatabase(db: Db, rewrote = false): Promise<void> {
  const size = await db.get<{ page_size: number }>('PRAGMA page_size');
  if (!size || (size.page_size >= DB_PAGE_SIZE && !rewrote)) return;
  const mode = await db.get<{ journal_mode: string }>('PRAGMA journal_mode = DELETE');
  try {
    if (mode?.journal_mode !== 'delete') return;
    const started = Date.now();
    log.info(`compacting the conversation database (once, to ${DB_PAGE_SIZE / 1024} KiB pages; about 10 s per 100,000 messages)`);
    await db.exec(`PRAGMA page_size = ${DB_PAGE_SIZE}; VACUUM`);
    log.info(`compacted the conversation database in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await db.exec('PRAGMA journal_mode = WAL');
  }
}

async function currentVersion(q: Queries): Promise<number> {
  const row = await q.get<{ version: number }>('SELECT version FROM schema_version');
  return row?.version ?? 0;
}
