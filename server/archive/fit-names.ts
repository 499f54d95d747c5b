// Member names longer than a file system allows, shortened the way uploaded names are (core/names.ts fitBytes:
// cut to MAX_NAME_BYTES of UTF-8, the suffix kept) and made unique among their siblings (`-1` … `-999`, as
// duplicate uploads are), instead of failing the whole extraction with ENAMETOOLONG. A directory's shortened
// name is remembered, so every member under it lands in the same folder. A whole path longer than the
// platform allows cannot be shortened that way: fit() answers null and the member is skipped by name.
import { candidateNames, fitBytes, MAX_NAME_BYTES } from '../core/names.js';

/** One path segment's limit on ext4, APFS, btrfs, XFS (bytes of UTF-8; NTFS: 255 UTF-16 units, never fewer). */
export const NAME_MAX_BYTES = 255;
/**
 * A whole path's limit, its terminating NUL included (Linux PATH_MAX 4096, macOS 1024): beyond it no program
 * that opens files by path (a preview, an editor, the agent's tools) can open the member.
 */
export const PATH_MAX_BYTES = process.platform === 'darwin' ? 1024 : 4096;

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

export class MemberNameFitter {
  /** Original segments ('/'-joined, up to a segment) → the name that segment got. */
  private readonly fitted = new Map<string, string>();
  /** Fitted parent ('/'-joined) → its children's names, lower-cased: a case-insensitive disk sees them so. */
  private readonly taken = new Map<string, Set<string>>();

  /** `destPath` is the extraction folder's absolute path, which every member's path starts with. */
  constructor(private readonly destPath: string) {}

  /** The member's segments with over-long ones shortened; null when no shortening makes the path fit. */
  fit(segments: readonly string[]): string[] | null {
    const out: string[] = [];
    for (const [i, segment] of segments.entries()) {
      const key = segments.slice(0, i + 1).join('/');
      const known = this.fitted.get(key);
      if (known !== undefined) {
        out.push(known);
        continue;
      }
      const siblings = this.siblings(out.join('/'));
      const name = bytes(segment) <= NAME_MAX_BYTES ? segment : this.shorten(segment, siblings);
      if (name === null) return null;
      siblings.add(name.toLowerCase());
      this.fitted.set(key, name);
      out.push(name);
    }
    // The path as the kernel would be handed it, plus its NUL.
    if (bytes(`${this.destPath}/${out.join('/')}`) + 1 > PATH_MAX_BYTES) return null;
    return out;
  }

  private siblings(parent: string): Set<string> {
    let set = this.taken.get(parent);
    if (!set) this.taken.set(parent, (set = new Set()));
    return set;
  }

  private shorten(segment: string, siblings: ReadonlySet<string>): string | null {
    for (const candidate of candidateNames(fitBytes(segment, MAX_NAME_BYTES))) {
      if (!siblings.has(candidate.toLowerCase())) return candidate;
    }
    return null;
  }
}
