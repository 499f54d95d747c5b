// One turn's share of inlined characters (agent.md, "Attachments as model input"): files, Office Markdown,
// archive members, transcripts, then the history draw from it in that order; what does not fit is cut with a
// visible marker, never silently.

/** One turn's share of characters; `take` cuts what does not fit and says so. */
export class Budget {
  constructor(public left: number) {}

  take(text: string, name: string): string {
    if (text.length <= this.left) {
      this.left -= text.length;
      return text;
    }
    const kept = text.slice(0, Math.max(0, this.left));
    this.left = 0;
    return `${kept}${kept ? '\n' : ''}${truncationMarker(text.length - kept.length, name)}`;
  }
}

export function truncationMarker(more: number, name: string): string {
  return `[… truncated: ${more} more characters of ${name}]`;
}
