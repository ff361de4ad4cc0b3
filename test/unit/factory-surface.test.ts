/**
 * The narrow factory (src/factory/factory.ts, gh's cmdutil.Factory) stays narrow: few members,
 * none of them a forwarder to another; the commands reach it only in the adapters that fill their
 * options (`…Of`), never in the work (`run…`); and the Session it replaced is gone for good. Read
 * with the TypeScript compiler, as test/unit/sizes.test.ts reads src/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { importSpecifiers, sourceFiles } from '../helpers/imports.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const FACTORY = path.join(SRC, 'factory/factory.ts');

/** At most this many members: what a command may ask for (gh's Factory has about as many). */
const MAX_MEMBERS = 15;

const parse = (file: string, text = fs.readFileSync(file, 'utf8')) =>
  ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

/** The members of `interface Factory` in a module's text. */
function factoryMembers(source: ts.SourceFile): string[] {
  const found = source.statements.find(
    (node): node is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(node) && node.name.text === 'Factory',
  );
  if (!found) throw new Error(`no interface Factory in ${source.fileName}`);
  return found.members.map((member) => member.name?.getText(source) ?? '(unnamed)');
}

/** The fields of a class that hold a list of its own (`closers = []`): a call on one is work, not a pass-on. */
function ownLists(source: ts.SourceFile): Set<string> {
  const found = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isPropertyDeclaration(node) && node.initializer && ts.isArrayLiteralExpression(node.initializer))
      found.add(node.name.getText(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `this.a().b(...)`, or `this.a.b(...)` on a member that is not a list of its own: a call on another member's object. */
function callsThroughAnotherMember(node: ts.Node, lists: Set<string>): boolean {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return false;
  const inner = node.expression.expression;
  if (ts.isCallExpression(inner))
    return (
      ts.isPropertyAccessExpression(inner.expression) &&
      inner.expression.expression.kind === ts.SyntaxKind.ThisKeyword
    );
  return (
    ts.isPropertyAccessExpression(inner) &&
    inner.expression.kind === ts.SyntaxKind.ThisKeyword &&
    !lists.has(inner.name.text)
  );
}

/**
 * The methods of the classes of a module that only pass a call on to another member's object
 * (`holds(id) { return this.history().holds(id); }`): one statement, that call.
 */
function forwarders(source: ts.SourceFile): string[] {
  const lists = ownLists(source);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isMethodDeclaration(node) && node.body && node.body.statements.length === 1) {
      const [only] = node.body.statements;
      let expression: ts.Expression | undefined;
      if (ts.isReturnStatement(only!)) expression = only.expression;
      else if (ts.isExpressionStatement(only!)) expression = only.expression;
      if (expression && ts.isAwaitExpression(expression)) expression = expression.expression;
      if (expression && callsThroughAnotherMember(expression, lists)) found.push(node.name.getText(source));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The functions of a module that take a parameter typed `Factory`, by name. */
function takersOfTheFactory(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionDeclaration(node) && node.parameters.some((p) => p.type?.getText(source) === 'Factory'))
      found.push(node.name?.text ?? '(anonymous)');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the factory', () => {
  it(`has at most ${MAX_MEMBERS} members`, () => {
    const members = factoryMembers(parse(FACTORY));
    expect(members.length).toBeLessThanOrEqual(MAX_MEMBERS);
    // each one a thing a command asks for, not a setting or a helper of another member
    expect(members).toEqual([
      'ctx',
      'printer',
      'globals',
      'profileName',
      'config',
      'profile',
      'repairProfile',
      'target',
      'client',
      'sandbox',
      'ledger',
      'onClose',
    ]);
  });

  it('forwards nothing: no method of its module only passes a call on to another member', () => {
    expect(forwarders(parse(FACTORY))).toEqual([]);
  });

  it('the checks see a member too many and a forwarder', () => {
    const wide = parse(
      'wide.ts',
      `export interface Factory { ${Array.from({ length: 16 }, (_, i) => `m${i}(): void;`).join(' ')} }
       class Wide { closers = []; history() { return this.link.history(); } holds(id: string) { return this.history().holds(id); }
         fault() { return this.link?.fault(); } target() { return resolveTarget(this.inputs); } onClose(c) { this.closers.unshift(c); } }`,
    );
    expect(factoryMembers(wide)).toHaveLength(16);
    expect(forwarders(wide)).toEqual(['history', 'holds', 'fault']);
  });

  it("is reached by the commands only in the adapters that fill their options (…Of), never in a command's work", () => {
    const commands = path.join(SRC, 'commands');
    const wrong = sourceFiles(commands).flatMap((file) =>
      takersOfTheFactory(parse(file))
        .filter((name) => !/^[a-z]\w*Of$/.test(name))
        .map((name) => `${path.relative(SRC, file)}: ${name}`),
    );
    expect(wrong).toEqual([]);
    // and the check sees one
    expect(takersOfTheFactory(parse('x.ts', 'function runX(options: O, factory: Factory) {}'))).toEqual([
      'runX',
    ]);
  });
});

describe('the Session', () => {
  it('is gone, and no file of src/ imports a session module', () => {
    expect(fs.existsSync(path.join(SRC, 'session.ts'))).toBe(false);
    const importers = sourceFiles(SRC).filter((file) =>
      importSpecifiers(fs.readFileSync(file, 'utf8')).some(({ spec }) => /(^|\/)session(\.js)?$/.test(spec)),
    );
    expect(importers.map((file) => path.relative(SRC, file))).toEqual([]);
  });
});
