// GET and PUT /api/session/draft as they leave the server: the unsent text is free text; each chip is a stored
// upload (with the extraction folder and file names the server wrote), which the composer sends back as it is.
import type * as wire from '../core/wire.js';
import { optional, redactText, serverValue, type RedactedText, type ServerValue } from './brand.js';
import { publicAttachment, type PublicAttachment } from './sessions.js';

export interface PublicDraftExtraction {
  dest: ServerValue;
  extracted: number;
  files: ServerValue[];
}

export interface PublicDraftAttachment extends PublicAttachment {
  extract?: PublicDraftExtraction;
}

export interface PublicSessionDraft {
  text: RedactedText;
  attachments: PublicDraftAttachment[];
  updated_at?: ServerValue;
}

function publicExtraction(x: wire.DraftExtraction): PublicDraftExtraction {
  return { dest: serverValue(x.dest), extracted: x.extracted, files: x.files.map(serverValue) };
}

function publicDraftAttachment(a: wire.DraftAttachment): PublicDraftAttachment {
  const { extract, ...stored } = a;
  return { ...publicAttachment(stored), extract: optional(extract, publicExtraction) };
}

export function publicSessionDraft(d: wire.SessionDraft): PublicSessionDraft {
  return { text: redactText(d.text), attachments: d.attachments.map(publicDraftAttachment), updated_at: optional(d.updated_at, serverValue) };
}
