// Path containment: whether a path stays under its root. Pure string checks on absolute, normalized paths;
// what is on disk (symlinks, a directory swapped by another process) is the business of anchored.ts.
import path from 'node:path';
import { ValueError } from './errors.js';

/** True when `candidate` is `root` or lies inside it (both absolute and normalized). */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  // Only a first component that IS `..` leaves the root: `..config.txt` or `..data/` are ordinary names.
  return rel === '' || (!path.isAbsolute(rel) && rel !== '..' && !rel.startsWith('..' + path.sep));
}

/** Resolve a requested relative path under `root`; a result outside the root is a ValueError. */
export function resolveUnder(root: string, requested: string): string {
  const base = path.resolve(root);
  const target = path.resolve(base, requested);
  if (!isInside(base, target)) throw new ValueError('Path escapes its root');
  return target;
}
