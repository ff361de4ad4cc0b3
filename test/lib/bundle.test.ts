/**
 * The library a Node program installs (dist/lib/index.js, built by `npm run build`) holds no file
 * store: no history, no config, no claims, and no file system at all. It creates, gets and
 * watches deposits; what it remembers is the caller's to keep.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bundle = fs.readFileSync(path.join(ROOT, 'dist/lib/index.js'), 'utf8');
const meta = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/meta-lib.json'), 'utf8')) as {
  inputs: Record<string, unknown>;
};

/** The layers of src/ the library must never carry. */
const NOT_IN_LIB = /^src\/(store|commands|ui|factory|context|sandbox|cli|main)\b/;

/** Every way a bundle may load a module of Node's file system. */
const FILE_SYSTEM = /(?:from\s*|require\(\s*|import\(\s*)["'](?:node:)?fs(?:\/promises)?["']/g;

describe('the library bundle', () => {
  it('is built from no store, command, terminal, factory or sandbox module', () => {
    expect(Object.keys(meta.inputs).filter((input) => NOT_IN_LIB.test(input))).toEqual([]);
  });

  it('holds none of their code (esbuild names each module it inlines)', () => {
    expect(bundle.match(/^\/\/ src\/(store|commands|ui|factory|context|sandbox)\/.*$/gm) ?? []).toEqual([]);
    // the history's own words: its file name and its record types
    expect(bundle).not.toContain('history.ndjson');
    expect(bundle).not.toMatch(/class History\b/);
  });

  it('loads no file system module', () => {
    expect(bundle.match(FILE_SYSTEM) ?? []).toEqual([]);
  });

  it('the checks see a file store when there is one', () => {
    const leaky =
      'import fs from "node:fs";\n// src/store/history.ts\nclass History {}\nrequire("fs/promises");';
    expect(leaky.match(FILE_SYSTEM)).toHaveLength(2);
    expect(leaky.match(/^\/\/ src\/(store|commands|ui|factory|context|sandbox)\/.*$/gm)).toHaveLength(1);
    expect(NOT_IN_LIB.test('src/store/history.ts')).toBe(true);
    expect(NOT_IN_LIB.test('src/deposits/watch.ts')).toBe(false);
  });
});
