// The rules the layers are held to (docs/architecture.md), over a graph from imports.ts and a table like
// tiers.ts's. Pure: the test runs them on the real tree and on small made-up graphs that break each rule.
import type { Graph } from './imports.js';
import * as table from './tiers.js';
import type { Exception, Tier } from './tiers.js';

export interface Table {
  tiers: Tier[];
  sealedFolders: string[];
  compositionRoot: string;
  handlers: string;
  handlerInputAlso: string[];
  snifferFiles: string[];
  sniffNames: string[];
  content: string;
  page: string;
  appNamingMax: number;
  exceptions: Exception[];
  pending?: Array<[what: string, why: string]>;
  /** Folders whose type imports go down the tiers too (what everything shares must name nothing above it). */
  typesDownToo: string[];
}

export const REAL_TABLE: Table = {
  tiers: table.TIERS,
  sealedFolders: table.SEALED_FOLDERS,
  compositionRoot: table.COMPOSITION_ROOT,
  handlers: table.HANDLERS,
  handlerInputAlso: table.HANDLER_INPUT_ALSO,
  snifferFiles: table.SNIFFER_FILES,
  sniffNames: table.SNIFF_NAMES,
  content: table.CONTENT,
  page: table.PAGE,
  appNamingMax: table.APP_NAMING_MAX,
  exceptions: table.EXCEPTIONS,
  pending: table.PENDING,
  typesDownToo: table.TYPES_DOWN_TOO,
};

export interface Violation {
  rule: Exception['rule'] | 'app-count';
  from: string;
  to?: string;
  line?: number;
  message: string;
}

export interface Verdict {
  violations: Violation[];
  /** Exceptions no violation needs any more: to be deleted from the table. */
  unneeded: Exception[];
  /** Modules that import the composition root's App or HandlerInput. */
  appNamers: string[];
  modules: number;
  runtimeEdges: number;
  typeEdges: number;
}

const inFolder = (file: string, member: string) => (member.endsWith('/') ? file.startsWith(member) : file === member);
const basename = (file: string) => file.slice(file.lastIndexOf('/') + 1);

/** The tier index of `file` (0 is the top), or -1 when the table does not place it. */
export function tierOf(tiers: Tier[], file: string): number {
  // The longest member wins, so a module named alone is placed apart from its folder.
  let best = -1;
  let bestLength = -1;
  tiers.forEach((tier, i) => {
    for (const [member] of tier.members) {
      if (inFolder(file, member) && member.length > bestLength) {
        best = i;
        bestLength = member.length;
      }
    }
  });
  return best;
}

export function check(graph: Graph, t: Table = REAL_TABLE): Verdict {
  const found: Violation[] = [];
  const server = (file: string) => file.startsWith('server/');
  let runtimeEdges = 0;
  let typeEdges = 0;

  for (const m of graph.values()) {
    const fromTier = server(m.path) ? tierOf(t.tiers, m.path) : -1;
    if (server(m.path) && fromTier < 0) found.push({ rule: 'tier', from: m.path, message: 'not placed in any tier of the table' });
    const outside = (folder: string) => !m.path.startsWith(folder);

    for (const e of m.edges) {
      if (e.runtime) runtimeEdges++;
      else typeEdges++;
      const at = { from: m.path, to: e.to, line: e.line };
      if (e.runtime && server(m.path) && server(e.to)) {
        const toTier = tierOf(t.tiers, e.to);
        if (fromTier >= 0 && toTier >= 0 && toTier < fromTier) {
          found.push({ ...at, rule: 'tier', message: `imports up: ${t.tiers[fromTier]!.name} → ${t.tiers[toTier]!.name}` });
        }
      } else if (!e.runtime && server(e.to) && t.typesDownToo.some((folder) => m.path.startsWith(folder))) {
        const toTier = tierOf(t.tiers, e.to);
        if (fromTier >= 0 && toTier >= 0 && toTier < fromTier) {
          found.push({ ...at, rule: 'tier', message: `names a type from above: ${t.tiers[fromTier]!.name} → ${t.tiers[toTier]!.name}` });
        }
      }
      if (e.to.startsWith(t.handlers) && m.path !== t.compositionRoot) {
        found.push({ ...at, rule: 'handlers', message: 'only the composition root imports a handler' });
      }
      for (const folder of t.sealedFolders) {
        if (e.to.startsWith(folder) && outside(folder) && e.to !== `${folder}index.ts`) {
          found.push({ ...at, rule: 'sealed', message: `${folder} is entered through its index.ts` });
        }
      }
      if (outside(t.content) && e.runtime && t.snifferFiles.includes(basename(e.to)) && !e.to.startsWith(t.content)) {
        found.push({ ...at, rule: 'sniff', message: 'imports a byte sniffer: only content/ sniffs bytes' });
      }
      const sniffs = e.names.filter((name) => t.sniffNames.includes(name));
      if (outside(t.content) && e.runtime && sniffs.length > 0) {
        found.push({ ...at, rule: 'sniff', message: `imports ${sniffs.join(', ')}: only content/ sniffs bytes` });
      }
      if (m.path.startsWith(t.page) && server(e.to) && e.runtime) {
        found.push({ ...at, rule: 'page', message: 'the page imports the server only as types (`import type`)' });
      }
    }

    if (m.identifiers.has('HandlerInput') && outside(t.handlers) && !t.handlerInputAlso.includes(m.path)) {
      found.push({ rule: 'handler-input', from: m.path, message: 'HandlerInput is named only in handlers/: pass what the code uses' });
    }
  }

  for (const cycle of runtimeCycles(graph)) {
    found.push({ rule: 'cycle', from: cycle[0]!, message: `run-time import cycle among ${cycle.join(', ')}` });
  }

  const appNamers = [...graph.values()]
    .filter((m) => m.edges.some((e) => e.to === t.compositionRoot && e.names.some((n) => n === 'App' || n === 'HandlerInput')))
    .map((m) => m.path);
  if (appNamers.length > t.appNamingMax) {
    found.push({ rule: 'app-count', from: t.compositionRoot, message: `${appNamers.length} modules name App, more than the ${t.appNamingMax} recorded: pass what the code uses` });
  } else if (appNamers.length < t.appNamingMax) {
    found.push({ rule: 'app-count', from: t.compositionRoot, message: `${appNamers.length} modules name App: lower APP_NAMING_MAX to ${appNamers.length} so it cannot grow back` });
  }

  const matches = (v: Violation, x: Exception) => x.rule === v.rule && x.from === v.from && (x.to === undefined || x.to === v.to);
  const violations = found.filter((v) => !t.exceptions.some((x) => matches(v, x)));
  const unneeded = t.exceptions.filter((x) => !found.some((v) => matches(v, x)));
  return { violations, unneeded, appNamers, modules: graph.size, runtimeEdges, typeEdges };
}

/** Each run-time cycle once (one per strongly connected component, Tarjan's algorithm without recursion). */
export function runtimeCycles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  const successors = (v: string) => [...new Set((graph.get(v)?.edges ?? []).filter((e) => e.runtime && graph.has(e.to)).map((e) => e.to))];

  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ v: string; succ: string[]; i: number }> = [];
    const open = (v: string) => {
      index.set(v, next);
      low.set(v, next++);
      stack.push(v);
      onStack.add(v);
      work.push({ v, succ: successors(v), i: 0 });
    };
    open(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.i < frame.succ.length) {
        const w = frame.succ[frame.i++]!;
        if (!index.has(w)) open(w);
        else if (onStack.has(w)) low.set(frame.v, Math.min(low.get(frame.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(frame.v)!));
      if (low.get(frame.v) === index.get(frame.v)) {
        const component: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== frame.v);
        const selfLoop = successors(frame.v).includes(frame.v);
        if (component.length > 1 || selfLoop) cycles.push(component.reverse());
      }
    }
  }
  return cycles;
}
