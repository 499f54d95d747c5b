// Office sidecars (spec-notes 4.7 step 7): the Markdown preview `<name>.md` written beside a .docx, .xlsx or
// .pptx, read back instead of converting again.

/** A sidecar is its document's name with this appended. */
export const SIDECAR_SUFFIX = '.md';
