// The module graph the architecture test holds rules over, read with TypeScript's own parser (never a regular
// expression: a string or a comment that looks like an import is not one). Each edge says whether it survives
// compilation: `import type`, `{ type X }`, a binding used only in type positions (which TypeScript elides), an
// `import('…')` type and an import of a `.d.ts` are type edges; everything else, `export … from` and `import()`
// with a literal included, is a run-time edge. Only relative specifiers are edges: packages and `node:` are not
// part of the layering.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface Edge {
  /** Repository-relative path of the imported module (`server/store/sessions.ts`). */
  to: string;
  /** False when TypeScript erases the import. */
  runtime: boolean;
  /** The names this import brings in (`default`, `*` for a namespace or `export *`, none for a side effect). */
  names: string[];
  line: number;
}

export interface ModuleInfo {
  path: string;
  edges: Edge[];
  /** Every identifier the module's text names (declared, imported or used), for the naming rules. */
  identifiers: Set<string>;
}

export type Graph = Map<string, ModuleInfo>;

/** `source`'s imports, specifiers resolved against `file` by `resolve` (undefined: not a module of ours). */
export function readModule(file: string, source: string, resolve: (from: string, specifier: string) => string | undefined): ModuleInfo {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edges: Edge[] = [];
  const identifiers = new Set<string>();
  const valueUses = valueIdentifiers(sf);
  const line = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const add = (specifier: ts.Expression | undefined, runtime: boolean, names: string[], node: ts.Node) => {
    if (!specifier || !ts.isStringLiteralLike(specifier)) return;
    const to = resolve(file, specifier.text);
    if (to === undefined) return;
    edges.push({ to, runtime: runtime && !to.endsWith('.d.ts'), names, line: line(node) });
  };

  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) identifiers.add(node.text);
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      if (!clause) add(node.moduleSpecifier, true, [], node); // a side-effect import always runs
      else {
        const names: string[] = [];
        let runtime = false;
        if (clause.name) {
          names.push('default');
          runtime ||= !clause.isTypeOnly && valueUses.has(clause.name.text);
        }
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) {
          names.push('*');
          runtime ||= !clause.isTypeOnly && valueUses.has(bindings.name.text);
        } else if (bindings) {
          for (const el of bindings.elements) {
            names.push((el.propertyName ?? el.name).text);
            runtime ||= !clause.isTypeOnly && !el.isTypeOnly && valueUses.has(el.name.text);
          }
        }
        add(node.moduleSpecifier, runtime, names, node);
      }
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const clause = node.exportClause;
      const elements = clause && ts.isNamedExports(clause) ? clause.elements : undefined;
      const names = elements ? elements.map((el) => (el.propertyName ?? el.name).text) : ['*'];
      const runtime = !node.isTypeOnly && (!elements || elements.some((el) => !el.isTypeOnly));
      add(node.moduleSpecifier, runtime, names, node);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], true, ['*'], node);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal as ts.Expression, false, ['*'], node);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, !node.isTypeOnly, ['*'], node);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { path: file, edges, identifiers };
}

/**
 * The identifiers a module uses as values: anywhere outside a type, an import or export clause, a property name
 * or a declaration's own name. A binding not in this set is used only as a type and TypeScript elides its import.
 */
function valueIdentifiers(sf: ts.SourceFile): Set<string> {
  const uses = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isTypeNode(node) && !ts.isExpressionWithTypeArguments(node)) return;
    if (ts.isImportDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return;
    if (ts.isExpressionWithTypeArguments(node) && ts.isHeritageClause(node.parent) && node.parent.token === ts.SyntaxKind.ImplementsKeyword) return;
    if (ts.isExportSpecifier(node)) {
      // `export { X }` of an imported binding keeps the import only when X is a value; counted as one (safe side).
      if (!node.isTypeOnly && !node.parent.parent.isTypeOnly && !node.parent.parent.moduleSpecifier) uses.add((node.propertyName ?? node.name).text);
      return;
    }
    if (ts.isIdentifier(node)) {
      const parent = node.parent;
      const isOwnName =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        (ts.isPropertyAssignment(parent) && parent.name === node) ||
        (ts.isMethodDeclaration(parent) && parent.name === node) ||
        (ts.isPropertyDeclaration(parent) && parent.name === node) ||
        (ts.isQualifiedName(parent) && parent.right === node) ||
        (ts.isBindingElement(parent) && parent.propertyName === node);
      if (!isOwnName) uses.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return uses;
}

/** Every `.ts` file under `dir` (repository-relative), tests and `testing/` helpers left out. */
export function sourceFiles(repo: string, dir: string, skip: (rel: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(repo, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (skip(child)) continue;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) out.push(child);
    }
  };
  walk(dir);
  return out.sort();
}

/** A relative specifier as the compiler resolves it under NodeNext: `./x.js` is `./x.ts` or `./x.d.ts`. */
export function resolverFor(exists: (rel: string) => boolean) {
  return (from: string, specifier: string): string | undefined => {
    if (!specifier.startsWith('.')) return undefined;
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
    const stem = base.replace(/\.(m|c)?js$/, '');
    for (const candidate of [`${stem}.ts`, `${stem}.d.ts`, `${stem}/index.ts`, base]) if (exists(candidate)) return candidate;
    return base; // unresolved: kept, so a rule still sees where it points
  };
}

/** The graph of the modules under `dirs`, read from disk. */
export function readGraph(repo: string, dirs: string[], skip: (rel: string) => boolean): Graph {
  const resolve = resolverFor((rel) => fs.existsSync(path.join(repo, rel)));
  const graph: Graph = new Map();
  for (const dir of dirs) {
    for (const file of sourceFiles(repo, dir, skip)) graph.set(file, readModule(file, fs.readFileSync(path.join(repo, file), 'utf8'), resolve));
  }
  return graph;
}

/** A graph from in-memory sources (the rules' own tests). */
export function graphOf(sources: Record<string, string>): Graph {
  const resolve = resolverFor((rel) => rel in sources);
  return new Map(Object.entries(sources).map(([file, text]) => [file, readModule(file, text, resolve)]));
}
