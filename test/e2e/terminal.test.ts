import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { decodeTerminal } from '../helpers/qr.js';
import { tempDir } from '../helpers/temp.js';
import { Tmux } from '../helpers/tmux.js';

let term: Tmux | undefined;
afterEach(() => {
  term?.close();
  term = undefined;
});

describe('in a real terminal', () => {
  it('a one-off payment typed at the prompts, its QR decoded from the screen', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    term = new Tmux(`node ${BIN} deposit create`, env);
    await term.waitFor(/Amount in reais/);
    term.type('15,50', 'Enter');
    await term.waitFor(/R\$ 15,50 \(1550 cents\)/);
    await term.waitFor(/Destination Liquid address/);
    term.type(LQ, 'Enter');
    await term.waitFor(/Create this charge\?/);
    term.type('y', 'Enter');
    const screen = await term.waitFor(/\[exit 0\]/);
    const text = /PIX copy-paste:\n(.+)/.exec(screen)?.[1]?.trimEnd();
    expect(text).toMatch(/^000201/);
    // the counter view follows the copy-paste string: the code and the amount side by side
    const view = screen.slice(screen.indexOf(text!) + text!.length + 1, screen.indexOf('follow it with:'));
    expect(decodeTerminal(view, 'dark')).toBe(text);
    expect(view).toContain('Waiting for payment');
    expect(screen).toContain('Amount   R$ 15,50 (1550 cents)');
  });

  it('with default-address set, create --amount --yes asks nothing: the charge goes to it', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    term = new Tmux(
      `node ${BIN} config set default-address ${LQ} && node ${BIN} deposit create --amount 12,50 --yes --no-qr && node ${BIN} deposit list --json`,
      env,
    );
    const screen = await term.waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 0]');
    expect(screen).not.toContain('Destination Liquid address');
    expect(screen.replace(/\s+/g, '')).toContain(`"destinationAddress":"${LQ}"`);
  });

  it('Ctrl-C at a prompt exits 130 with no stack trace', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    term = new Tmux(`node ${BIN} deposit create --to ${LQ}`, env);
    await term.waitFor(/Amount in reais/);
    term.type('C-c');
    const screen = await term.waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 130]');
    expect(screen).not.toMatch(/\s+at \S+ \(/);
  });

  it('watch shows a spinner on a terminal and clears it on Ctrl-C', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    term = new Tmux(
      `id=$(node ${BIN} deposit create --amount 1 --to ${LQ} -q --no-input); node ${BIN} deposit watch $id`,
      env,
    );
    await term.waitFor(/WAITING_PAYMENT\s+\d:\d\d/);
    term.type('C-c');
    const screen = await term.waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 130]');
    expect(screen).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  });
});

describe('the prompts keep the colour rule', () => {
  /** an SGR sequence that sets a colour or an attribute (not a reset) */
  const STYLED = /\u001b\[(?:[1-9]|3[0-7]|9[0-7]|38;)[0-9;]*m/;
  const promptLine = (screen: string) => screen.split('\n').find((l) => l.includes('Amount in reais')) ?? '';

  it('on a colour terminal the ? is coloured (what the cases below take away)', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    term = new Tmux(`node ${BIN} deposit create --to ${LQ}`, env);
    await term.waitFor(/Amount in reais/);
    expect(promptLine(term.visibleWithEscapes())).toMatch(STYLED);
    term.type('C-c');
    await term.waitFor(/\[exit \d+\]/);
  });

  it.each([
    ['--no-color', '--no-color', {}],
    ['NO_COLOR', '', { NO_COLOR: '1' }],
    ['TERM=dumb', '', { TERM: 'dumb' }],
  ])('%s: the prompt is plain, its ? included', async (_name, flag, extra) => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), ...extra };
    term = new Tmux(`node ${BIN} deposit create --to ${LQ} ${flag}`, env);
    await term.waitFor(/Amount in reais/);
    const line = promptLine(term.visibleWithEscapes());
    expect(line).toMatch(/^\? Amount in reais/);
    expect(line).not.toMatch(STYLED);
    term.type('C-c');
    await term.waitFor(/\[exit \d+\]/);
  });

  it.each([
    ['--no-color', '--no-color', {}],
    ['NO_COLOR', '', { NO_COLOR: '1' }],
  ])("%s: watch's spinner is plain too", async (_name, flag, extra) => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), ...extra };
    term = new Tmux(
      `id=$(node ${BIN} deposit create --amount 1 --to ${LQ} -q --no-input); node ${BIN} deposit watch $id ${flag}`,
      env,
    );
    await term.waitFor(/WAITING_PAYMENT\s+\d:\d\d/);
    const line = term
      .visibleWithEscapes()
      .split('\n')
      .find((l) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/.test(l));
    expect(line).toMatch(/WAITING_PAYMENT/);
    expect(line).not.toMatch(STYLED);
    term.type('C-c');
    await term.waitFor(/\[exit \d+\]/);
  });

  it('stderr into a file (no terminal there): the file holds the prompt without an escape of colour', async () => {
    const dir = tempDir();
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    term = new Tmux(`node ${BIN} deposit create --to ${LQ} 2>${dir}/err.txt`, env);
    const fs = await import('node:fs');
    const read = () => (fs.existsSync(`${dir}/err.txt`) ? fs.readFileSync(`${dir}/err.txt`, 'utf8') : '');
    for (let i = 0; i < 300 && !read().includes('Amount in reais'); i++)
      await new Promise((r) => setTimeout(r, 50));
    const text = read();
    expect(text).toContain('? Amount in reais');
    expect(text).not.toMatch(STYLED);
    term.type('C-c');
    await term.waitFor(/\[exit \d+\]/);
  });
});

describe('auth login at a terminal', () => {
  it('asks for the token with hidden input and saves it privately', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    term = new Tmux(`node ${BIN} auth login --base-url https://pay.example.com --no-verify`, env);
    await term.waitFor(/Access token for https:\/\/pay\.example\.com/);
    term.type('tok_typed_at_the_prompt_1234', 'Enter');
    const screen = await term.waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 0]');
    expect(screen).not.toContain('tok_typed_at_the_prompt_1234');
    const fs = await import('node:fs');
    const config = JSON.parse(fs.readFileSync(`${env.LBRL_CONFIG_DIR}/config.json`, 'utf8'));
    expect(config.profiles.default.token).toBe('tok_typed_at_the_prompt_1234');
  });

  it('Ctrl-C at the token prompt exits 130 and saves nothing', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    term = new Tmux(`node ${BIN} auth login --base-url https://pay.example.com --no-verify`, env);
    await term.waitFor(/Access token for https:\/\/pay\.example\.com/);
    term.type('C-c');
    const screen = await term.waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 130]');
    expect(screen).not.toContain('unexpected failure');
    const fs = await import('node:fs');
    expect(fs.existsSync(`${env.LBRL_CONFIG_DIR}/config.json`)).toBe(false);
  });
});
