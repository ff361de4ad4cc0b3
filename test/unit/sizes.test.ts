/**
 * Sizes a reader can hold (issue: long functions and long files): no function, method or arrow
 * function over 80 lines, no file of src/ over 600. A function is measured from its first line to
 * its last, what it nests included, so a factory that returns twenty methods counts them all: the
 * cure is named phases, not a comment break. The offenders of the day that are being rewritten
 * elsewhere stay listed below with their size, and a listed size may only go down: the test fails
 * when one grows, and when one has shrunk under its listed size (take the line out, or lower it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/imports.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 600;

/** Files not measured, each with why. */
const NOT_MEASURED: Record<string, string> = {
  'commands/manifest.ts':
    'generated at build by bin/commands-manifest.mjs from the command modules: data, not code a person writes',
};

/**
 * Offenders allowed for now, as `file` (a file's length) or `file name` (a function's: its line
 * moves with every edit above it), with their size in lines. Empty: every function and file of
 * src/ is within the limits. Nothing may join this list without a reason written beside it, and a
 * size listed is the size today: one that shrinks is lowered here, one under the limit taken out.
 */
const KNOWN: Record<string, number> = {};

interface Oversize {
  /** `file` or `file:line name` */
  where: string;
  lines: number;
  limit: number;
}

const lineOf = (source: ts.SourceFile, position: number) =>
  source.getLineAndCharacterOfPosition(position).line + 1;

/** What a reader calls a function: its own name, or the name it is given (a const, a property, a class member). */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) return node.name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** The functions and the file of `text` that are over the limits. */
function oversizes(file: string, text: string): Oversize[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Oversize[] = [];
  const fileLines = source.getLineStarts().length - (text.endsWith('\n') ? 1 : 0);
  if (fileLines > MAX_FILE_LINES) found.push({ where: file, lines: fileLines, limit: MAX_FILE_LINES });
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const declaration = node as ts.FunctionLikeDeclaration;
      const first = lineOf(source, declaration.getStart(source));
      const lines = lineOf(source, declaration.end) - first + 1;
      if (lines > MAX_FUNCTION_LINES)
        found.push({ where: `${file}:${first} ${nameOf(declaration)}`, lines, limit: MAX_FUNCTION_LINES });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `file:line name` without its line, which moves with every edit above it. */
const keyOf = (where: string) => where.replace(/:\d+ /, ' ');

function measuredFiles(): { file: string; text: string }[] {
  return sourceFiles(SRC)
    .map((full) => ({ file: path.relative(SRC, full).split(path.sep).join('/'), full }))
    .filter(({ file }) => !(file in NOT_MEASURED))
    .map(({ file, full }) => ({ file, text: fs.readFileSync(full, 'utf8') }));
}

describe('the measure', () => {
  const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  total += ${i};`).join('\n');

  it('catches a function of 81 lines and lets one of 80 pass', () => {
    const text = [
      `export function fits(total: number) {\n${body(80)}\n}`,
      `export function tooLong(total: number) {\n${body(81)}\n}`,
    ].join('\n');
    expect(oversizes('x.ts', text)).toEqual([{ where: 'x.ts:81 tooLong', lines: 81, limit: 80 }]);
  });

  it('catches an arrow function, a method and a function expression, by the name they are given', () => {
    const text = [
      `const arrow = (total: number) => {\n${body(81)}\n};`,
      `class Counter {\n  count(total: number) {\n${body(81)}\n  }\n}`,
      `const table = { row: function (total: number) {\n${body(81)}\n} };`,
    ].join('\n');
    expect(oversizes('x.ts', text).map(({ where, lines }) => [keyOf(where), lines])).toEqual([
      ['x.ts arrow', 81],
      ['x.ts count', 81],
      ['x.ts row', 81],
    ]);
  });

  it('counts what a function nests, and a file of 601 lines', () => {
    const inner = `  const inner = () => {\n${body(70)}\n  };`;
    const outer = `function outer(total: number) {\n${inner}\n${body(12)}\n}`;
    expect(oversizes('x.ts', outer).map(({ where }) => keyOf(where))).toEqual(['x.ts outer']);
    const long = Array.from({ length: 601 }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n';
    expect(oversizes('long.ts', long)).toEqual([{ where: 'long.ts', lines: 601, limit: 600 }]);
    expect(oversizes('fits.ts', long.split('\n').slice(1).join('\n'))).toEqual([]);
  });
});

describe('sizes in src/', () => {
  const found = measuredFiles().flatMap(({ file, text }) => oversizes(file, text));

  it('has no function over 80 lines and no file over 600, beyond the known ones', () => {
    const over = found
      .filter(({ where, lines }) => !(keyOf(where) in KNOWN) || lines > KNOWN[keyOf(where)]!)
      .map(({ where, lines, limit }) =>
        keyOf(where) in KNOWN
          ? `${where}: ${lines} lines, more than the ${KNOWN[keyOf(where)]} listed`
          : `${where}: ${lines} lines (at most ${limit})`,
      );
    expect(over).toEqual([]);
  });

  it('lists each known offender at its size today, so the list only shrinks', () => {
    const today = new Map(found.map(({ where, lines }) => [keyOf(where), lines]));
    const stale = Object.entries(KNOWN)
      .filter(([key, lines]) => today.get(key) !== lines)
      .map(([key, lines]) => `${key}: listed at ${lines}, now ${today.get(key) ?? 'within the limit'}`);
    expect(stale).toEqual([]);
  });

  it('measures every file it names as not measured, for a reason', () => {
    for (const file of Object.keys(NOT_MEASURED)) expect(fs.existsSync(path.join(SRC, file))).toBe(true);
  });
});
