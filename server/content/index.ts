// The one place that decides what a file is and what it says (issue 35): classify (kind.ts, the only module that
// looks at a file's bytes to tell its kind, with the sniffer file-kind.ts and the encodings text-encoding.ts),
// and one reader per kind (read/), each giving neutral parts (text with where it came from, images) and a
// summary under a budget. It knows nothing of sessions, HTTP or agent dialects: the turn maps the parts to its
// dialect (agent/content-parts.ts), MCP to its content items (mcp/read-file.ts), the chip shows the summary
// (attachments/agent-view.ts). Everything outside content/ imports from here.

// What a file is.
export { classify, classifyFile, CLASSIFY_BYTES, REFUSED_ARCHIVE, unknownKind, type Kind, type KindName, type RefusedArchive } from './kind.js';
export { decodeFileText, decodeText, imageMime, isPdf, isSvg, looksLikeText, SNIFF_BYTES, textOf, type DecodedText } from './file-kind.js';
export { encodingLabel, type TextEncodingName } from './text-encoding.js';

// What it says: agent/read's public names, kept.
export { readAttachment } from './read/index.js';
export { Budget, truncationMarker } from './read/budget.js';
export { MAX_IMAGE_BYTES, ocrHeader, recognize } from './read/image.js';
export { MAX_ARCHIVE_LISTED, MAX_ARCHIVE_MEMBER_BYTES } from './read/archive.js';
export { archiveFileRead } from './read/archive-file.js';
export { NO_TEXT_ON_PAGE, pageMarker, pdfAgentText, recognizedPageMarker, type PdfAgentText } from './read/pdf.js';
export { withRecognizedPages, type RecognizedRead } from './read/pdf-ocr.js';
export { transcriptOf } from './read/audio.js';
export { officeMarkdownIn, MAX_SIDECAR_READ_BYTES } from './read/office-markdown.js';
export { readAt } from './read/open.js';
export type { AttachmentRead, InputOptions, Part, Provenance } from './read/types.js';
export type { WorkspaceRoot } from './read/open.js';
export type { ReadState, ReadSummary } from './read/summary.js';
