/** The layers of docs/architecture.md, kept: imports (static and lazy) go down only. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** Which layers each layer may import, besides itself. */
const ALLOWED: Record<string, string[]> = {
  main: ['cli', 'context'],
  index: ['lib', 'errors'],
  lib: ['deposits', 'api', 'domain', 'errors'],
  cli: ['commands', 'context', 'errors', 'session'],
  commands: [
    'deposits',
    'ui',
    'session',
    'context',
    'store',
    'api',
    'domain',
    'sandbox',
    'display',
    'errors',
  ],
  display: ['deposits', 'ui', 'store', 'api', 'domain', 'sandbox', 'errors'],
  session: ['context', 'deposits', 'ui', 'api', 'store', 'sandbox', 'domain', 'errors'],
  ui: ['context', 'api', 'domain', 'errors'],
  context: ['api', 'errors'],
  deposits: ['api', 'store', 'domain', 'errors'],
  store: ['api', 'domain', 'errors'],
  api: ['domain', 'errors'],
  sandbox: ['domain', 'api', 'errors'],
  domain: [],
  errors: [],
};

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

const layerOf = (file: string) =>
  path
    .relative(SRC, file)
    .split(path.sep)[0]!
    .replace(/\.(ts|js)$/, '');

function imports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)]
    .map((m) => path.resolve(path.dirname(file), m[1]!).replace(/\.js$/, '.ts'))
    .filter((target) => target.startsWith(`${SRC}${path.sep}`)); // package.json is data
}

describe('layers', () => {
  const all = files(SRC);

  it('every import goes to the same layer or one below', () => {
    const wrong: string[] = [];
    for (const f of all) {
      const from = layerOf(f);
      for (const target of imports(f)) {
        const to = layerOf(target);
        if (to !== from && !(ALLOWED[from] ?? []).includes(to)) {
          wrong.push(`${path.relative(SRC, f)} -> ${path.relative(SRC, target)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('no command imports another command (only the definitions load them)', () => {
    // the flag specs (flags.ts) are shared: every command module takes its option type from them
    const shared = /commands\/(define|flags|shared\/.*)\.ts$/;
    const wrong: string[] = [];
    for (const f of all.filter((f) => layerOf(f) === 'commands' && !f.endsWith('definitions.ts'))) {
      for (const target of imports(f)) {
        if (layerOf(target) === 'commands' && !shared.test(target)) {
          wrong.push(`${path.relative(SRC, f)} -> ${path.relative(SRC, target)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
