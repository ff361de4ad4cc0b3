/** A profile that does not exist: one error for every command that reads one; only creators accept a new name. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { ID, LQ } from '../helpers/fixtures.js';

function setup(): string {
  const dir = tempDir();
  fs.writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({ profiles: { prod: { network: 'liquid' }, staging: { network: 'liquidtestnet' } } }),
    { mode: 0o600 },
  );
  return dir;
}

const MESSAGE = (name: string, from = '--profile', guess = '.') =>
  `error: no profile named "${name}" (from ${from}); the profiles are: default, prod, staging${guess} Create it with lbrl config set <key> <value> --profile ${name}, or lbrl auth login --profile ${name}\n`;

describe('a profile that does not exist', () => {
  it.each([
    ['deposit list'],
    ['config list'],
    ['config get network'],
    ['config unset network'],
    [`deposit create --amount 10`],
    [`deposit create --amount 10 --to ${LQ} --yes`],
    [`deposit get ${ID}`],
    [`deposit watch ${ID}`],
    ['auth status'],
    ['auth logout'],
    [`sandbox pay ${ID}`],
    [`sandbox fail ${ID}`],
    [`deposit verify ${ID}`],
    ['deposit watch --pending'],
    ['config set-blinding-key --clear'],
    ['config set-blinding-key'],
  ])('%s: exit 2, the same error, nothing written', async (command) => {
    const dir = setup();
    const before = fs.readFileSync(path.join(dir, 'config.json'), 'utf8');
    const r = await runCli([...command.split(' '), '--profile', 'prdo'], { env: { LBRL_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(MESSAGE('prdo', '--profile', '; did you mean "prod"?'));
    expect(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).toBe(before);
  });

  it('from LBRL_PROFILE, with no close name', async () => {
    const r = await runCli(['deposit', 'list'], { env: { LBRL_CONFIG_DIR: setup(), LBRL_PROFILE: 'work' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(MESSAGE('work', 'LBRL_PROFILE', '.'));
  });

  it('the default profile always exists, even with no config file', async () => {
    const dir = tempDir();
    expect((await runCli(['config', 'list'], { env: { LBRL_CONFIG_DIR: dir } })).code).toBe(0);
    expect(
      (await runCli(['deposit', 'list', '--profile', 'default'], { env: { LBRL_CONFIG_DIR: dir } })).code,
    ).toBe(0);
  });

  it('config set and auth login create a new profile', async () => {
    const dir = setup();
    const set = await runCli(['config', 'set', 'network', 'liquidtestnet', '--profile', 'fresh'], {
      env: { LBRL_CONFIG_DIR: dir },
    });
    expect(set.code).toBe(0);
    expect(
      (await runCli(['config', 'get', 'network', '--profile', 'fresh'], { env: { LBRL_CONFIG_DIR: dir } }))
        .stdout,
    ).toBe('liquidtestnet\n');
    const login = await runCli(
      [
        'auth',
        'login',
        '--base-url',
        'https://pay.example.com',
        '--with-token',
        '--no-verify',
        '--profile',
        'other',
      ],
      { env: { LBRL_CONFIG_DIR: dir }, stdin: 'tok_abcdefghijklmnop' },
    );
    expect(login.code).toBe(0);
    const names = Object.keys(JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).profiles);
    expect(names.sort()).toEqual(['fresh', 'other', 'prod', 'staging']);
  });
});
