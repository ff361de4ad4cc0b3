/**
 * A config file in the forms other programs leave it: a byte-order mark in front (Notepad writes
 * one), and a file far larger than any config (a log written into it, a disk image copied over it).
 * The first is read and written back without its mark; the second is refused in one line that
 * names the file and the limit, before it is read whole. A value edited in with terminal escape
 * sequences is shown escaped by every command that prints it, never acted on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { TOKEN } from '../helpers/fixtures.js';

let dir: string;
let file: string;
const env = () => ({ LBRL_CONFIG_DIR: dir });

beforeEach(() => {
  dir = tempDir();
  file = path.join(dir, 'config.json');
});

const BOM = '\uFEFF';

describe('a config file that starts with a byte-order mark', () => {
  it('is read: config get prints the value', async () => {
    fs.writeFileSync(file, `${BOM}{"profiles":{"default":{"network":"liquidtestnet"}}}`, { mode: 0o600 });
    const r = await runCli(['config', 'get', 'network'], { env: env() });
    expect(r.stderr).toBe(`from: profile (profile default in ${file})\n`);
    expect(r.stdout).toBe('liquidtestnet\n');
    expect(r.code).toBe(0);
  });

  it('is written back without the mark, its settings kept', async () => {
    fs.writeFileSync(file, `${BOM}{"profiles":{"default":{"network":"liquidtestnet"}}}\r\n`, { mode: 0o600 });
    const r = await runCli(['config', 'set', 'shop-name', 'Padaria'], { env: env() });
    expect(r.code).toBe(0);
    const bytes = fs.readFileSync(file);
    expect(bytes[0]).toBe('{'.charCodeAt(0));
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({
      profiles: { default: { network: 'liquidtestnet', 'shop-name': 'Padaria' } },
    });
  });

  it('its token is still kept out of what is printed (auth status), and the profile is used', async () => {
    fs.writeFileSync(
      file,
      `${BOM}${JSON.stringify({ profiles: { default: { 'base-url': 'https://pay.example.com', token: TOKEN } } })}`,
      { mode: 0o600 },
    );
    const r = await runCli(['auth', 'status'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toContain('https://pay.example.com');
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    expect(r.stdout + r.stderr).not.toContain('damaged');
  });
});

describe('a config file larger than any config', () => {
  const limit = 1024 * 1024;
  const oversized = (bytes: number) => {
    // valid JSON all the same: the size alone refuses it
    const head = '{"profiles":{"default":{"network":"liquid"}},"pad":"';
    fs.writeFileSync(file, `${head}${'x'.repeat(bytes - head.length - 2)}"}`, { mode: 0o600 });
    expect(fs.statSync(file).size).toBe(bytes);
  };

  it.each([[['config', 'get', 'network']], [['config', 'list']], [['deposit', 'list']]])(
    '%j: one line naming the file and the limit, exit 2',
    async (args) => {
      oversized(limit + 1);
      const r = await runCli(args, { env: env() });
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `error: the config file ${file} is ${limit + 1} bytes, larger than the ${limit} bytes (1 MB) a config file may be; it was not read: fix or remove it\n`,
      );
      expect(r.code).toBe(2);
    },
  );

  it('a file of exactly the limit is still read', async () => {
    oversized(limit);
    const r = await runCli(['config', 'get', 'network'], { env: env() });
    expect(r.stdout).toBe('liquid\n');
    expect(r.code).toBe(0);
  });

  it('config set refuses it too, and leaves it as it was', async () => {
    oversized(3 * limit);
    const before = fs.readFileSync(file);
    const r = await runCli(['config', 'set', 'network', 'liquidtestnet'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the config file ${file} is ${3 * limit} bytes`);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });
});

describe('a config file with terminal escape sequences edited into it', () => {
  const ESC = '\u001b';
  const planted = {
    'base-url': `https://a.example${ESC}[2J/x`,
    network: `liquid${ESC}]0;pwned\u0007`,
    'shop-name': 'Loja\u202eevil',
    'esplora-url': `https://e.example${ESC}[31m`,
  };
  beforeEach(() => {
    fs.writeFileSync(file, JSON.stringify({ profiles: { default: { ...planted, token: TOKEN } } }), {
      mode: 0o600,
    });
  });
  const acting = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

  it.each([
    [
      ['config', 'list'],
      ['base-url=https://a.example\\x1b[2J/x', 'network=liquid\\x1b]0;pwned\\x07'],
    ],
    [['config', 'get', 'esplora-url'], ['https://e.example\\x1b[31m']],
    [['config', 'get', 'shop-name'], ['Loja\\u202eevil']],
    [
      ['auth', 'status'],
      ['Base URL  https://a.example\\x1b[2J/x', 'Network   liquid\\x1b]0;pwned\\x07'],
    ],
  ])('%j shows each value escaped, nothing a terminal acts on', async (args, shown) => {
    const r = await runCli(args, { env: env() });
    expect(r.stdout).not.toMatch(acting);
    expect(r.stderr).not.toMatch(acting);
    for (const line of shown) expect(r.stdout).toContain(line);
  });

  it('--json keeps the value as written (JSON escapes it for the program that reads it)', async () => {
    const r = await runCli(['config', 'get', 'esplora-url', '--json'], { env: env() });
    expect(JSON.parse(r.stdout).value).toBe(planted['esplora-url']);
    expect(r.stdout).not.toMatch(acting);
  });
});
