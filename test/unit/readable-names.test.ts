/**
 * Names a newcomer can read without the file open: a parameter or variable that lives over more
 * than a line or two has a word for a name, not `o`, `a`, `r` or `p`. A one- or two-letter name is
 * fine in a lambda that fits on a line (`(entry) => entry.id` may be `(e) => e.id`), for the
 * index or count a loop declares (`i`, `j`, `k`, `n`), for a coordinate (`x`, `y`), for the two sides of a comparison or an
 * operation (`a`, `b` together), and for the few short words and abbreviations every reader knows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/imports.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** Short names that need no decoding. */
const READABLE = new Set([
  ...['_', 'x', 'y'],
  ...['id', 'ok', 'to', 'at', 'of', 'by', 'fs', 'os', 'ms', 'fd', 'tx', 'lo', 'hi'],
]);
/** An index or a count, read as one where a loop declares it (`for (let i = 0; ...)`, `for (const [i, v] of ...)`). */
const INDEX = new Set(['i', 'j', 'k', 'n']);

function declaredByLoop(declaration: ts.Node): boolean {
  for (let node: ts.Node | undefined = declaration.parent; node; node = node.parent) {
    if (ts.isForStatement(node) || ts.isForOfStatement(node) || ts.isForInStatement(node))
      return (
        node.initializer !== undefined &&
        declaration.pos >= node.initializer.pos &&
        declaration.end <= node.initializer.end
      );
    if (ts.isBlock(node) || ts.isFunctionLike(node) || ts.isSourceFile(node)) return false;
  }
  return false;
}
/** A name may stay short over this many lines: a lambda on a line, or a loop of two. */
const SHORT_SCOPE_LINES = 2;

/**
 * Short names allowed to stay, as `file: name`: none now. A name that cannot take a word (it
 * mirrors a format's own field, say) goes here with the reason beside it.
 */
const KNOWN: ReadonlySet<string> = new Set<string>([]);

function scopeOnTarget(node: ts.Node): ts.Node {
  let scope = node.parent;
  if (ts.isParameter(node)) return scope;
  while (
    scope &&
    !ts.isBlock(scope) &&
    !ts.isSourceFile(scope) &&
    !ts.isFunctionLike(scope) &&
    !ts.isForStatement(scope) &&
    !ts.isForOfStatement(scope) &&
    !ts.isForInStatement(scope) &&
    !ts.isCatchClause(scope)
  )
    scope = scope.parent;
  return scope ?? node;
}

/** `file: name (line)` for each short name declared over more than SHORT_SCOPE_LINES lines. */
function crypticNames(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const found: string[] = [];
  const check = (name: ts.Identifier, declaration: ts.Node) => {
    if (name.text.length > 2 || READABLE.has(name.text)) return;
    if (INDEX.has(name.text) && declaredByLoop(declaration)) return;
    if (ts.isParameter(declaration) && (name.text === 'a' || name.text === 'b')) {
      const other = name.text === 'a' ? 'b' : 'a';
      const fn = declaration.parent as ts.SignatureDeclaration;
      if (fn.parameters.some((p) => ts.isIdentifier(p.name) && p.name.text === other)) return;
    }
    const scope = scopeOnTarget(declaration);
    if (lineOf(scope.getEnd()) - lineOf(scope.getStart(source)) + 1 <= SHORT_SCOPE_LINES) return;
    found.push(`${file}: ${name.text} (line ${lineOf(name.getStart(source)) + 1})`);
  };
  const visit = (node: ts.Node) => {
    if (
      (ts.isParameter(node) || ts.isVariableDeclaration(node) || ts.isBindingElement(node)) &&
      ts.isIdentifier(node.name)
    )
      check(node.name, node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('names a reader need not decode', () => {
  it('no parameter or variable of src/ with a scope of several lines has a one- or two-letter name', () => {
    const problems = sourceFiles(SRC).flatMap((file) =>
      crypticNames(path.relative(SRC, file).split(path.sep).join('/'), fs.readFileSync(file, 'utf8')),
    );
    expect(problems.filter((problem) => !KNOWN.has(problem.replace(/ \(line \d+\)$/, '')))).toEqual([]);
  });

  it('the check sees a short name over several lines, and lets a one-line lambda, the index a loop declares and a comparison be', () => {
    const text = [
      'export function f(o: Options, sortBy: (a: Row, b: Row) => number) {',
      '  const ids = rows.map((r) => r.id);',
      '  for (let i = 0; i < 3; i++) use(i);',
      '  const p = printer;',
      '  rows.sort((a, b) => a.n - b.n);',
      '  return rows.filter((r) => {',
      '    return r.ok;',
      '  });',
      '}',
      'try { run(); } catch (e) {',
      '  log(e);',
      '  throw e;',
      '}',
      'const { printer: q } = session;',
      'function g(k: Key, n: number) {',
      '  for (const [j, row] of rows.entries()) use(j, row);',
      '  let i = 0;',
      '  return k + n + i;',
      '}',
    ].join('\n');
    expect(crypticNames('x.ts', text)).toEqual([
      'x.ts: o (line 1)',
      'x.ts: p (line 4)',
      'x.ts: r (line 6)',
      'x.ts: e (line 10)',
      'x.ts: q (line 14)',
      // i, j, k and n read as an index or a count only where a loop declares them
      'x.ts: k (line 15)',
      'x.ts: n (line 15)',
      'x.ts: i (line 17)',
    ]);
  });
});
