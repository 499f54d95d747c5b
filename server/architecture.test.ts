// The layers of docs/architecture.md as a test: every non-test module's imports, read with TypeScript's parser,
// held to the table in architecture/tiers.ts. Each rule is shown failing on a small graph that breaks it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Graph, graphOf, readGraph } from './architecture/imports.js';
import { BEGIN, END, picture, withPicture } from './architecture/picture.js';
import { check, REAL_TABLE, type Table, type Verdict, type Violation } from './architecture/rules.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOC = path.join(REPO, 'docs/architecture.md');
/** Set by `npm run architecture` (scripts/architecture-doc.mjs): write the picture instead of comparing it. */
const WRITE_DOC = process.env.SATCHEL_WRITE_ARCHITECTURE_DOC === '1';

/** Tests, their `testing/` helpers and this checker are not modules of the application. */
const notAModule = (rel: string) => /\/(testing|node_modules)$/.test(rel) || rel === 'server/architecture';

const show = (v: Violation) => `${v.rule}: ${v.from}${v.line ? `:${v.line}` : ''}${v.to ? ` → ${v.to}` : ''} (${v.message})`;

describe('the real tree', () => {
  let graph: Graph;
  let verdict: Verdict;
  beforeAll(() => {
    graph = readGraph(REPO, ['server', 'renderer/src'], notAModule);
    verdict = check(graph);
  }, 180_000); // about 400 files parsed: seconds, more on a loaded machine

  it('reads the whole server and the page', () => {
    expect(graph.has('server/app.ts')).toBe(true);
    expect(graph.has('server/store/sessions.ts')).toBe(true);
    expect(graph.has('renderer/src/app.ts')).toBe(true);
    expect([...graph.keys()].filter((f) => f.includes('/testing/') || f.endsWith('.test.ts') || f.startsWith('server/architecture/'))).toEqual([]);
    expect(verdict.modules).toBeGreaterThan(300);
  });

  it('holds every rule (or a listed exception)', () => {
    expect(verdict.violations.map(show)).toEqual([]);
  });

  it('needs every listed exception (the list only shrinks)', () => {
    expect(verdict.unneeded.map((x) => `${x.rule}: ${x.from}${x.to ? ` → ${x.to}` : ''}`)).toEqual([]);
  });

  it("docs/architecture.md's picture is the one generated from the table (npm run architecture)", () => {
    const doc = fs.readFileSync(DOC, 'utf8');
    const fresh = withPicture(doc, picture(REAL_TABLE));
    if (WRITE_DOC && fresh !== doc) fs.writeFileSync(DOC, fresh);
    else expect(doc, 'the picture is stale: run npm run architecture').toBe(fresh);
  });
});

// --- each rule broken on purpose, on a graph small enough to read -----------------------------------------

const SMALL: Table = {
  tiers: [
    { name: 'top', members: [['server/app.ts', 'root'], ['server/index.ts', 'entry']] },
    { name: 'routes', members: [['server/handlers/', 'routes']] },
    { name: 'features', members: [['server/feature/', 'a feature'], ['server/content/', 'content']] },
    { name: 'bottom', members: [['server/store/', 'disk'], ['server/redact/', 'rules']] },
  ],
  sealedFolders: ['server/redact/', 'server/content/'],
  compositionRoot: 'server/app.ts',
  handlers: 'server/handlers/',
  handlerInputAlso: ['server/app.ts'],
  snifferFiles: ['file-kind.ts'],
  sniffNames: ['imageMime'],
  content: 'server/content/',
  page: 'renderer/',
  appNamingMax: 3,
  exceptions: [],
  typesDownToo: ['server/redact/'],
};

/** A tree that keeps every rule; each test below adds one bad module or import to it. */
const GOOD: Record<string, string> = {
  'server/app.ts': `import { route } from './handlers/a.js';\nexport interface App { x: number }\nexport type HandlerInput = { app: App };\nexport const routes = [route];`,
  'server/index.ts': `import { routes } from './app.js';\nexport const n = routes.length;`,
  'server/handlers/a.ts': `import type { HandlerInput } from '../app.js';\nimport { work } from '../feature/work.js';\nexport function route(input: HandlerInput) { return work(input.app.x); }`,
  'server/feature/work.ts': `import { save } from '../store/save.js';\nimport { redact } from '../redact/index.js';\nimport { classify } from '../content/index.js';\nexport const work = (x: number) => save(redact(String(x + classify())));`,
  'server/content/index.ts': `import { imageMime } from './file-kind.js';\nexport const classify = () => (imageMime() ? 1 : 0);`,
  'server/content/file-kind.ts': `export const imageMime = () => undefined;`,
  'server/store/save.ts': `import type { App } from '../app.js';\nexport const save = (s: string, _app?: App) => s;`,
  'server/redact/index.ts': `import { mask } from './mask.js';\nexport const redact = (s: string) => mask(s);`,
  'server/redact/mask.ts': `export const mask = (s: string) => s;`,
  'renderer/src/page.ts': `import type { App } from '../../server/app.js';\nexport const page = (a: App) => a.x;`,
};

const verdictWith = (changes: Record<string, string>, table: Partial<Table> = {}) => check(graphOf({ ...GOOD, ...changes }), { ...SMALL, ...table });
const rulesBroken = (v: Verdict) => v.violations.map((x) => `${x.rule}: ${x.from}${x.to ? ` → ${x.to}` : ''}`);

describe('each rule fails on a deliberate bad import', () => {
  it('the good tree passes', () => {
    const v = verdictWith({});
    expect(v.violations.map(show)).toEqual([]);
    expect(v.appNamers).toEqual(['server/handlers/a.ts', 'server/store/save.ts', 'renderer/src/page.ts']);
  });

  it('1. a run-time import cycle', () => {
    const v = verdictWith({ 'server/store/save.ts': `import { work } from '../feature/work.js';\nexport const save = (s: string) => s + String(work);` });
    expect(v.violations.some((x) => x.rule === 'cycle' && x.message.includes('server/feature/work.ts') && x.message.includes('server/store/save.ts'))).toBe(true);
    // The same loop through a type import is erased at run time: no cycle.
    const typeOnly = verdictWith({ 'server/store/save.ts': `import type { work } from '../feature/work.js';\nexport const save = (s: string, _w?: typeof work) => s;` });
    expect(typeOnly.violations.filter((x) => x.rule === 'cycle')).toEqual([]);
  });

  it('2. a run-time import up a tier (and a module no tier places)', () => {
    const v = verdictWith({ 'server/store/up.ts': `export { work } from '../feature/work.js';` });
    expect(rulesBroken(v)).toEqual(['tier: server/store/up.ts → server/feature/work.ts']);
    const dynamic = verdictWith({ 'server/store/up.ts': `export const later = () => import('../feature/work.js');` });
    expect(rulesBroken(dynamic)).toEqual(['tier: server/store/up.ts → server/feature/work.ts']);
    const nowhere = verdictWith({ 'server/stray/x.ts': `export const x = 1;` });
    expect(rulesBroken(nowhere)).toEqual(['tier: server/stray/x.ts']);
    // Up as a type only: free (erased by the compiler), as is a binding used only as a type...
    expect(verdictWith({ 'server/store/up.ts': `import type { work } from '../feature/work.js';\nexport type W = typeof work;` }).violations).toEqual([]);
    expect(verdictWith({ 'server/store/up.ts': `import { work } from '../feature/work.js';\nexport type W = typeof work;` }).violations).toEqual([]);
    // ...except from a folder whose types go down too (core/ in the real table).
    const shared = verdictWith({ 'server/redact/up.ts': `import type { work } from '../feature/work.js';\nexport type W = typeof work;` });
    expect(rulesBroken(shared)).toEqual(['tier: server/redact/up.ts → server/feature/work.ts']);
  });

  it('3. a module other than the composition root imports a handler', () => {
    const v = verdictWith({ 'server/handlers/b.ts': `import { route } from './a.js';\nexport const b = route;` });
    expect(rulesBroken(v)).toEqual(['handlers: server/handlers/b.ts → server/handlers/a.ts']);
  });

  it('4. HandlerInput named outside handlers/', () => {
    const v = verdictWith({ 'server/feature/work.ts': `${GOOD['server/feature/work.ts']}\nimport type { HandlerInput } from '../app.js';\nexport const f = (i: HandlerInput) => i;` });
    expect(rulesBroken(v)).toEqual(['handler-input: server/feature/work.ts', 'app-count: server/app.ts']);
  });

  it('5. redact/ or content/ entered past its index.ts', () => {
    const v = verdictWith({ 'server/feature/mask-user.ts': `import { mask } from '../redact/mask.js';\nexport const m = mask('x');` });
    expect(rulesBroken(v)).toEqual(['sealed: server/feature/mask-user.ts → server/redact/mask.ts']);
    // content/ need not exist yet for the rule to hold once it does; a type import bypasses the index too.
    const content = verdictWith({ 'server/feature/kind.ts': `import type { Kind } from '../content/kinds.js';\nexport type K = Kind;`, 'server/content/kinds.ts': `export type Kind = 'text';` });
    expect(rulesBroken(content)).toEqual(['sealed: server/feature/kind.ts → server/content/kinds.ts']);
  });

  it('6. bytes sniffed outside content/', () => {
    const byModule = verdictWith({ 'server/feature/sniff.ts': `import * as kinds from '../workspace/file-kind.js';\nexport const s = kinds;`, 'server/workspace/file-kind.ts': 'export const x = 1;' }, {
      tiers: [...SMALL.tiers, { name: 'old', members: [['server/workspace/', 'old home']] }],
    });
    expect(rulesBroken(byModule)).toEqual(['sniff: server/feature/sniff.ts → server/workspace/file-kind.ts']);
    const byName = verdictWith({ 'server/content/index.ts': `export { imageMime } from './file-kind.js';\nexport const classify = () => 0;`, 'server/feature/sniff.ts': `import { imageMime } from '../content/index.js';\nexport const s = imageMime();` });
    expect(rulesBroken(byName)).toEqual(['sniff: server/feature/sniff.ts → server/content/index.ts']);
  });

  it('7. the page imports the server at run time', () => {
    const v = verdictWith({ 'renderer/src/page.ts': `import { App } from '../../server/app.js';\nexport const page = new App();` });
    expect(rulesBroken(v)).toEqual(['page: renderer/src/page.ts → server/app.ts']);
  });

  it('8. one more module naming App than recorded, and the record kept at the count', () => {
    const v = verdictWith({ 'server/feature/app-user.ts': `import type { App } from '../app.js';\nexport const f = (a: App) => a.x;` });
    expect(v.violations.map((x) => x.message)).toEqual(['4 modules name App, more than the 3 recorded: pass what the code uses']);
    expect(verdictWith({}, { appNamingMax: 5 }).violations.map((x) => x.message)).toEqual(['3 modules name App: lower APP_NAMING_MAX to 3 so it cannot grow back']);
  });

  it('an exception lets its edge through, and an exception no longer needed fails', () => {
    const bad = { 'server/store/up.ts': `export { work } from '../feature/work.js';` };
    const excused = verdictWith(bad, { exceptions: [{ rule: 'tier', from: 'server/store/up.ts', to: 'server/feature/work.ts', why: 'test' }] });
    expect(excused.violations).toEqual([]);
    expect(excused.unneeded).toEqual([]);
    const stale = verdictWith({}, { exceptions: [{ rule: 'tier', from: 'server/store/up.ts', to: 'server/feature/work.ts', why: 'test' }] });
    expect(stale.unneeded.map((x) => x.from)).toEqual(['server/store/up.ts']);
  });

  it('the picture lists every tier and exception, and replaces only its block', () => {
    const table = { ...SMALL, exceptions: [{ rule: 'tier' as const, from: 'server/store/up.ts', to: 'server/feature/work.ts', why: 'moves in issue 99' }] };
    const block = picture(table);
    for (const tier of SMALL.tiers) expect(block).toContain(tier.name);
    expect(block).toContain('store/up.ts → feature/work.ts: moves in issue 99');
    const doc = `before\n${BEGIN}\nold\n${END}\nafter\n`;
    expect(withPicture(doc, block)).toBe(`before\n${BEGIN}\n${block}\n${END}\nafter\n`);
  });
});
