/** The layers of docs/architecture.md, kept: imports (static, re-exports, side-effect, lazy) go down only. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ImportEdge, importGraph, importSpecifiers, reachable } from '../helpers/imports.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** Which layers each layer may import, besides itself. */
const ALLOWED: Record<string, string[]> = {
  main: ['cli', 'context'],
  index: ['lib', 'errors'],
  lib: ['deposits', 'api', 'domain', 'errors'],
  cli: ['commands', 'context', 'errors', 'factory'],
  commands: [
    'deposits',
    'ui',
    'factory',
    'context',
    'store',
    'api',
    'domain',
    'sandbox',
    'display',
    'errors',
  ],
  display: ['deposits', 'ui', 'store', 'api', 'domain', 'sandbox', 'errors'],
  factory: ['context', 'deposits', 'ui', 'api', 'store', 'sandbox', 'domain', 'errors'],
  ui: ['context', 'api', 'domain', 'errors'],
  context: ['api', 'errors'],
  deposits: ['api', 'store', 'domain', 'errors'],
  store: ['api', 'domain', 'errors'],
  api: ['domain', 'errors'],
  sandbox: ['domain', 'api', 'errors'],
  domain: [],
  errors: [],
};

/** What the library (src/index.ts) must never load, however far down the chain: a Node program gets no file store, no terminal, no command. */
const NEVER_IN_LIB = ['store', 'commands', 'ui', 'factory', 'sandbox', 'context', 'cli', 'main'];

const layerOf = (root: string, file: string) =>
  path
    .relative(root, file)
    .split(path.sep)[0]!
    .replace(/\.(ts|js)$/, '');

function wrongEdges(root: string, graph: Map<string, ImportEdge[]>): string[] {
  const wrong: string[] = [];
  for (const [file, edges] of graph) {
    const from = layerOf(root, file);
    for (const { target } of edges) {
      const to = layerOf(root, target);
      if (to !== from && !(ALLOWED[from] ?? []).includes(to)) {
        wrong.push(`${path.relative(root, file)} -> ${path.relative(root, target)}`);
      }
    }
  }
  return wrong;
}

/** The chains by which the library loads a layer it must not. */
function libLeaks(root: string, graph: Map<string, ImportEdge[]>): string[] {
  const chains = reachable(graph, path.join(root, 'index.ts'));
  return [...chains]
    .filter(([file]) => NEVER_IN_LIB.includes(layerOf(root, file)))
    .map(([, chain]) => chain.map((f) => path.relative(root, f)).join(' -> '));
}

describe('reading imports', () => {
  it('sees every form of import, and which only carry types', () => {
    const text = [
      "import a from './a.js';",
      "import { b, type B } from './b.js';",
      "import type { C } from './c.js';",
      "import {\n  type D1,\n  type D2,\n} from './d.js';",
      "import './e.js';",
      "export { f } from './f.js';",
      "export * from './g.js';",
      "export type { H } from './h.js';",
      "const i = await import('./i.js');",
      "// import z from './commented.js';",
      '/* export { y } from "./block.js"; */',
    ].join('\n');
    expect(importSpecifiers(text)).toEqual([
      { spec: './a.js', typeOnly: false, kind: 'static' },
      { spec: './b.js', typeOnly: false, kind: 'static' },
      { spec: './c.js', typeOnly: true, kind: 'static' },
      // braces of `type` names alone still load ./d.js (verbatimModuleSyntax keeps `import {} from`)
      { spec: './d.js', typeOnly: false, kind: 'static' },
      { spec: './f.js', typeOnly: false, kind: 're-export' },
      { spec: './g.js', typeOnly: false, kind: 're-export' },
      { spec: './h.js', typeOnly: true, kind: 're-export' },
      { spec: './e.js', typeOnly: false, kind: 'side-effect' },
      { spec: './i.js', typeOnly: false, kind: 'dynamic' },
    ]);
  });

  it('the checks fail on a violation: a fake tree where the library reaches the store through a side-effect import', () => {
    const root = '/fake/src';
    const at = (p: string) => path.join(root, p);
    const edge = (target: string, kind: ImportEdge['kind'] = 'static', typeOnly = false): ImportEdge => ({
      target: at(target),
      typeOnly,
      kind,
    });
    const graph = new Map<string, ImportEdge[]>([
      [at('index.ts'), [edge('lib/client.ts', 're-export')]],
      [at('lib/client.ts'), [edge('deposits/watch.ts'), edge('store/types.ts', 'static', true)]],
      [at('deposits/watch.ts'), [edge('store/history.ts', 'side-effect')]],
      [at('store/history.ts'), []],
      [at('store/types.ts'), []],
      [at('api/client.ts'), [edge('ui/output.ts', 'dynamic')]],
    ]);
    // lib -> deposits -> store is allowed edge by edge, but not as a whole; a type-only edge carries no code
    expect(libLeaks(root, graph)).toEqual([
      'index.ts -> lib/client.ts -> deposits/watch.ts -> store/history.ts',
    ]);
    // a dynamic import counts as an edge
    expect(wrongEdges(root, graph)).toEqual([
      'lib/client.ts -> store/types.ts',
      'api/client.ts -> ui/output.ts',
    ]);
  });
});

describe('layers', () => {
  const graph = importGraph(SRC);

  it('every import goes to the same layer or one below', () => {
    expect(wrongEdges(SRC, graph)).toEqual([]);
  });

  it('the library loads no file store, terminal, factory, sandbox or command, however far down', () => {
    expect(libLeaks(SRC, graph)).toEqual([]);
  });

  it('no command imports another command (only the generated manifest loads them)', () => {
    // a command defines its own flags; define.ts and shared/ (flag-parts among them) serve them all
    const shared = /commands\/(define|shared\/.*)\.ts$/;
    const wrong: string[] = [];
    for (const [file, edges] of graph) {
      if (layerOf(SRC, file) !== 'commands' || file.endsWith('commands/manifest.ts')) continue;
      for (const { target } of edges) {
        if (layerOf(SRC, target) === 'commands' && !shared.test(target)) {
          wrong.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
