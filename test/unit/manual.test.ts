/**
 * The manual generated from the command definitions and the help topics (issue 32): the committed
 * docs/commands/*.md, docs/man/*.1, package.json's `man` and the generated blocks of docs/using.md and
 * docs/scripting.md are what the build would write now (regenerated here in memory, as gh's
 * gen-docs); the man pages render without a warning; `lbrl help <topic>` says what the code does;
 * and no exit code is written anywhere that EXIT does not have.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { MANIFEST } from '../../src/commands/manifest.js';
import { terminalHelp } from '../../src/commands/shared/help-text.js';
import { helpTopics } from '../../src/commands/shared/help-topics.js';
import { generatedBlocks, MAN_DIR, manualFiles, spliced } from '../../src/commands/shared/manual.js';
import { type ErrorType, EXIT, EXIT_CODES } from '../../src/errors.js';
import { runCli } from '../helpers/cli.js';
import { sourceFiles } from '../helpers/imports.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const files = manualFiles(MANIFEST, pkg.version);
const STALE = 'stale: run npm run build and commit what it writes';

describe('the generated manual', () => {
  it('is committed as the build writes it: every page, and no page of a command that is gone', () => {
    for (const file of files) expect(read(file.path), `${file.path} is ${STALE}`).toBe(file.text);
    for (const dir of ['docs/commands', MAN_DIR]) {
      const wanted = files
        .filter((f) => f.path.startsWith(`${dir}/`))
        .map((f) => f.path.slice(dir.length + 1));
      expect(fs.readdirSync(path.join(ROOT, dir)).sort()).toEqual(wanted.sort());
    }
    expect(files.map((f) => f.path)).toContain('docs/man/lbrl-deposit-create.1');
    expect(files.map((f) => f.path)).toContain('docs/commands/lbrl-help-exit-codes.md');
  });

  it('has its generated blocks in the docs pages as the build writes them', () => {
    for (const block of generatedBlocks()) {
      const page = read(block.page);
      expect(spliced(page, block.name, block.text), `${block.page} is ${STALE}`).toBe(page);
    }
  });

  it('lists every man page in package.json, which npm install -g installs, and packs them', () => {
    expect(pkg.man).toEqual(files.filter((f) => f.path.startsWith('docs/man/')).map((f) => `./${f.path}`));
    expect(pkg.files).toContain('docs/man/*.1');
  });

  it("holds a command's long help, its options and its examples", () => {
    const create = MANIFEST.find((entry) => entry.path === 'deposit create')!;
    const page = files.find((f) => f.path === 'docs/commands/lbrl-deposit-create.md')!.text;
    for (const flag of create.flags) expect(page).toContain(`\`${flag.flags}\`: ${flag.help}`);
    for (const example of create.examples ?? []) expect(page).toContain(example);
    const roff = files.find((f) => f.path === 'docs/man/lbrl-deposit-create.1')!.text;
    expect(roff).toMatch(/^\.TH LBRL\\-DEPOSIT\\-CREATE 1 /);
    expect(roff).toContain('\\fB\\-\\-amount\\fR \\fI<reais>\\fR');
  });

  it('renders as man pages without a warning (groff -ww, and man -l at 80 columns)', () => {
    const pages = files.filter((f) => f.path.startsWith('docs/man/')).map((f) => path.join(ROOT, f.path));
    const groff = spawnSync('groff', ['-ww', '-man', '-z', ...pages], { encoding: 'utf8' });
    expect({ status: groff.status, stderr: groff.stderr }).toEqual({ status: 0, stderr: '' });
    const man = spawnSync('man', ['-l', path.join(ROOT, 'docs/man/lbrl-deposit-create.1')], {
      encoding: 'utf8',
      env: { ...process.env, MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat' },
    });
    expect(man.stderr).toBe('');
    expect(man.stdout).toContain('lbrl-deposit-create - create a PIX charge');
  });
});

describe('lbrl help <topic>', () => {
  it('exit-codes: every code of EXIT, each with the error types of EXIT_CODES that end with it', async () => {
    const r = await runCli(['help', 'exit-codes']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const codes = [...r.stdout.matchAll(/^ {2}(\d+) +/gm)].map((m) => Number(m[1]));
    expect(codes).toEqual([...new Set(Object.values(EXIT))].sort((a, b) => a - b));
    const rows = r.stdout.split(/^(?= {2}\d)/m).slice(1);
    for (const [type, code] of Object.entries(EXIT_CODES) as [ErrorType, number][]) {
      const row = rows.find((text) => text.startsWith(`  ${code} `))!;
      expect(row.replace(/\s+/g, ' '), type).toMatch(new RegExp(`Error types: [a-z_, ]*\\b${type}\\b`));
    }
  });

  it('environment: every variable the program reads', async () => {
    const r = await runCli(['help', 'environment']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const source = [...sourceFiles(path.join(ROOT, 'src')), path.join(ROOT, 'bin/lbrl.js')]
      .map((file) => fs.readFileSync(file, 'utf8'))
      .join('\n');
    const read = new Set([...source.matchAll(/\benv(?:\.|\[')([A-Z][A-Z_]+)\b/g)].map((m) => m[1]!));
    read.delete('TOKEN'); // the library's doc comment: a program's own variable
    expect(read.size).toBeGreaterThan(8);
    const listed = [...r.stdout.matchAll(/^ {2}([A-Z][A-Z_]+) /gm)].map((m) => m[1]);
    expect([...read].filter((name) => !listed.includes(name))).toEqual([]);
  });

  it('json: every command that answers --json, and every error type', async () => {
    const r = await runCli(['help', 'json']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    for (const command of [
      'deposit create',
      'deposit get',
      'deposit watch',
      'deposit list',
      'deposit report',
    ]) {
      expect(r.stdout).toContain(`\n  ${command}\n`);
    }
    for (const type of Object.keys(EXIT_CODES)) expect(r.stdout).toMatch(new RegExp(`\\b${type}\\b`));
  });

  it("is listed in the program's help; a topic that does not exist is an unknown command", async () => {
    const help = await runCli(['--help']);
    for (const topic of helpTopics())
      expect(help.stdout).toMatch(new RegExp(`^ {2}${topic.name} +${topic.summary}$`, 'm'));
    const plain = await runCli(['help', 'json']);
    for (const argv of [
      ['--no-color', 'help', 'json'],
      ['help', 'json', '-q'],
      ['--profile', 'help', 'help', 'json'],
    ]) {
      expect({ argv, ...(await runCli(argv)) }).toEqual({ argv, ...plain });
    }
    const nope = await runCli(['help', 'exit-code']);
    expect(nope.code).toBe(2);
    expect(nope.stdout).toBe('');
  });

  it('every line fits 80 columns', async () => {
    for (const topic of helpTopics()) {
      const r = await runCli(['help', topic.name]);
      expect(r.stdout.split('\n').filter((line) => [...line].length > 80)).toEqual([]);
    }
  });
});

describe('long help', () => {
  it('is written for every command and group, each with an example', () => {
    const without = MANIFEST.filter((entry) => !entry.hidden && !entry.long?.trim()).map((e) => e.path);
    expect(without, 'commands without long help').toEqual([]);
    const unexampled = MANIFEST.filter((entry) => !entry.hidden && !entry.examples?.length).map(
      (e) => e.path,
    );
    expect(unexampled, 'commands without an example').toEqual([]);
  });

  it('is shown by --help under the description, wrapped at 80 columns', async () => {
    const long = MANIFEST.filter((entry) => entry.long && !entry.hidden);
    expect(long.length).toBeGreaterThan(0);
    for (const entry of long) {
      const r = await runCli([...entry.path.split(' ').filter(Boolean), '--help']);
      const shown = r.stdout.indexOf(`\n\n${terminalHelp(entry.long!)}\n\n`);
      expect(shown, entry.path).toBeGreaterThan(0);
      expect(r.stdout.replace(/\s+/g, ' ')).toContain(entry.description);
      expect(
        terminalHelp(entry.long!)
          .split('\n')
          .filter((line) => [...line].length > 80),
      ).toEqual([]);
    }
  });
});

describe('exit codes written in prose, help and examples', () => {
  it('name only codes EXIT has', () => {
    const codes = new Set<number>(Object.values(EXIT));
    const texts: [string, string][] = [
      ['README.md', read('README.md')],
      ...fs
        .readdirSync(path.join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f): [string, string] => [f, read(`docs/${f}`)]),
      ...files.map((f): [string, string] => [f.path, f.text]),
    ];
    const wrong: string[] = [];
    for (const [file, text] of texts) {
      for (const m of text.matchAll(/\bexit(?:s| code| with)? (\d+)\b/g))
        if (!codes.has(Number(m[1]))) wrong.push(`${file}: ${m[0]}`);
      for (const m of text.matchAll(/# exit codes: ([^\n]*)/g))
        for (const n of m[1]!.matchAll(/(?:^|, )(\d+) /g))
          if (!codes.has(Number(n[1]))) wrong.push(`${file}: ${n[0]}`);
    }
    expect(wrong).toEqual([]);
  });
});
