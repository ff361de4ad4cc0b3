/**
 * Every example of the README and docs/*.md that shows a command and its output (a fenced block
 * with `$ ` lines) is run here as the page writes it, in process against the embedded sandbox, and
 * what lbrl prints must be what the page shows, with the values that differ from run to run (ids,
 * txids, loopback ports) bound as docs/development.md ("Examples in the docs") says. An edited
 * example is run as edited. A block that cannot run here is marked `<!-- example not run: why -->`:
 * they are counted and named, and must stay few.
 */

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { docPages, type Example, examplesOf, type NotRun, runExample } from '../helpers/doc-examples.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const examples: Example[] = [];
const notRun: NotRun[] = [];
for (const page of docPages(ROOT)) {
  const found = examplesOf(page, fs.readFileSync(path.join(ROOT, page), 'utf8'));
  examples.push(...found.examples);
  notRun.push(...found.notRun);
}

/** The example an `after=<name>` example continues, run first in the same directories. */
function preludeOf(example: Example): Example[] {
  const name = example.settings.after;
  if (name === undefined) return [];
  const first = examples.find((e) => e.settings.name === name);
  if (!first) throw new Error(`${example.where}: after=${name}, and no example is named so`);
  return [...preludeOf(first), first];
}

describe('the examples of the docs', () => {
  it('are found, and the few that are not run are marked and named', () => {
    const commands = examples.reduce((n, e) => n + e.steps.length, 0);
    // the harness's report: how many examples it ran, and which it did not, and why
    console.info(
      `docs examples: ${examples.length} run (${commands} commands); ${notRun.length} not run:\n${notRun
        .map((n) => `  ${n.where}: ${n.reason}`)
        .join('\n')}`,
    );
    expect(examples.length).toBeGreaterThanOrEqual(4);
    expect(notRun.length).toBeLessThanOrEqual(3);
  });

  for (const example of examples) {
    it(`${example.where}: $ ${example.steps[0]!.command}`, { timeout: 120_000 }, async () => {
      // the whole session at once, so that a difference is seen in its place
      const steps = await runExample(example, preludeOf(example));
      // what it printed, for the one who writes or fixes an example (docs/development.md)
      const out = process.env.LBRL_EXAMPLES_PRINTED;
      if (out) {
        const printed = steps.map((s) => `$ ${s.command}${s.code ? `  (exit ${s.code})` : ''}\n${s.printed}`);
        fs.appendFileSync(out, `== ${example.where}\n${printed.join('')}`);
      }
      const transcript = (
        text: (s: (typeof steps)[number]) => string,
        code: (s: (typeof steps)[number]) => number,
      ) => steps.map((s) => `$ ${s.command}${code(s) ? `  (exit ${code(s)})` : ''}\n${text(s)}`).join('');
      expect(
        transcript(
          (s) => s.printed,
          (s) => s.code,
        ),
      ).toBe(
        transcript(
          (s) => s.expected,
          (s) => s.exit,
        ),
      );
    });
  }
});
