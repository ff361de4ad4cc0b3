import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/bin.js';
import { tempDir } from '../helpers/cli.js';
import { LQ } from '../helpers/fixtures.js';

/** Ask bash what it would complete, with the real script and the built lbrl on PATH. */
function complete(script: string, line: string, env: Record<string, string>): string[] {
  const bin = tempDir();
  fs.writeFileSync(path.join(bin, 'lbrl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
    mode: 0o755,
  });
  const words = line.split(' ');
  const program = [
    script,
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    '_lbrl',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const out = execFileSync('bash', ['-c', program], {
    env: { ...env, PATH: `${bin}:${process.env.PATH}` },
    encoding: 'utf8',
  });
  return out.split('\n').filter(Boolean).sort();
}

describe('lbrl completion', () => {
  const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };

  it('prints scripts that parse, for bash, zsh and fish', async () => {
    for (const shell of ['bash', 'zsh']) {
      const r = await runBin(['completion', shell], env);
      expect(r.code).toBe(0);
      const file = path.join(tempDir(), `c.${shell}`);
      fs.writeFileSync(file, r.stdout);
      execFileSync('bash', ['-n', file]);
    }
    const fish = await runBin(['completion', 'fish'], env);
    expect(fish.stdout).toContain(
      "complete -c lbrl -n __fish_use_subcommand -a 'deposit auth config sandbox completion'",
    );
    const bad = await runBin(['completion', 'tcsh'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('error: unknown shell "tcsh": expected bash, zsh or fish\n');
  });

  it('completes commands, options, profile names and recent deposit ids', async () => {
    const script = (await runBin(['completion', 'bash'], env)).stdout;
    expect(complete(script, 'lbrl de', env)).toEqual(['deposit']);
    expect(complete(script, 'lbrl deposit ', env)).toEqual(
      expect.arrayContaining(['create', 'get', 'watch', 'list']),
    );
    expect(complete(script, 'lbrl deposit create --amo', env)).toEqual(['--amount', '--amount-cents']);
    expect(complete(script, 'lbrl config set net', env)).toEqual(['network']);
    expect(complete(script, 'lbrl get --qr-style ', env)).toEqual(['dark', 'light']);

    await runBin(['config', 'set', 'network', 'liquid', '--profile', 'work'], env);
    expect(complete(script, 'lbrl deposit get --profile w', env)).toEqual(['work']);

    const created = await runBin(['deposit', 'create', '--amount', '1', '--to', LQ, '-q'], env);
    const id = created.stdout.trim();
    expect(complete(script, `lbrl deposit watch ${id.slice(0, 4)}`, env)).toEqual([id]);
    expect(complete(script, 'lbrl deposit get --qr ', env)).toContain(id);
  });
});
