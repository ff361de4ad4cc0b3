/**
 * The README is the newcomer's page (issue 32): at most 250 lines, the two set-up commands first
 * (test/smoke/demo.test.ts runs the first as package.json writes it), and every link of it and of
 * docs/*.md leads to a file that exists, a heading of it included.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { docPages } from '../helpers/doc-examples.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces as -. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

describe('the README', () => {
  it('is at most 250 lines and starts with the two set-up commands', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    const first = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(first.split('\n').map((line) => line.split('#')[0]!.trim())).toEqual([
      'npm ci && npm run demo',
      'npm ci && npm test',
      '',
    ]);
  });

  it('and every docs page link to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of docPages(ROOT)) {
      const text = read(page).replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/.test(link)) continue;
        const [file, hash] = link.split('#');
        const target = file ? path.join(path.dirname(page), file) : page;
        if (!fs.existsSync(path.join(ROOT, target))) {
          broken.push(`${page}: ${link}`);
          continue;
        }
        if (hash && target.endsWith('.md')) {
          const headings = [...read(target).matchAll(/^#+ (.*)$/gm)].map((h) => anchor(h[1]!));
          if (!headings.includes(hash)) broken.push(`${page}: ${link}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
