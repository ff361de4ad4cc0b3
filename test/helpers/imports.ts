/**
 * The import graph of src/, read from the text: every static import and re-export (`export ...
 * from`), every side-effect import (`import './x.js'`) and every dynamic `import('./x.js')`,
 * each marked whether it only carries types (erased from a bundle) or loads code.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface ImportEdge {
  /** the file imported, as an absolute path ending in .ts */
  target: string;
  /** `import type` or `export type`: nothing is loaded (braces holding only `type` names still load the module) */
  typeOnly: boolean;
  kind: 'static' | 'side-effect' | 'dynamic' | 're-export';
}

/** Comments may quote code (an example's `from 'lbrl'`): only the code counts. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** The relative specifiers a module's text imports, however it imports them. */
export function importSpecifiers(
  text: string,
): { spec: string; typeOnly: boolean; kind: ImportEdge['kind'] }[] {
  const code = withoutComments(text);
  const found: { spec: string; typeOnly: boolean; kind: ImportEdge['kind'] }[] = [];
  // import x from '…' · import { a, type B } from '…' · import type { B } from '…' · export { a } from '…' · export * from '…'
  for (const m of code.matchAll(
    /(?:^|[;\n])\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g,
  )) {
    const [, keyword, typeKeyword, , spec] = m;
    // only `import type` / `export type` is erased: under verbatimModuleSyntax (tsconfig.json),
    // `import { type B } from './b.js'` stays as `import {} from './b.js'`, and a bundle loads b
    const typeOnly = Boolean(typeKeyword);
    found.push({ spec: spec!, typeOnly, kind: keyword === 'export' ? 're-export' : 'static' });
  }
  for (const m of code.matchAll(/(?:^|[;\n])\s*import\s*['"]([^'"]+)['"]/g)) {
    found.push({ spec: m[1]!, typeOnly: false, kind: 'side-effect' });
  }
  for (const m of code.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    found.push({ spec: m[1]!, typeOnly: false, kind: 'dynamic' });
  }
  return found;
}

export function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Each file of `root` to the files of `root` it imports (package.json and packages are left out). */
export function importGraph(root: string): Map<string, ImportEdge[]> {
  const graph = new Map<string, ImportEdge[]>();
  for (const file of sourceFiles(root)) {
    const edges = importSpecifiers(fs.readFileSync(file, 'utf8'))
      .filter(({ spec }) => spec.startsWith('.'))
      .map(({ spec, typeOnly, kind }) => ({
        target: path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts'),
        typeOnly,
        kind,
      }))
      .filter((edge) => edge.target.startsWith(`${root}${path.sep}`));
    graph.set(file, edges);
  }
  return graph;
}

/**
 * Every file reached from `start` by following the edges that load code (type-only edges are
 * erased from a bundle, so they carry nothing), each with the chain that reaches it.
 */
export function reachable(graph: Map<string, ImportEdge[]>, start: string): Map<string, string[]> {
  const chains = new Map<string, string[]>([[start, [start]]]);
  const todo = [start];
  while (todo.length > 0) {
    const file = todo.shift()!;
    for (const edge of graph.get(file) ?? []) {
      if (edge.typeOnly || chains.has(edge.target)) continue;
      chains.set(edge.target, [...chains.get(file)!, edge.target]);
      todo.push(edge.target);
    }
  }
  return chains;
}
