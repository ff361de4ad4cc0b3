import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, codeCacheEnv, runBin } from '../helpers/bin.js';
import { sandboxEnv } from '../helpers/env.js';
import { LQ } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';
import { Tmux } from '../helpers/tmux.js';

/** A directory with `lbrl` in it: the built one, or a stand-in script. */
function binDir(
  body = `XDG_CACHE_HOME='${codeCacheEnv().XDG_CACHE_HOME}' exec "${process.execPath}" "${BIN}" "$@"`,
): string {
  const bin = tempDir();
  fs.writeFileSync(path.join(bin, 'lbrl'), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return bin;
}

/** Ask bash what it would complete, with the real script and the built lbrl on PATH. */
function complete(script: string, line: string, env: Record<string, string>, bin = binDir()): string[] {
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
  const env = sandboxEnv();

  it('prints scripts that parse, for bash, zsh and fish', async () => {
    for (const shell of ['bash', 'zsh']) {
      const r = await runBin(['completion', shell], env);
      expect(r.code).toBe(0);
      const file = path.join(tempDir(), `c.${shell}`);
      fs.writeFileSync(file, r.stdout);
      execFileSync('bash', ['-n', file]);
    }
    const fish = await runBin(['completion', 'fish'], env);
    expect(fish.code).toBe(0);
    expect(fishComplete(fish.stdout, 'lbrl ', env)).toEqual([
      'auth',
      'completion',
      'config',
      'deposit',
      'display',
      'ledger',
      'listen',
      'sandbox',
    ]);
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

/** Ask fish what it would complete, with the real script. */
function fishComplete(script: string, line: string, env: Record<string, string>, bin = binDir()): string[] {
  const file = path.join(tempDir(), 'lbrl.fish');
  fs.writeFileSync(file, script);
  const out = execFileSync(
    'fish',
    ['--no-config', '-c', `source ${file}; complete -C ${JSON.stringify(line)}`],
    {
      env: { ...env, PATH: `${bin}:${process.env.PATH}` },
      encoding: 'utf8',
    },
  );
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t')[0]!)
    .sort();
}

/**
 * What zsh lists on the screen after Tab, in a real terminal. Tab is bound to a widget that runs
 * zsh's own Tab widget (expand-or-complete), redraws, and then sets the terminal's title: zle runs
 * one key after another, so once the title says `tab N`, the N-th Tab's completion (lbrl's answer
 * included) has run and its list is on the screen, and the test reads it without sleeping.
 */
async function zshComplete(script: string, line: string, env: Record<string, string>, bin = binDir()) {
  const file = path.join(tempDir(), 'lbrl.zsh');
  fs.writeFileSync(file, script);
  const t = new Tmux('zsh -f', { ...env, PATH: `${bin}:${process.env.PATH}` }, { width: 160, height: 40 });
  try {
    t.type(
      `PS1='> '; autoload -Uz compinit && compinit -u; source ${file}; ` +
        `_tab() { zle expand-or-complete; zle -R; printf '\\e]2;tab%s\\a' $((++tabs)) >/dev/tty }; ` +
        `zle -N _tab; bindkey '^I' _tab; echo READY`,
      'Enter',
    );
    await t.waitFor(/^READY$/m);
    t.type(line, 'Tab');
    await t.waitForTitle('tab1');
    t.type('Tab');
    await t.waitForTitle('tab2');
    // what is below the line being typed: the list zsh offers
    const lines = t.screen().split('\n');
    const at = lines.findIndex((l) => l.startsWith(`> ${line.trim()}`));
    return {
      typed: lines[at] ?? '',
      offered: lines
        .slice(at + 1)
        .join('\n')
        .trim(),
    };
  } finally {
    t.close();
  }
}

const SHELL_CASES: Array<[string, string[]]> = [
  ['lbrl config set network ', ['elementsregtest', 'liquid', 'liquidtestnet']],
  ['lbrl config set qr-style ', ['dark', 'light']],
  ['lbrl deposit create --timeout ', []],
  ['lbrl deposit watch --timeout ', []],
  ['lbrl deposit create --to ', []],
  ['lbrl completion ', ['bash', 'fish', 'zsh']],
  ['lbrl config set verify ', ['off', 'on']],
  ['lbrl config set esplora-url ', []],
  ['lbrl sandbox pay --settle ', ['address', 'amount', 'asset', 'none', 'ok']],
  ['lbrl display --lang ', ['en', 'pt']],
  ['lbrl config set shop-name ', []],
  // `help` takes a command path, as `lbrl <path> --help` does, or a help topic
  [
    'lbrl help ',
    [
      'auth',
      'completion',
      'config',
      'deposit',
      'display',
      'environment',
      'exit-codes',
      'json',
      'ledger',
      'listen',
      'sandbox',
    ],
  ],
  ['lbrl help ex', ['exit-codes']],
  ['lbrl sandbox trigger ', ['abandoned', 'failed', 'paid', 'paid-slowly', 'wrong-settlement']],
  ['lbrl help deposit ', ['create', 'export', 'get', 'list', 'reconcile', 'report', 'verify', 'watch']],
  ['lbrl help config set', ['set', 'set-blinding-key']],
  ['lbrl help deposit create ', []],
];

/** `--flag=value`: bash splits it at the `=` (COMP_WORDBREAKS), fish hands it over whole. */
const INLINE_CASES: Array<[string, string, string[]]> = [
  ['lbrl sandbox pay --settle = am', 'lbrl sandbox pay --settle=am', ['amount']],
  ['lbrl deposit create --qr-style =', 'lbrl deposit create --qr-style=', ['dark', 'light']],
  ['lbrl config set --profile = d', 'lbrl config set --profile=d', ['default']],
  ['lbrl deposit watch --timeout =', 'lbrl deposit watch --timeout=', []],
];

describe('completion in real shells: exactly the values each position takes', () => {
  const env = sandboxEnv();

  it('bash and fish', async () => {
    const bash = (await runBin(['completion', 'bash'], env)).stdout;
    const fish = (await runBin(['completion', 'fish'], env)).stdout;
    for (const [line, want] of SHELL_CASES) {
      expect({ line, got: complete(bash, line, env) }).toEqual({ line, got: want });
      expect({ line, got: fishComplete(fish, line, env) }).toEqual({ line, got: want });
    }
    for (const [bashLine, fishLine, want] of INLINE_CASES) {
      expect({ bashLine, got: complete(bash, bashLine, env) }).toEqual({ bashLine, got: want });
      const flag = fishLine.split(' ').at(-1)!.split('=')[0]!;
      expect({ fishLine, got: fishComplete(fish, fishLine, env) }).toEqual({
        fishLine,
        got: want.map((v) => `${flag}=${v}`),
      });
    }
    const created = await runBin(['deposit', 'create', '--amount', '1', '--to', LQ, '-q'], env);
    const id = created.stdout.trim();
    expect(complete(bash, 'lbrl deposit get ', env)).toEqual([id]);
    expect(fishComplete(fish, 'lbrl deposit get ', env)).toEqual([id]);
    // a shell and an lbrl per case, one after another: about 8 s alone, over 20 on a loaded machine
  }, 60_000);

  it('zsh', async () => {
    const zsh = (await runBin(['completion', 'zsh'], env)).stdout;
    const network = await zshComplete(zsh, 'lbrl config set network ', env);
    expect(network.offered.split(/\s+/).sort()).toEqual(['elementsregtest', 'liquid', 'liquidtestnet']);
    const style = await zshComplete(zsh, 'lbrl config set qr-style ', env);
    expect(style.offered.split(/\s+/).sort()).toEqual(['dark', 'light']);
    const help = await zshComplete(zsh, 'lbrl help deposit ', env);
    expect(help.offered.split(/\s+/).sort()).toEqual([
      'create',
      'export',
      'get',
      'list',
      'reconcile',
      'report',
      'verify',
      'watch',
    ]);
    const inline = await zshComplete(zsh, 'lbrl sandbox pay --settle=a', env);
    expect(inline.offered.split(/\s+/).sort()).toEqual([
      '--settle=address',
      '--settle=amount',
      '--settle=asset',
    ]);
    const timeout = await zshComplete(zsh, 'lbrl deposit watch --timeout ', env);
    expect(timeout).toEqual({ typed: '> lbrl deposit watch --timeout', offered: '' });
  });

  it('never evaluates what it offers, in bash, zsh and fish', async () => {
    const mark = path.join(tempDir(), 'pwned');
    const evil = [`$(touch ${mark})`, `\`touch ${mark}\``, `x;touch ${mark}`];
    // a stand-in lbrl that answers with hostile values
    const bin = binDir(`printf '%s\\n' ':values' ${evil.map((e) => `'${e}'`).join(' ')}`);
    const bash = (await runBin(['completion', 'bash'], env)).stdout;
    const fish = (await runBin(['completion', 'fish'], env)).stdout;
    const zsh = (await runBin(['completion', 'zsh'], env)).stdout;
    expect(complete(bash, 'lbrl deposit get ', env, bin)).toHaveLength(3);
    expect(fishComplete(fish, 'lbrl deposit get ', env, bin).sort()).toEqual([...evil].sort());
    await zshComplete(zsh, 'lbrl deposit get ', env, bin);
    expect(fs.existsSync(mark)).toBe(false);

    // and the real lbrl with a hostile profile name and history id: refused as data, never run
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({ profiles: { [`$(touch ${mark})`]: {}, work: {} } }),
    );
    fs.writeFileSync(
      path.join(dir, 'history.ndjson'),
      `${JSON.stringify({ v: 1, type: 'created', id: `\`touch ${mark}\``, profile: 'default', baseUrl: 'sandbox', at: '2026-11-22T10:00:00.000Z', amountInCents: 100, destinationAddress: LQ, splitAddress: null, splitFee: null, status: 'WAITING_PAYMENT' })}\n`,
    );
    const hostile = { HOME: tempDir(), LBRL_CONFIG_DIR: dir };
    expect(complete(bash, 'lbrl --profile ', hostile)).toEqual(['default', 'work']);
    expect(complete(bash, 'lbrl deposit get ', hostile)).toEqual([]);
    expect(fishComplete(fish, 'lbrl --profile ', hostile)).toEqual(['default', 'work']);
    await zshComplete(zsh, 'lbrl deposit get ', hostile);
    expect(fs.existsSync(mark)).toBe(false);
  });
});
