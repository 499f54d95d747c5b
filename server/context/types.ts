// What the agent is given of a conversation (issue 36): its documents, as server/context/ names them.
import type { ChatAttachment } from '../core/wire.js';

export interface ConversationDoc {
  key: string;                 // 'attachment:<name>' | 'workspace:<rel>': stable within the conversation
  name: string;                // as the chip shows it (never a path)
  origin: 'attachment' | 'arrival' | 'workspace';
  attachment: ChatAttachment;  // its `path` is absolute, for reading only: never sent
  uri: string;                 // satchel://session/<id>/attachment/<name> | …/workspace/<rel>
  row?: number;                // index of the stored row that carried it (attachments, arrivals)
}
