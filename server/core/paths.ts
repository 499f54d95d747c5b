// Path containment: whether a path stays under its root. Pure string checks on absolute, normalized paths;
// what is on disk (symlinks, a directory swapped by another process) is the business of anchored.ts.
import path from 'node:path';

/** True when `candidate` is `root` or lies inside it (both absolute and normalized). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  // Only a first component that IS `..` leaves the root: `..config.txt` or `..data/` are ordinary names.
  return rel === '' || (!path.isAbsolute(rel) && rel !== '..' && !rel.startsWith('..' + path.sep));
}

/** A hidden entry: its name starts with a dot. Listed and previewed only when the person asks for them. */
export function isHiddenName(name: string): boolean {
  return name.startsWith('.');
}

// Folders and files that hold credentials. Never listed, previewed or accepted as (or inside) a workspace,
// whether or not hidden entries are shown; compared case-insensitively because macOS and Windows disks are.
export const CREDENTIAL_NAMES: ReadonlySet<string> = new Set([
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.password-store',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  '.pgpass',
]);
/** Credential folders that live one level down (`~/.config/gcloud`, the GitHub CLI's `~/.config/gh`). */
export const CREDENTIAL_SUBPATHS: readonly (readonly [string, string])[] = [
  ['.config', 'gcloud'],
  ['.config', 'gh'],
];

/** True when any component of `segments` (a path split into its parts) names a credential store. */
export function isCredentialPath(segments: readonly string[]): boolean {
  const lower = segments.map((s) => s.toLowerCase());
  return lower.some((s, i) => CREDENTIAL_NAMES.has(s) || CREDENTIAL_SUBPATHS.some(([a, b]) => s === a && lower[i + 1] === b));
}
