import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { runCli } from '../helpers/cli.js';
import { sandboxEnv } from '../helpers/env.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const env = () => sandboxEnv();

/** The subcommands a help page lists under "Commands:", without the implicit `help`. */
function subcommands(page: string): string[] {
  const section = /\nCommands:\n([\s\S]*?)(\n\n|$)/.exec(page)?.[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)]
    .map((m) => m[1] as string)
    .filter((n) => n !== 'help');
}

/** Every command path, found by following the program's own help from the top. */
async function allPaths(): Promise<string[][]> {
  const found: string[][] = [];
  const visit = async (p: string[]) => {
    found.push(p);
    const r = await runCli([...p, '--help']);
    for (const sub of subcommands(r.stdout)) await visit([...p, sub]);
  };
  await visit([]);
  return found;
}

describe('--help is printed by bin/lbrl.js from the pages the build wrote', () => {
  it('has a page for every command, and each is byte for byte what the program prints', async () => {
    const paths = await allPaths();
    expect(paths.length).toBeGreaterThan(15);
    const pages = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/help.json'), 'utf8'));
    const commandPages = Object.keys(pages).filter((key) => !key.startsWith('help '));
    expect(commandPages.sort()).toEqual(paths.map((p) => p.join(' ')).sort());
    for (const p of paths) {
      const program = await runCli([...p, '--help']);
      expect(program).toMatchObject({ code: 0, stderr: '' });
      for (const flag of ['--help', '-h']) {
        const bin = await runBin([...p, flag], env());
        expect({ path: p, ...bin }).toEqual({ path: p, code: 0, stdout: program.stdout, stderr: '' });
      }
    }
    // two runs of the built program per command path: time grows with the commands
  }, 60_000);

  it("lbrl help <topic> and lbrl help <path> are printed from the pages too, byte for byte the program's", async () => {
    const pages = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/help.json'), 'utf8'));
    for (const asked of [
      ['help', 'exit-codes'],
      ['help', 'environment'],
      ['help', 'json'],
      ['help', 'deposit', 'get'],
    ]) {
      const program = await runCli(asked);
      expect(program).toMatchObject({ code: 0, stderr: '' });
      expect(pages[asked.join(' ')] ?? pages[asked.slice(1).join(' ')]).toBe(program.stdout);
      expect({ asked, ...(await runBin(asked, env())) }).toEqual({
        asked,
        code: 0,
        stdout: program.stdout,
        stderr: '',
      });
    }
    const unknown = await runBin(['help', 'exit-code'], env());
    expect(unknown.code).toBe(2);
  });

  it('lbrl help <path> is byte for byte lbrl <path> --help, for every path', async () => {
    for (const p of await allPaths()) {
      const page = await runCli([...p, '--help']);
      expect({ path: p, ...(await runCli(['help', ...p])) }).toEqual({ path: p, ...page });
    }
  });

  it('bare lbrl and a bare group print their help on stdout and exit 0', async () => {
    for (const p of [[], ['deposit'], ['config']]) {
      const r = await runCli(p);
      expect(r).toMatchObject({ code: 0, stderr: '', stdout: (await runCli([...p, '--help'])).stdout });
    }
  });

  it("an unknown option points to its own command's help", async () => {
    const r = await runCli(['deposit', 'create', '--bogus']);
    expect(r).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "error: unknown option '--bogus' (see lbrl deposit create --help)\n",
    });
  });

  it('wraps at 80 columns on any terminal, so the pages hold for a wide one too', async () => {
    const pages = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/help.json'), 'utf8'));
    const stdout = process.stdout as { isTTY?: boolean; columns?: number };
    const saved = { isTTY: stdout.isTTY, columns: stdout.columns };
    Object.assign(stdout, { isTTY: true, columns: 200 });
    try {
      const wide = await runCli(['deposit', 'create', '--help'], { stdoutTTY: true });
      expect(wide.stdout).toBe(pages['deposit create']);
    } finally {
      Object.assign(stdout, saved);
    }
  });

  it('anything else with --help still goes to the program', async () => {
    // options before the path, an argument, an unknown command: not in the pages
    const r = await runBin(['--json', 'deposit', 'get', '--help'], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: lbrl deposit get [options] [id]');
    // an unknown command is named, as gh does, not answered with the help above it and exit 0
    const u = await runBin(['depost', '--help'], env());
    expect(u).toMatchObject({
      code: 2,
      stdout: '',
      stderr: "error: unknown command 'depost' (Did you mean deposit?) (see lbrl --help)\n",
    });
  });

  it('lbrl help <unknown path> names the unknown word, exit 2, as <unknown path> --help does', async () => {
    for (const [p, message] of [
      [['nope'], "error: unknown command 'nope' (see lbrl --help)\n"],
      [
        ['deposit', 'crate'],
        "error: unknown command 'crate' (Did you mean create?) (see lbrl deposit --help)\n",
      ],
      [['config', 'nope'], "error: unknown command 'nope' (see lbrl config --help)\n"],
    ] as const) {
      const help = await runCli(['help', ...p]);
      expect({ p, ...help }).toMatchObject({ p, code: 2, stdout: '', stderr: message });
      expect(await runCli([...p, '--help'])).toEqual(help);
      expect(await runCli(['--profile', 'default', ...p, '-h'])).toEqual(help);
    }
    // an argument before --help is no command: the command's help
    const get = await runCli(['deposit', 'get', 'abc', '--help']);
    expect(get.code).toBe(0);
    expect(get.stdout).toContain('Usage: lbrl deposit get [options] [id]');
  });
});
