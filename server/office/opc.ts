// Open Packaging Conventions: the part names and relationships that tie an Office zip together. Parts are
// found by following relationships, never by guessing paths, so files saved by LibreOffice or Google Docs
// (which name parts differently) convert as well as Microsoft Office's.
import path from 'node:path';
import type { ZipMembers } from './guarded-zip.js';
import { OfficeError } from './office-error.js';
import { attr, childElements, parseXmlPart, type XmlElement } from './xml.js';

export interface Relationship {
  id: string;
  type: string;
  /** Part name without a leading slash; '' for an external target. */
  target: string;
  external: boolean;
}

/** The part's bytes, or undefined when the package has no such part. */
export function findPart(members: ZipMembers, partName: string): Buffer | undefined {
  return members.get(partName.replace(/^\//, '').toLowerCase());
}

/** The part parsed as XML; a missing part is an OfficeError naming it. */
export function readXmlPart(members: ZipMembers, partName: string): XmlElement {
  const bytes = findPart(members, partName);
  if (!bytes) throw new OfficeError(`Office file is missing a part: ${partName}`);
  return parseXmlPart(bytes, partName);
}

/** The relationships of `partName` ('' for the package itself); none when it has no relationships part. */
export function readRelationships(members: ZipMembers, partName: string): Relationship[] {
  const dir = path.posix.dirname(partName);
  const relsName = partName === '' ? '_rels/.rels' : `${dir === '.' ? '' : `${dir}/`}_rels/${path.posix.basename(partName)}.rels`;
  if (!findPart(members, relsName)) return [];
  const root = readXmlPart(members, relsName);
  const out: Relationship[] = [];
  for (const rel of childElements(root, 'Relationship')) {
    const id = attr(rel, 'Id');
    const type = attr(rel, 'Type');
    const rawTarget = attr(rel, 'Target');
    if (!id || !type || rawTarget === undefined) continue;
    if (attr(rel, 'TargetMode') === 'External') {
      out.push({ id, type, target: '', external: true });
      continue;
    }
    const target = resolveTarget(partName, rawTarget);
    if (target !== null) out.push({ id, type, target, external: false });
  }
  return out;
}

/** Targets are URIs relative to the source part's folder; one that climbs out of the package is dropped. */
function resolveTarget(source: string, target: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    return null;
  }
  const joined = decoded.startsWith('/') ? decoded.slice(1) : path.posix.join(path.posix.dirname(source), decoded);
  const normal = path.posix.normalize(joined);
  if (normal.startsWith('../') || normal === '..' || path.posix.isAbsolute(normal)) return null;
  return normal;
}

/** Transitional and Strict OOXML spell relationship types with different prefixes and the same last segment. */
export function hasType(rel: Relationship, lastSegment: string): boolean {
  return rel.type.endsWith(`/${lastSegment}`);
}

/** The package's main part (document, workbook or presentation). */
export function mainPart(members: ZipMembers): string {
  const rel = readRelationships(members, '').find((r) => !r.external && hasType(r, 'officeDocument'));
  if (!rel) throw new OfficeError('Office file has no main document relationship');
  return rel.target;
}

/** Attribute predicate for `r:id`-style references, whichever OOXML flavour wrote them. */
export function isRelationshipNs(uri: string): boolean {
  return uri.endsWith('/relationships');
}
