/**
 * docs/architecture.md's two walk-throughs (the amount, flag to request and back; the settlement
 * txid, answer to verdict) stay true: every file they name exists and is named once, and every
 * function, type or constant they name is declared in src/ under that name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../helpers/imports.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const doc = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
const walks = doc.slice(doc.indexOf('## Two values walked through'), doc.indexOf('## Where things go'));
const code = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

describe('the walk-throughs of docs/architecture.md', () => {
  it('are there, both of them', () => {
    expect(walks).toContain('**The amount, from flag to request and back.**');
    expect(walks).toContain('**The settlement txid, from answer to verdict.**');
  });

  it('name each file once, and every file they name exists', () => {
    const files = code(walks).filter((text) => /^[\w/.-]+\.ts$/.test(text));
    expect(files.length).toBeGreaterThan(20);
    const missing = files.filter((file) => !fs.existsSync(path.join(ROOT, 'src', file)));
    expect(missing).toEqual([]);
    const twice = files.filter((file, index) => files.indexOf(file) !== index);
    expect(twice).toEqual([]);
  });

  it('name only functions, types and constants src/ declares', () => {
    const source = sourceFiles(path.join(ROOT, 'src'))
      .map((file) => fs.readFileSync(file, 'utf8'))
      .join('\n');
    const names = code(walks)
      .map((text) => text.replace(/\.\.\..*$/, ''))
      .flatMap((text) => text.split('.'))
      .filter((text) => /^[A-Za-z_]\w*$/.test(text) && /[a-z][A-Z]|^[A-Z][A-Z_]+$|^[a-z]+[A-Z]/.test(text));
    expect(names.length).toBeGreaterThan(25);
    const declared = (name: string) =>
      new RegExp(
        `(function\\*?|const|let|class|interface|type|enum)\\s+${name}\\b|\\b${name}\\s*[(:]|async\\s+${name}\\b`,
      ).test(source);
    expect(names.filter((name) => !declared(name))).toEqual([]);
  });
});
