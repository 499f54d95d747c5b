// A streaming reply's text, kept as it is shown (issue 33, finding 11). The turn's rows are stored when it ends;
// until then the text lives in memory, so a kill -9 lost every token the person had already read. Batches of the
// shown text are appended here (table streamed_text, schema.ts) while the reply streams, each one small INSERT
// apart from the conversation's rows (which are never rewritten for it, so nothing reorders); the next start
// stores them as the interrupted turn's partial reply (agent/turns.ts recoverInterruptedTurns), and a turn that
// ends stores its own rows and removes its batches.
import type { Queries } from './db/connection.js';

export type StreamedKind = 'content' | 'reasoning';

/** What a stream showed of each kind, in the order it was shown. */
export interface StreamedText {
  content: string;
  reasoning: string;
}

/** Append one batch (either part may be empty) of stream `streamId` of session `sessionId`. */
export async function appendStreamedText(q: Queries, sessionId: string, streamId: string, batch: StreamedText): Promise<void> {
  for (const kind of ['content', 'reasoning'] as const) {
    if (batch[kind]) await q.run('INSERT INTO streamed_text (session_id, stream_id, kind, text) VALUES (?, ?, ?, ?)', [sessionId, streamId, kind, batch[kind]]);
  }
}

/** Everything stream `streamId` of session `sessionId` showed and kept. */
export async function readStreamedText(q: Queries, sessionId: string, streamId: string): Promise<StreamedText> {
  const rows = await q.all<{ kind: StreamedKind; text: string }>('SELECT kind, text FROM streamed_text WHERE session_id = ? AND stream_id = ? ORDER BY id', [sessionId, streamId]);
  const out: StreamedText = { content: '', reasoning: '' };
  for (const row of rows) out[row.kind] += row.text;
  return out;
}

/** Remove the batches of one stream, or (no stream) of every stream: at start, once interrupted turns are stored. */
export async function removeStreamedText(q: Queries, stream?: { sessionId: string; streamId: string }): Promise<void> {
  if (stream) await q.run('DELETE FROM streamed_text WHERE session_id = ? AND stream_id = ?', [stream.sessionId, stream.streamId]);
  else await q.run('DELETE FROM streamed_text');
}
