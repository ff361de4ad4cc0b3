/**
 * The customer's screen through a shopkeeper's day, as the user lived it: the display in one
 * process, the counter in a real terminal (tmux), the page read as a browser gets it (its HTML,
 * rendered with the screen of the moment). A charge the shop gave up on (Ctrl-C, SIGTERM, a
 * time-out) leaves the screen; `lbrl display clear` clears it; a display started later never opens
 * on it; settings changed while it runs show within seconds; displays started at the same instant
 * leave one; every unspecified --host prints a URL a tablet can open; the URL stays on an 80x24
 * screen.
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, runBin, spawnBin, waitForOutput } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';
import { Tmux } from '../helpers/tmux.js';

const children: ChildProcess[] = [];
let term: Tmux | undefined;
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  term?.close();
  term = undefined;
});

async function startDisplay(env: Record<string, string>, args: string[] = ['-q']) {
  const child = spawnBin(['display', ...args], env);
  children.push(child);
  const stdout = await waitForOutput(child, /\n/);
  return { child, url: stdout.split('\n')[0]! };
}

/** The page as a browser opening it now gets it: its phase and text. */
async function page(url: string): Promise<string> {
  return (await fetch(url)).text();
}

async function until(what: () => Promise<boolean>, timeoutMs = 8000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const offered = (html: string) => /R\$ 8,40/.test(html);

async function shop() {
  const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
  expect((await runBin(['config', 'set', 'sandbox-autopay', 'off'], env)).code).toBe(0);
  expect((await runBin(['config', 'set', 'shop-name', 'Padaria Central'], env)).code).toBe(0);
  return env;
}

describe("the customer's screen through the day", () => {
  it.each([
    ['Ctrl-C', 'C-c', '', 130],
    ['a --timeout', '', ' --timeout 3', 124],
  ])(
    'create --watch --display stopped by %s: the screen goes back to the shop name; a display started later does not offer it',
    async (_how, key, flags, code) => {
      const env = await shop();
      const display = await startDisplay(env);
      term = new Tmux(
        `node ${BIN} deposit create --amount 8,40 --to ${LQ} --watch --display --yes${flags}`,
        env,
        { width: 100, height: 50 },
      );
      await term.waitFor(/Waiting for payment/);
      await until(async () => offered(await page(display.url)));
      if (key) term.type(key);
      const screen = await term.ended();
      expect(screen).toContain(`[exit ${code}]`);
      expect(screen).toContain('withdrawn from the customer display');
      await until(async () => !offered(await page(display.url)), 3000);
      expect(await page(display.url)).toContain('Padaria Central');
      display.child.kill('SIGINT');
      await new Promise((r) => display.child.once('exit', r));
      const fresh = await startDisplay(env);
      await new Promise((r) => setTimeout(r, 1000));
      expect(offered(await page(fresh.url))).toBe(false);
    },
    40_000,
  );

  it('create --watch --display stopped by SIGTERM leaves the screen too', async () => {
    const env = await shop();
    const display = await startDisplay(env);
    const create = spawnBin(
      ['deposit', 'create', '--amount', '8,40', '--to', LQ, '--watch', '--display', '--yes', '-q'],
      env,
    );
    children.push(create);
    await until(async () => offered(await page(display.url)));
    create.kill('SIGTERM');
    const code = await new Promise((r) => create.once('exit', r));
    expect(code).toBe(130);
    await until(async () => !offered(await page(display.url)), 3000);
  });

  it('lbrl display clear: the screen shows the shop name at once, and the next charge shows', async () => {
    const env = await shop();
    const display = await startDisplay(env);
    expect(
      (await runBin(['deposit', 'create', '--amount', '8,40', '--to', LQ, '--yes', '-q'], env)).code,
    ).toBe(0);
    await until(async () => offered(await page(display.url)));
    const cleared = await runBin(['display', 'clear'], env);
    expect(cleared.code).toBe(0);
    expect(cleared.stderr).toContain(
      "the customer display of profile default is clear: it shows the shop's name until the next charge",
    );
    await until(async () => !offered(await page(display.url)), 3000);
    expect(
      (await runBin(['deposit', 'create', '--amount', '9,10', '--to', LQ, '--yes', '-q'], env)).code,
    ).toBe(0);
    await until(async () => /R\$ 9,10/.test(await page(display.url)));
  });

  it('settings changed while it runs show within seconds (shop-name here; expire-after on the injected clock in test/unit/display.test.ts)', async () => {
    const env = await shop();
    const display = await startDisplay(env);
    expect((await runBin(['config', 'set', 'shop-name', 'Bar do Zé'], env)).code).toBe(0);
    await until(async () => (await page(display.url)).includes('Bar do Zé'), 5000);
  });

  it('create --display against a standing sandbox (LBRL_BASE_URL/LBRL_TOKEN) reaches a display started without them', async () => {
    const env = await shop();
    const serve = spawnBin(['sandbox', 'serve'], { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() });
    children.push(serve);
    const out = await waitForOutput(serve, /LBRL_TOKEN=\S+\n/);
    const display = await startDisplay(env);
    const standing = {
      ...env,
      LBRL_BASE_URL: /LBRL_BASE_URL=(\S+)/.exec(out)![1]!,
      LBRL_TOKEN: /LBRL_TOKEN=(\S+)/.exec(out)![1]!,
    };
    for (const quiet of [[], ['-q']]) {
      const created = await runBin(
        ['deposit', 'create', '--amount', '8,40', '--to', LQ, '--yes', '--display', '--no-qr', ...quiet],
        standing,
      );
      expect(created.code, created.stderr).toBe(0);
      expect(created.stderr).not.toContain('did not take');
    }
    await until(async () => offered(await page(display.url)));
  });

  it('several displays started at the same instant: exactly one runs, the others say which', async () => {
    const env = await shop();
    const started = Array.from({ length: 4 }, () => spawnBin(['display', '-q'], env));
    children.push(...started);
    const outcomes = await Promise.all(
      started.map(
        (child) =>
          new Promise<string>((resolve) => {
            let err = '';
            child.stderr?.on('data', (d: Buffer) => {
              err += d.toString();
            });
            child.stdout?.on('data', () => resolve('running'));
            child.once('exit', (code) => resolve(`exit ${code}: ${err}`));
          }),
      ),
    );
    expect(outcomes.filter((o) => o === 'running')).toHaveLength(1);
    for (const o of outcomes.filter((x) => x !== 'running'))
      expect(o).toMatch(/^exit 2: error: a display of profile default is already running \(process \d+/);
  });

  it.each(['0', '::0', '0:0:0:0:0:0:0:0', '0.0.0.0', '::'])(
    '--host %s prints a URL a tablet can open',
    async (host) => {
      const env = await shop();
      const display = await startDisplay(env, ['-q', '--host', host]);
      const url = new URL(display.url);
      expect(url.hostname).not.toMatch(/^(0|\[::0?\]|\[0:0:0:0:0:0:0:0\]|0\.0\.0\.0|\[::\])$/);
      // it answers there
      expect((await fetch(display.url)).status).toBe(200);
    },
    20_000,
  );

  it('on an 80x24 terminal the URL stays on screen under its QR code', async () => {
    const env = await shop();
    term = new Tmux(`node ${BIN} display --host 0.0.0.0 --qr-style dark`, env, { width: 80, height: 24 });
    const screen = await term.waitFor(/Ctrl-C to stop[\s\S]*\nhttp:\/\/\S+\/\?k=\S+\s*$/, 15_000, {
      visible: true,
    });
    const url = /(http:\/\/\S+\/\?k=\S+)\s*$/.exec(screen)![1]!;
    expect((await fetch(url.replace(/\/\/[^/:]+:/, '//127.0.0.1:'))).status).toBe(200);
    term.type('C-c');
    const ended = await term.ended();
    expect(ended).toContain('[exit 130]');
    expect(ended).not.toContain('trying again');
  });
});
