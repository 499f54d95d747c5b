// Fixtures of the purge's tests (store/purge.test.ts, store/db/purge.kill.test.ts): a long conversation, and
// what of a conversation is left in the database.
import { Db } from '../store/db/connection.js';
import type { Message, Session } from '../store/sessions.js';

/** A conversation of `count` messages with searchable words, and one attachment. */
export function longConversation(id: string, count: number, word = 'purgeable'): Session {
  const at = '2025-01-01T00:00:00.000Z';
  const messages: Message[] = Array.from({ length: count }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    content: `message ${i} ${word} ${'lorem ipsum dolor sit amet '.repeat(8)}`,
    timestamp: 1_700_000_000 + i,
  }));
  return { session_id: id, title: `Long ${word}`, workspace: '/w', profile: 'default', created_at: at, updated_at: at, messages, attachments: [{ filename: `${word}.txt`, path: `/a/${word}.txt`, size: 1, mime: 'text/plain', is_image: false }] };
}

/** Rows of `id` left in each table. */
export interface RowsLeft {
  sessions: number;
  messages: number;
  attachments: number;
  search_docs: number;
  attachment_text_pending: number;
}

export async function leftOf(file: string, id: string): Promise<RowsLeft> {
  const db = await Db.openReadOnly(file);
  try {
    const counts: Record<string, number> = {};
    for (const [table, column] of [['sessions', 'id'], ['messages', 'session_id'], ['attachments', 'session_id'], ['search_docs', 'session_id'], ['attachment_text_pending', 'session_id']]) {
      counts[table!] = (await db.get<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`, [id]))!.n;
    }
    return counts as unknown as RowsLeft;
  } finally {
    await db.close();
  }
}

