/**
 * One meaning per exported name across src/: no two files export a name of their own (two
 * `Clock`s, a `parseCents` that throws and one that returns a result). A name passes through
 * unchanged only on the library's public surface (src/index.ts and src/lib/), where lib/
 * publishes what the domain defines.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/imports.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/**
 * The command module's contract: every module of commands/ exports its `definitions` (what the
 * generated manifest lists) and its `run`. One meaning, in many files, on purpose.
 */
const COMMAND_CONTRACT = new Set(['run', 'definitions']);
const isCommandModule = (file: string) => /^commands\/[^/]+\.ts$/.test(file);
/** Where a name may be passed on unchanged: the library's public surface. */
const mayReExport = (file: string) => file === 'index.ts' || file.startsWith('lib/');

interface Exports {
  /** names this file defines and exports */
  own: string[];
  /** names it passes on from another module (`export { x } from`, `export type { X }` of an import) */
  passed: string[];
}

function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

function exportsOf(text: string): Exports {
  const code = withoutComments(text);
  const own = [
    ...code.matchAll(
      /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:const|let|var|function\*?|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm,
    ),
  ].map((m) => m[1]!);
  // names imported from another file of src/ (a package's names are not src/'s to define)
  const imported = new Set(
    [...code.matchAll(/^import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]\./gm)].flatMap((m) =>
      m[1]!.split(',').map((n) =>
        n
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)
          .pop()!
          .trim(),
      ),
    ),
  );
  const passed: string[] = [];
  for (const m of code.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}(\s*from\s*['"]\.[^'"]*['"])?/gm)) {
    for (const item of m[1]!
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean)) {
      const [local, exported = local] = item
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .map((n) => n.trim());
      if (m[2] || imported.has(local!)) passed.push(exported!);
      else if (!/from\s*['"]/.test(m[0]!)) own.push(exported!);
    }
  }
  return { own, passed };
}

/** The names defined in more than one file, and the files that pass a name on where they may not. */
function nameProblems(files: Map<string, string>): string[] {
  const owners = new Map<string, string[]>();
  const problems: string[] = [];
  for (const [file, text] of files) {
    const { own, passed } = exportsOf(text);
    for (const name of own) {
      if (COMMAND_CONTRACT.has(name) && isCommandModule(file)) continue;
      owners.set(name, [...(owners.get(name) ?? []), file]);
    }
    if (!mayReExport(file))
      for (const name of passed)
        problems.push(`${file} passes on ${name}: import it from where it is defined`);
  }
  for (const [name, where] of owners) {
    if (where.length > 1)
      problems.push(`${name} is exported by ${where.join(', ')}: give each meaning its own name`);
  }
  return problems.sort();
}

describe('one meaning per exported name', () => {
  it('no two files of src/ export the same name', () => {
    const files = new Map(
      sourceFiles(SRC).map((f) => [
        path.relative(SRC, f).split(path.sep).join('/'),
        fs.readFileSync(f, 'utf8'),
      ]),
    );
    expect(nameProblems(files)).toEqual([]);
  });

  it('the check fails on a name defined twice, or passed on outside the public surface', () => {
    const files = new Map([
      ['deposits/ports.ts', 'export interface Clock { now(): number }\nexport type { Other } from "./x.js";'],
      ['lib/client.ts', '/** a clock */\nexport interface Clock {\n  now(): Date;\n}'],
      ['domain/money.ts', 'export function parseCents(s: string) {}\nexport const MAX = 1;'],
      [
        'lib/values.ts',
        "import { parseCents as readCents } from '../domain/money.js';\nexport function parseCents() {}",
      ],
      ['ui/prompts.ts', "import { type Prompter } from '../context.js';\nexport type { Prompter };"],
      ['commands/deposit-get.ts', 'export async function run() {}'],
      ['commands/deposit-list.ts', 'export async function run() {}'],
      ['index.ts', "export { parseCents } from './lib/values.js';"],
      ['other.ts', '// export const MAX = 2;\nconst local = 1;\nexport { local as MAX };'],
      ['api/http.ts', "import type { Dispatcher } from 'undici';\nexport type { Dispatcher };"],
    ]);
    expect(nameProblems(files)).toEqual([
      'Clock is exported by deposits/ports.ts, lib/client.ts: give each meaning its own name',
      'MAX is exported by domain/money.ts, other.ts: give each meaning its own name',
      'deposits/ports.ts passes on Other: import it from where it is defined',
      'parseCents is exported by domain/money.ts, lib/values.ts: give each meaning its own name',
      'ui/prompts.ts passes on Prompter: import it from where it is defined',
    ]);
  });
});
