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
 * generated manifest lists; each definition's `run` builds its options from the factory). One
 * meaning, in many files, on purpose.
 */
const COMMAND_CONTRACT = new Set(['definitions']);
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

/** The top-level names a file defines without exporting them. */
function privateNamesOf(text: string): string[] {
  return [
    ...withoutComments(text).matchAll(
      /^(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:const|let|var|function\*?|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm,
    ),
  ].map((m) => m[1]!);
}

/**
 * A file's private name that another file exports with its own meaning: a reader who knows one
 * `Verdict` or `Outcome` takes the other for it. Each entry of `allowed` is a name with the same
 * meaning in both files, defined twice only because one file may not import the other.
 */
function reusedPrivateNames(files: Map<string, string>, allowed: ReadonlySet<string>): string[] {
  const exporters = new Map<string, string[]>();
  for (const [file, text] of files)
    for (const name of exportsOf(text).own) exporters.set(name, [...(exporters.get(name) ?? []), file]);
  const problems: string[] = [];
  for (const [file, text] of files) {
    for (const name of privateNamesOf(text)) {
      const elsewhere = (exporters.get(name) ?? []).filter((other) => other !== file);
      if (elsewhere.length > 0 && !allowed.has(`${file} ${name}`))
        problems.push(`${file} defines ${name}, which ${elsewhere.join(', ')} exports: give it its own name`);
    }
  }
  return problems.sort();
}

/**
 * Private names allowed to repeat an export of another file, as `file Name`, for a name with the
 * same meaning in both that one file may not import from the other: a SHA-256 digest, which
 * store/pg-crypto.ts exports under the name pg calls it by, and domain/ (which imports nothing
 * outside itself) keeps for itself.
 */
const SAME_MEANING: ReadonlySet<string> = new Set<string>(['domain/liquid/asset.ts sha256']);

function srcFiles(): Map<string, string> {
  return new Map(
    sourceFiles(SRC).map((f) => [
      path.relative(SRC, f).split(path.sep).join('/'),
      fs.readFileSync(f, 'utf8'),
    ]),
  );
}

describe('one meaning per exported name', () => {
  it('no two files of src/ export the same name', () => {
    expect(nameProblems(srcFiles())).toEqual([]);
  });

  it('no file of src/ keeps a private name that another file exports with another meaning', () => {
    expect(reusedPrivateNames(srcFiles(), SAME_MEANING)).toEqual([]);
  });

  it('the private-name check fails on a private type, function or constant named as another file exports', () => {
    const files = new Map([
      [
        'domain/liquid/settlement.ts',
        "export type Verdict = 'verified' | 'mismatch';\nexport function fail() {}",
      ],
      ['api/interim.ts', "type Verdict = 'interim' | 'final';\n// type Outcome = 1;\nconst fail = () => 1;"],
      ['api/client.ts', 'interface Seen { a: 1 }\nexport const LIMIT = 1;'],
      ['deposits/answers.ts', 'export interface Seen { b: 2 }\nfunction ok() {}'],
      ['ui/qr.ts', 'const LIMIT = 2;'],
    ]);
    expect(reusedPrivateNames(files, new Set(['ui/qr.ts LIMIT']))).toEqual([
      'api/client.ts defines Seen, which deposits/answers.ts exports: give it its own name',
      'api/interim.ts defines Verdict, which domain/liquid/settlement.ts exports: give it its own name',
      'api/interim.ts defines fail, which domain/liquid/settlement.ts exports: give it its own name',
    ]);
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
      ['commands/deposit-get.ts', 'export const definitions = [];'],
      ['commands/deposit-list.ts', 'export const definitions = [];'],
      // a module-level run is no longer the contract: the definitions' run builds the options
      ['commands/deposit-watch.ts', 'export async function run() {}'],
      ['commands/display.ts', 'export async function run() {}'],
      ['index.ts', "export { parseCents } from './lib/values.js';"],
      ['other.ts', '// export const MAX = 2;\nconst local = 1;\nexport { local as MAX };'],
      ['api/http.ts', "import type { Dispatcher } from 'undici';\nexport type { Dispatcher };"],
    ]);
    expect(nameProblems(files)).toEqual([
      'Clock is exported by deposits/ports.ts, lib/client.ts: give each meaning its own name',
      'MAX is exported by domain/money.ts, other.ts: give each meaning its own name',
      'deposits/ports.ts passes on Other: import it from where it is defined',
      'parseCents is exported by domain/money.ts, lib/values.ts: give each meaning its own name',
      'run is exported by commands/deposit-watch.ts, commands/display.ts: give each meaning its own name',
      'ui/prompts.ts passes on Prompter: import it from where it is defined',
    ]);
  });
});
