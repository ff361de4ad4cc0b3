/**
 * The customer's screen in a real browser (Debian's chromium, driven by playwright-core): the page
 * as a phone and a tablet show it, the QR code read back from its pixels, "Pago!" once paid, and
 * not one request beyond the display's own origin. One browser for the whole file.
 *
 * LBRL_UPDATE_SCREENSHOTS=1 writes the screenshots of docs/counter-and-display.md (docs/display-*.png) from this run.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, spawnBin, waitForOutput } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { jsQR } from '../helpers/qr.js';
import { tempDir } from '../helpers/temp.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function findChromium(): string | undefined {
  for (const name of [process.env.LBRL_CHROMIUM, 'chromium', 'chromium-browser']) {
    if (!name) continue;
    try {
      const found = execFileSync('sh', ['-c', `command -v "$0"`, name], { encoding: 'utf8' }).trim();
      if (found) return found;
    } catch {
      // not this one
    }
  }
  return undefined;
}

const chromium = findChromium();
if (!chromium) {
  console.warn(
    '\n!!!!!!!! SKIPPED: the display browser tests need chromium (apt-get install chromium), not found on PATH !!!!!!!!\n',
  );
}

const PHONE = { width: 390, height: 844 };
const TABLET = { width: 1024, height: 768 };

/** The QR code in a screenshot, decoded from its pixels. */
function decodeScreenshot(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

describe.skipIf(!chromium)('the customer display in chromium', () => {
  const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
  let display: ChildProcess;
  let url: string;
  let origin: string;
  /** the origins of the displays this file started: the only ones a page may ask anything of */
  const origins = new Set<string>();
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];

  const startDisplay = async (args: string[] = []) => {
    const child = spawnBin(['display', ...args], env);
    const out = await waitForOutput(child, /\n/);
    return { child, url: out.split('\n')[0]! };
  };
  const create = async (amount: string) => {
    const r = await runBin(
      ['deposit', 'create', '--amount', amount, '--to', LQ, '--yes', '--no-input', '--json'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { id: string; qrCodeText: string };
  };
  const status = async (id: string) =>
    (JSON.parse((await runBin(['deposit', 'get', id, '--json'], env)).stdout) as { status: string }).status;
  const shot = async (name?: string) => {
    const png = await page.screenshot();
    if (name && process.env.LBRL_UPDATE_SCREENSHOTS === '1')
      fs.writeFileSync(path.join(ROOT, 'docs', name), png);
    return png;
  };

  beforeAll(async () => {
    for (const [key, value] of [
      ['sandbox-autopay', 'off'],
      ['shop-name', 'Padaria Central'],
    ] as const)
      expect((await runBin(['config', 'set', key, value], env)).code).toBe(0);
    ({ child: display, url } = await startDisplay());
    origin = new URL(url).origin;
    origins.add(origin);
    const { chromium: launcher } = await import('playwright-core');
    browser = await launcher.launch({ executablePath: chromium!, args: ['--no-sandbox'] });
    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1 });
    // every request the page makes is seen here; anything not of the display's origin is refused
    await context.route('**/*', (route) => {
      requests.push(route.request().url());
      return origins.has(new URL(route.request().url()).origin) ? route.continue() : route.abort();
    });
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    if (display?.exitCode === null) display.kill('SIGKILL');
  });

  it('idle: the shop name; a charge created in the terminal shows within a second, its QR read from the pixels', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?k=[A-Za-z0-9_-]{22}$/);
    await page.goto(url);
    await page.waitForSelector('body.idle');
    expect(await page.textContent('.shop')).toBe('Padaria Central');

    const deposit = await create('1500');
    const created = Date.now();
    await page.waitForSelector('body.waiting .qr svg', { timeout: 1500 });
    expect(Date.now() - created).toBeLessThan(1500);
    expect(await page.textContent('.amount')).toBe('R$ 1.500,00');
    expect(await page.inputValue('textarea')).toBe(deposit.qrCodeText);
    expect(await page.textContent('#clock .left')).toMatch(/^Expira em 2[34]:\d\d:\d\d$/);
    expect(await page.textContent('#clock .waited')).toMatch(/^Aguardando há 0:0\d$/);
    expect(decodeScreenshot(await shot('display-waiting.png'))).toBe(deposit.qrCodeText);

    // readable from a metre: the amount in large type, the QR code large and whole on the screen
    const box = (await page.locator('.qr').boundingBox())!;
    expect(box.width).toBeGreaterThanOrEqual(300);
    expect(box.y + box.height).toBeLessThanOrEqual(PHONE.height);
    const size = await page.$eval('.amount', (e) => Number.parseFloat(getComputedStyle(e).fontSize));
    expect(size).toBeGreaterThanOrEqual(44);
  });

  // the largest charge (R$ 6.000,00) is as wide as an amount gets: on a 4:3 tablet it once ran off the screen
  it.each([
    ['27,90', 'R$ 27,90'],
    ['6000', 'R$ 6.000,00'],
  ])(
    '%s on a phone in landscape and a tablet both ways: everything on screen, the QR readable',
    async (amount, shown) => {
      const deposit = await create(amount);
      await page.waitForFunction((text) => document.querySelector('.amount')?.textContent === text, shown);
      for (const [viewport, name] of [
        [{ width: PHONE.height, height: PHONE.width }, undefined],
        [TABLET, amount === '27,90' ? 'display-waiting-tablet.png' : undefined],
        [{ width: TABLET.height, height: TABLET.width }, undefined],
        [{ width: 800, height: 600 }, undefined],
        [{ width: 1280, height: 800 }, undefined],
      ] as const) {
        await page.setViewportSize(viewport);
        const png = await shot(name);
        expect(decodeScreenshot(png), `${viewport.width}x${viewport.height}`).toBe(deposit.qrCodeText);
        const size = await page.$eval('.amount', (e) => Number.parseFloat(getComputedStyle(e).fontSize));
        expect(size).toBeGreaterThanOrEqual(44);
        for (const selector of ['.qr', '.amount', 'button', '#clock']) {
          const b = (await page.locator(selector).boundingBox())!;
          expect(b.x, `${selector} at ${viewport.width}x${viewport.height}`).toBeGreaterThanOrEqual(0);
          expect(b.y + b.height, `${selector} at ${viewport.width}x${viewport.height}`).toBeLessThanOrEqual(
            viewport.height,
          );
          expect(b.x + b.width, `${selector} at ${viewport.width}x${viewport.height}`).toBeLessThanOrEqual(
            viewport.width,
          );
        }
        expect((await page.locator('.qr').boundingBox())!.width).toBeGreaterThanOrEqual(
          Math.min(viewport.width, viewport.height) * 0.45,
        );
      }
    },
  );

  it('paid in the sandbox: "Pago!" full screen within 2 s of FINALIZED (as soon as the payment is seen)', async () => {
    await page.setViewportSize(PHONE);
    const deposit = await create('1500');
    await page.waitForFunction(
      (text) => (document.querySelector('textarea') as HTMLTextAreaElement | null)?.value === text,
      deposit.qrCodeText,
    );
    expect((await runBin(['sandbox', 'pay', deposit.id], env)).code).toBe(0);
    await page.waitForSelector('body.paid', { timeout: 4000 });
    const paidSeen = Date.now();
    let finalizedAt = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 40 && finalizedAt === Number.POSITIVE_INFINITY; i++) {
      if ((await status(deposit.id)) === 'FINALIZED') finalizedAt = Date.now();
      else await new Promise((r) => setTimeout(r, 150));
    }
    expect(finalizedAt).toBeLessThan(Number.POSITIVE_INFINITY);
    expect(paidSeen - finalizedAt).toBeLessThanOrEqual(2000);
    expect(await page.textContent('.big')).toBe('Pago!');
    expect(await page.textContent('.mid')).toBe('R$ 1.500,00');
    expect(await page.$('.qr')).toBeNull();
    const bg = await page.$eval('body', (e) => getComputedStyle(e).backgroundColor);
    expect(bg).toBe('rgb(10, 125, 50)');
    await shot('display-paid.png');
  });

  it('failed and expired charges say so plainly', async () => {
    const failing = await create('10');
    await page.waitForFunction(() => document.querySelector('.amount')?.textContent === 'R$ 10,00');
    expect((await runBin(['sandbox', 'fail', failing.id], env)).code).toBe(0);
    await page.waitForSelector('body.failed', { timeout: 4000 });
    expect(await page.textContent('.mid')).toBe('Pagamento não concluído');

    const expiring = await create('11');
    await page.waitForFunction(() => document.querySelector('.amount')?.textContent === 'R$ 11,00');
    // the local expiry is a record another lbrl process appends to the history
    fs.appendFileSync(
      path.join(env.LBRL_CONFIG_DIR, 'history.ndjson'),
      `${JSON.stringify({ v: 1, type: 'expired', id: expiring.id, at: new Date().toISOString() })}\n`,
    );
    await page.waitForSelector('body.expired', { timeout: 1500 });
    expect(await page.textContent('.mid')).toBe('Cobrança expirada');
    expect(await page.textContent('.amount')).toBe('R$ 11,00');
  });

  it('survives a reload and a restart of the display: same address, the page reconnects by itself', async () => {
    const deposit = await create('42');
    await page.waitForFunction(() => document.querySelector('.amount')?.textContent === 'R$ 42,00');
    await page.reload();
    await page.waitForFunction(() => document.querySelector('.amount')?.textContent === 'R$ 42,00');

    display.kill('SIGINT');
    await new Promise((r) => display.once('exit', r));
    await page.waitForSelector('#net:not([hidden])', { timeout: 5000 });
    const again = await startDisplay();
    display = again.child;
    expect(again.url).toBe(url);
    await page.waitForSelector('#net[hidden]', { state: 'attached', timeout: 5000 });
    expect(await page.inputValue('textarea')).toBe(deposit.qrCodeText);
    expect(decodeScreenshot(await shot())).toBe(deposit.qrCodeText);
  });

  it('made no request beyond its own origin, and refuses one without the key', async () => {
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((r) => new URL(r).origin !== origin)).toEqual([]);
    expect(
      requests.every((r) => new URL(r).searchParams.get('k') === new URL(url).searchParams.get('k')),
    ).toBe(true);
    const denied = await fetch(`${origin}/`);
    expect(denied.status).toBe(403);
    expect(await denied.text()).not.toMatch(/R\$|Padaria|0002/);
    const events = await fetch(`${origin}/events?k=${'A'.repeat(22)}`);
    expect(events.status).toBe(403);
  });

  it('--lang en, on another profile', async () => {
    const en = { ...env, LBRL_PROFILE: 'en' };
    expect((await runBin(['config', 'set', 'sandbox-autopay', 'off'], en)).code).toBe(0);
    const child = spawnBin(['display', '--lang', 'en'], en);
    try {
      const enUrl = (await waitForOutput(child, /\n/)).split('\n')[0]!;
      expect(enUrl).not.toBe(url);
      origins.add(new URL(enUrl).origin);
      const other = await page.context().newPage();
      await other.goto(enUrl);
      const r = await runBin(
        ['deposit', 'create', '--amount', '5', '--to', LQ, '--yes', '--no-input', '-q'],
        en,
      );
      await other.waitForSelector('body.waiting', { timeout: 1500 });
      expect(await other.textContent('.hint')).toBe("Point your bank app's camera at the QR code");
      expect((await runBin(['sandbox', 'pay', r.stdout.trim()], en)).code).toBe(0);
      await other.waitForSelector('body.paid', { timeout: 4000 });
      expect(await other.textContent('.big')).toBe('Paid!');
      // the other profile's display never showed this profile's charge
      expect(await page.textContent('.amount')).toBe('R$ 42,00');
      await other.close();
    } finally {
      child.kill('SIGKILL');
    }
  });
});
