import { EventEmitter } from 'node:events';
import { Chalk } from 'chalk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type CounterLayout, CounterView, planCounter } from '../../src/ui/counter.js';
import { bigText, bigTextWidth } from '../../src/ui/counter-font.js';
import { qrMatrix } from '../../src/ui/counter-qr.js';
import { percentText, splitShares, splitText } from '../../src/ui/render.js';
import { backgroundFromAnswer, queryBackground } from '../../src/ui/terminal-background.js';
import { localTime, timeZoneOf } from '../../src/ui/zone-time.js';
import { brCode, getAnswer, ID } from '../helpers/fixtures.js';
import { decodeTerminal } from '../helpers/qr.js';

/** A BR Code as long as the sandbox's (173 characters): a 45-module code at level L. */
const SANDBOX_LIKE =
  '00020101021226820014br.gov.bcb.pix2560pix.sandbox.lbrl.invalid/v2/6dbeba2e6a56486da9a7ea0e152a1943520400005303986540535.005802BR5912LBRL SANDBOX6009SAO PAULO62070503***6304F6DB';

const plain = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

describe('the amount in large type', () => {
  it('is 3 text rows at scale 1 and 5 at scale 2, block characters only, every digit its own shape', () => {
    expect(bigText('R$ 35,00')).toHaveLength(3);
    expect(bigText('R$ 35,00', 2)).toHaveLength(5);
    expect(bigText('R$ 1.500,00', 2).join('')).toMatch(/^[█▀▄ ]+$/);
    const digits = '0123456789'.split('').map((d) => bigText(d).join('\n'));
    expect(new Set(digits).size).toBe(10);
    // the widest amount fits the text beside the code on an 80-column terminal, without R$
    expect(bigTextWidth('6.000,00')).toBeLessThanOrEqual(30);
  });
});

describe('the layout', () => {
  it('fits the terminal: side by side from 80x24 up, the largest quiet zone and font that fit', async () => {
    const n = (await qrMatrix(SANDBOX_LIKE)).length;
    expect(n).toBe(45);
    const at = (columns: number, rows: number) => planCounter({ columns, rows }, n, 3500);
    const small = at(80, 24) as CounterLayout;
    expect(small).toMatchObject({ kind: 'side', quiet: 1, scale: 1, amountText: 'R$ 35,00' });
    expect(small.width).toBeLessThanOrEqual(80);
    expect(small.height).toBeLessThanOrEqual(24);
    expect(at(100, 30)).toMatchObject({ kind: 'side', quiet: 4 });
    expect(at(160, 50)).toMatchObject({ kind: 'side', quiet: 4, scale: 2, amountText: 'R$ 35,00' });
    // narrow and tall: the amount under the code
    expect(at(50, 40)).toMatchObject({ kind: 'stacked' });
    // a large amount drops its R$ to a line of its own before the font shrinks
    expect(planCounter({ columns: 80, rows: 24 }, n, 600000)).toMatchObject({ amountText: '6.000,00' });
  });

  it.each([
    [79, 23],
    [40, 10],
    [47, 10],
  ])('%ix%i cannot hold the code: says so, with what it needs', async (columns, rows) => {
    const n = (await qrMatrix(SANDBOX_LIKE)).length;
    const r = planCounter({ columns, rows }, n, 3500);
    expect(r).toEqual({
      tooSmall: `the terminal (${columns}x${rows}) is too small for the QR code, which needs at least 74x24 (or 47x31 with the amount under it)`,
    });
  });

  it('what it says it needs is enough, and a plain create counts the two lines after the view', async () => {
    const n = (await qrMatrix(SANDBOX_LIKE)).length;
    expect(planCounter({ columns: 74, rows: 24 }, n, 3500)).toMatchObject({ kind: 'side' });
    expect(planCounter({ columns: 47, rows: 31 }, n, 3500)).toMatchObject({ kind: 'stacked' });
    // 80x24 holds the view followed, not with a line and the prompt under it; it says 80x24
    expect(planCounter({ columns: 80, rows: 24 }, n, 3500, 2)).toEqual({
      tooSmall:
        'the terminal (80x24) is too small for the QR code and the 2 lines after it, which needs at least 74x26 (or 47x33 with the amount under it)',
    });
    expect(planCounter({ columns: 74, rows: 26 }, n, 3500, 2)).toMatchObject({ kind: 'side' });
  });
});

function view(columns: number, rows: number, style: 'dark' | 'light', text = SANDBOX_LIKE, ref?: string) {
  const clock = { now: Date.parse('2026-11-22T09:14:40Z') };
  let out = '';
  let tick: (() => void) | undefined;
  return qrMatrix(text).then((modules) => {
    const layout = planCounter({ columns, rows }, modules.length, 3500) as CounterLayout;
    const v = new CounterView({
      layout,
      modules,
      style,
      deposit: {
        id: ID,
        amountInCents: 3500,
        sandbox: true,
        status: 'WAITING_PAYMENT',
        ...(ref !== undefined ? { ref } : {}),
      },
      colors: new Chalk({ level: 1 }),
      timeZone: 'America/Sao_Paulo',
      now: () => clock.now,
      write: (t) => (out += t),
      every: (_ms, run) => {
        tick = run;
        return () => (tick = undefined);
      },
    });
    return { v, layout, clock, out: () => out, tick: () => tick?.() };
  });
}

describe('the counter view: the reference', () => {
  it.each([
    [100, 30],
    [50, 40],
  ])(
    'at %ix%i it names the order, as text, within the width; the code still decodes',
    async (columns, rows) => {
      const ref = `mesa 12 \u001b[2J ${'x'.repeat(120)}`;
      const { v, layout } = await view(columns, rows, 'dark', SANDBOX_LIKE, ref);
      const frame = v.frame().map(plain);
      expect(frame).toHaveLength(layout.height);
      expect(frame.join('\n')).toContain('ref mesa 12 \\x1b[2J x');
      expect(frame.join('\n')).not.toContain('\u001b');
      for (const line of frame) expect([...line].length).toBeLessThanOrEqual(columns);
    },
  );
});

describe('the counter view', () => {
  it.each([
    [80, 24, 'dark'],
    [80, 24, 'light'],
    [100, 30, 'dark'],
    [160, 50, 'light'],
    [50, 40, 'dark'],
  ] as const)(
    'at %ix%i (%s) every row fits and the code decodes from the frame',
    async (columns, rows, style) => {
      const { v, layout } = await view(columns, rows, style);
      const frame = v.frame().map(plain);
      expect(frame).toHaveLength(layout.height);
      expect(frame.length).toBeLessThanOrEqual(rows);
      for (const line of frame) expect([...line].length).toBeLessThanOrEqual(columns);
      expect(decodeTerminal(frame.join('\n'), style)).toBe(SANDBOX_LIKE);
      // a rendering for the other background does not pass for this one
      expect(decodeTerminal(frame.join('\n'), style === 'dark' ? 'light' : 'dark')).toBeUndefined();
    },
  );

  it('ticks every second from the clock, starts with text, and announces the paid moment with a bell', async () => {
    const { v, clock, out, tick } = await view(80, 24, 'dark');
    v.start();
    expect(plain(out())).toContain('⠋ Waiting for payment  0:00');
    v.change(getAnswer({ id: ID, status: 'WAITING_PAYMENT' }) as never, {}, undefined);
    clock.now += 1000;
    tick();
    expect(plain(out())).toContain('Waiting for payment  0:01');
    // redrawn in place: back to the first row, never scrolling
    expect(out()).toContain('\r\u001b[23A');
    clock.now += 5000;
    v.change(
      getAnswer({ id: ID, status: 'PIX_CONFIRMED', confirmedAt: '2026-11-22T09:14:46Z' }) as never,
      {},
      'WAITING_PAYMENT',
    );
    const last = plain(v.frame().join('\n'));
    expect(last).toContain('PAID  R$ 35,00');
    expect(last).toContain('at 2026-11-22 06:14:46 -03:00');
    expect(out()).toContain('\u0007');
    clock.now += 3000;
    v.change(getAnswer({ id: ID, status: 'FINALIZED' }) as never, {}, 'PIX_CONFIRMED');
    v.stop();
    expect(plain(v.frame().join('\n'))).toMatch(/FINALIZED {2}0:09[\s\S]*06:14:49 {2}FINALIZED/);
    expect(out().endsWith('\n')).toBe(true);
  });
});

describe('a terminal resized during the watch', () => {
  it('draws again in the layout that fits, says so once when none does, and comes back', async () => {
    let resized: ((size: { columns: number; rows: number }) => void) | undefined;
    const modules = await qrMatrix(SANDBOX_LIKE);
    let out = '';
    const v = new CounterView({
      layout: planCounter({ columns: 160, rows: 50 }, modules.length, 3500) as CounterLayout,
      modules,
      style: 'dark',
      deposit: { id: ID, amountInCents: 3500, sandbox: false, status: 'WAITING_PAYMENT' },
      colors: new Chalk({ level: 0 }),
      now: () => 0,
      write: (t) => (out += t),
      every: () => () => {},
      resizes: (run) => {
        resized = run;
        return () => (resized = undefined);
      },
    });
    v.start();
    resized!({ columns: 80, rows: 24 });
    const after = out.slice(out.lastIndexOf('\u001b[2J\u001b[H') + 7).replace(/\u001b\[2?K/g, '');
    expect(after.split('\n').length).toBeLessThanOrEqual(24);
    expect(decodeTerminal(after, 'dark')).toBe(SANDBOX_LIKE);
    out = '';
    resized!({ columns: 40, rows: 10 });
    resized!({ columns: 41, rows: 10 });
    expect(out).toBe(
      '\u001b[2J\u001b[Hthe terminal (40x10) is too small for the QR code, which needs at least 74x24 (or 47x31 with the amount under it); enlarge it to see the code again\n',
    );
    v.change(getAnswer({ id: ID, status: 'PIX_CONFIRMED' }) as never, {}, 'WAITING_PAYMENT');
    expect(out).toBe(
      '\u001b[2J\u001b[Hthe terminal (40x10) is too small for the QR code, which needs at least 74x24 (or 47x31 with the amount under it); enlarge it to see the code again\n\u0007',
    );
    resized!({ columns: 100, rows: 30 });
    expect(
      decodeTerminal(out.slice(out.lastIndexOf('\u001b[H') + 3).replace(/\u001b\[2?K/g, ''), 'dark'),
    ).toBe(SANDBOX_LIKE);
    expect(out).toContain('PAID  R$ 35,00');
    v.stop();
    expect(resized).toBeUndefined();
  });
});

describe('a terminal resized to no size (0 columns or rows)', () => {
  it('draws nothing more until it has a size again; the end is one plain line', async () => {
    let resized: ((size: { columns: number; rows: number }) => void) | undefined;
    const modules = await qrMatrix(SANDBOX_LIKE);
    let out = '';
    const v = new CounterView({
      layout: planCounter({ columns: 100, rows: 30 }, modules.length, 3500) as CounterLayout,
      modules,
      style: 'dark',
      deposit: { id: ID, amountInCents: 3500, sandbox: false, status: 'WAITING_PAYMENT' },
      colors: new Chalk({ level: 0 }),
      now: () => 0,
      write: (t) => (out += t),
      every: () => () => {},
      resizes: (run) => {
        resized = run;
        return () => (resized = undefined);
      },
    });
    v.start();
    resized!({ columns: 0, rows: 0 });
    out = '';
    for (let i = 0; i < 100; i++) v.tick();
    v.change(getAnswer({ id: ID, status: 'PIX_CONFIRMED' }) as never, {}, 'WAITING_PAYMENT');
    expect(out).not.toMatch(/\u001b\[\d*A/);
    v.stop();
    expect(out.endsWith('PIX_CONFIRMED\n')).toBe(true);
  });
});

describe('the terminal background (OSC 11)', () => {
  afterEach(() => vi.useRealTimers());

  function tty(answer?: string) {
    const input = Object.assign(new EventEmitter(), {
      isTTY: true,
      isRaw: false,
      modes: [] as boolean[],
      setRawMode(mode: boolean) {
        this.modes.push(mode);
        this.isRaw = mode;
      },
      resume() {},
      pause() {},
    });
    const written: string[] = [];
    const output = {
      isTTY: true,
      write: (s: string) => {
        written.push(s);
        if (answer !== undefined) queueMicrotask(() => input.emit('data', Buffer.from(answer, 'latin1')));
      },
    };
    return { input, output, written };
  }

  it.each([
    ['\u001b]11;rgb:ffff/ffff/ffff\u0007\u001b[?62;22c', 'light'],
    ['\u001b]11;rgb:1e1e/1e1e/2e2e\u001b\\\u001b[?1;2c', 'dark'],
    ['\u001b]11;rgb:fd/f6/e3\u0007', 'light'],
    ['\u001b[?1;2c', undefined],
  ] as const)('reads %j as %s, and gives stdin back as it was', async (answer, style) => {
    const t = tty(answer);
    expect(await queryBackground(t.input as never, t.output, 10_000)).toBe(style);
    expect(t.written).toEqual(['\u001b]11;?\u0007\u001b[c']);
    expect(t.input.modes).toEqual([true, false]);
    expect(t.input.listenerCount('data')).toBe(0);
  });

  it('a terminal that never answers: undefined after the time-out, raw mode restored', async () => {
    vi.useFakeTimers();
    const t = tty();
    const asked = queryBackground(t.input as never, t.output, 150);
    await vi.advanceTimersByTimeAsync(149);
    expect(t.input.modes).toEqual([true]);
    await vi.advanceTimersByTimeAsync(1);
    expect(await asked).toBeUndefined();
    expect(t.input.modes).toEqual([true, false]);
  });

  it('asks nothing when stdin or stdout is not a terminal', async () => {
    const t = tty('\u001b]11;rgb:ffff/ffff/ffff\u0007');
    t.input.isTTY = false;
    expect(await queryBackground(t.input as never, t.output)).toBeUndefined();
    expect(t.written).toEqual([]);
    expect(backgroundFromAnswer('rgb:ffff/ffff/ffff')).toBeUndefined();
  });
});

describe('times and splits for people', () => {
  it('local time to the second with its offset, in the zone TZ names', () => {
    expect(localTime('2026-11-22T09:14:48.628Z', timeZoneOf({ TZ: 'America/Sao_Paulo' }))).toBe(
      '2026-11-22 06:14:48 -03:00',
    );
    expect(localTime('2026-11-22T09:14:48Z', timeZoneOf({ TZ: ':UTC' }))).toBe('2026-11-22 09:14:48 +00:00');
    expect(localTime('2026-11-22T09:14:48Z', 'Asia/Kolkata')).toBe('2026-11-22 14:44:48 +05:30');
    expect(timeZoneOf({ TZ: 'Not/AZone' })).toBeUndefined();
    expect(localTime('not a date')).toBe('not a date');
  });

  it('one way of writing a percentage, and shares in exact cents that add up to the net', () => {
    expect([0.03, 0.0299, 1, 0.0001, 0.02995].map(percentText)).toEqual([
      '3.00%',
      '2.99%',
      '100.00%',
      '0.01%',
      '2.995%',
    ]);
    expect(splitShares(3465n, 299)).toEqual({ split: 103n, destination: 3362n });
    for (const [net, bp] of [
      [1n, 1],
      [599_999n, 9_999],
      [12_345n, 10_000],
    ] as const) {
      const s = splitShares(net, bp);
      expect(s.split + s.destination).toBe(net);
      expect(s.split).toBe((net * BigInt(bp)) / 10_000n);
    }
    expect(splitText(0.03, 'VJL', 34.65)).toBe(
      '3.00% of net to VJL: R$ 1,03 (the rest, R$ 33,62, to the destination)',
    );
    expect(brCode(100)).toMatch(/^000201/);
  });
});

describe("docs/counter-and-display.md's capture of the counter view", () => {
  it('is what lbrl draws now: 80x24, a code that decodes, the settlement under it as lbrl says it', async () => {
    const fs = await import('node:fs');
    const page = fs.readFileSync(new URL('../../docs/counter-and-display.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('## At the counter'));
    const block = /```\n([\s\S]*?)```/.exec(section)![1]!.replace(/\n$/, '').split('\n');
    const view = block.slice(0, 24);
    expect(view.every((l) => [...l].length <= 80)).toBe(true);
    const decoded = decodeTerminal(view.map((l) => [...l].slice(0, 47).join('')).join('\n'), 'dark');
    expect(decoded).toMatch(/^000201.*6304[0-9A-F]{4}$/);
    const after = block.slice(24);
    expect(after[0]).toMatch(/^Paid {6}R\$ 35,00 at 2026-\d\d-\d\d \d\d:\d\d:\d\d -03:00$/);
    const { settlementLines } = await import('../../src/ui/watch-view.js');
    const txid = /^Txid {6}([0-9a-f]{64})$/.exec(after[1]!)![1]!;
    const settled = getAnswer({ status: 'FINALIZED', settlement: { liquidTxid: txid } } as never);
    expect(after.slice(1, 3)).toEqual(settlementLines(settled as never, { sandbox: true }));
    expect(after[3]).toMatch(/^deposit [0-9a-f-]{36} FINALIZED$/);
  });
});

/**
 * The screen a terminal shows after these bytes, for the few controls the view writes: carriage
 * return, newline (a tty turns it into CR LF), cursor up, erase in line (to its end, or whole),
 * colours (no width). A control cut short at the end is not yet acted on.
 */
function screenAfter(bytes: string, rows: number): string {
  const grid: string[][] = Array.from({ length: rows }, () => []);
  let row = 0;
  let col = 0;
  const chars = [...bytes];
  for (let at = 0; at < chars.length; at++) {
    const char = chars[at]!;
    if (char === '\u001b') {
      const control = /^\u001b\[([0-9;]*)([A-Za-z])/.exec(chars.slice(at, at + 16).join(''));
      if (!control) break;
      const [whole, arg, command] = control;
      if (command === 'A') row = Math.max(0, row - Number(arg || 1));
      if (command === 'K') grid[row]!.length = arg === '2' ? 0 : Math.min(grid[row]!.length, col);
      at += [...whole!].length - 1;
    } else if (char === '\r') col = 0;
    else if (char === '\n') {
      col = 0;
      row = Math.min(rows - 1, row + 1);
    } else grid[row]![col++] = char;
  }
  return grid
    .map((line) =>
      Array.from(line, (cell) => cell ?? ' ')
        .join('')
        .trimEnd(),
    )
    .join('\n');
}

describe('a frame the terminal shows half drawn (it reads the bytes in pieces)', () => {
  it('shows each row old or new, never blank: the code decodes wherever the frame is cut', async () => {
    const modules = await qrMatrix(SANDBOX_LIKE);
    const writes: string[] = [];
    const v = new CounterView({
      layout: planCounter({ columns: 80, rows: 24 }, modules.length, 3500) as CounterLayout,
      modules,
      style: 'dark',
      deposit: { id: ID, amountInCents: 3500, sandbox: false, status: 'WAITING_PAYMENT' },
      colors: new Chalk({ level: 1 }),
      now: () => 0,
      write: (t) => writes.push(t),
      every: () => () => {},
      resizes: () => () => {},
    });
    v.start();
    v.change(getAnswer({ id: ID, status: 'PIX_CONFIRMED' }) as never, {}, 'WAITING_PAYMENT');
    v.stop();
    const paid = writes.findIndex((w) => w.includes('PAID'));
    const before = writes.slice(0, paid);
    const frame = writes[paid]!;
    expect(plain(screenAfter(before.join('') + frame, 24))).toContain('PAID  R$ 35,00');
    let cuts = 0;
    const step = Math.max(1, Math.floor(frame.length / 120));
    for (let cut = 1; cut < frame.length; cut += step) {
      const screen = plain(screenAfter(before.join('') + frame.slice(0, cut), 24));
      expect(decodeTerminal(screen, 'dark'), `cut at byte ${cut}:\n${screen}`).toBe(SANDBOX_LIKE);
      cuts += 1;
    }
    expect(cuts).toBeGreaterThanOrEqual(120);
  });
});
