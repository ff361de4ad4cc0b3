import { afterEach, describe, expect, it } from 'vitest';
import type { StoredRecord } from '../../src/store/history-records.js';
import { runCli } from '../helpers/cli.js';
import { id as dayId, dayTradeInProcess } from '../helpers/day-trade.js';
import { liveEnv } from '../helpers/env.js';
import { LQ, VJL } from '../helpers/fixtures.js';
import { decodeTerminal, zbarScreen } from '../helpers/qr.js';
import { SANDBOX_TOKEN, startTestSandbox } from '../helpers/sandbox.js';

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers) await c();
  closers = [];
});

async function sandbox(autopaySeconds: number | null = 2) {
  const sb = await startTestSandbox({ autopaySeconds });
  closers.push(() => sb.close());
  return { sb, env: liveEnv(sb.baseUrl, SANDBOX_TOKEN, { TZ: 'America/Sao_Paulo' }) };
}

const SGR = /\u001b\[[0-9;]*m/g;

/** The screen the last drawing left: the rows after the last move back to the view's first row. */
function lastFrame(stdout: string): string[] {
  const at = stdout.lastIndexOf('\r\u001b[');
  const rest = stdout.slice(at).replace(/^\r\u001b\[\d+A/, '');
  return rest
    .replace(SGR, '')
    .split('\n')
    .map((l) => l.replace(/^\u001b\[2K/, '').replace(/\u001b\[K$/, ''));
}

const copyPaste = (stdout: string) => /PIX copy-paste:\n(.+)\n/.exec(stdout.replace(SGR, ''))?.[1];

const terminal = (columns: number, rows: number) => ({
  stdoutTTY: true,
  stderrTTY: true,
  columns,
  rows,
});

describe('create --watch at the counter', () => {
  it.each([
    [80, 24, 'dark'],
    [100, 30, 'light'],
    [160, 50, 'dark'],
  ] as const)(
    'at %ix%i (%s): the code decodes from the screen, the paid moment and the end are told',
    async (columns, rows, style) => {
      const { sb, env } = await sandbox(2);
      const r = await runCli(
        [
          'deposit',
          'create',
          '--amount',
          '35',
          '--to',
          LQ,
          '--watch',
          '--interval',
          '1',
          '--qr-style',
          style,
        ],
        { env, clock: sb.clock, ...terminal(columns, rows) },
      );
      expect(r.stderr).not.toContain('error');
      expect(r.code).toBe(0);
      const text = copyPaste(r.stdout);
      expect(text).toMatch(/^000201/);
      const view = lastFrame(r.stdout).slice(0, -4);
      expect(view.length).toBeLessThanOrEqual(rows);
      for (const line of view) expect([...line].length).toBeLessThanOrEqual(columns);
      expect(decodeTerminal(view.join('\n'), style)).toBe(text);
      const screen = view.join('\n');
      expect(screen).toContain('PAID  R$ 35,00');
      expect(screen).toContain('at 2026-11-22 07:00:02 -03:00');
      expect(r.stdout).toContain('\u0007');
      // under the view: the settlement whole, then how it ended (stderr)
      const after = lastFrame(r.stdout).slice(-4).join('\n');
      expect(after).toMatch(
        /^Paid {6}R\$ 35,00 at 2026-11-22 07:00:02 -03:00\nTxid {6}[0-9a-f]{64}\nExplorer {2}https:\/\/blockstream\.info\/liquid\/tx\/[0-9a-f]{64}\n/,
      );
      expect(r.stderr).toMatch(/deposit [0-9a-f-]{36} FINALIZED\n$/);
      // the style was chosen: the terminal was not asked
      expect(r.stdout).not.toContain('\u001b]11;?');
    },
  );

  // the code's size depends on the id in it (digits pack tighter): 41 to 45 modules, so 60x20
  // is too small for any of them (79x23 holds a 41-module code, not a 45: see the unit tests)
  it('60x20 cannot hold the code: says so with --qr-png as the way out, prints the rest, still watches', async () => {
    const { sb, env } = await sandbox(2);
    const r = await runCli(['deposit', 'create', '--amount', '35', '--to', LQ, '--watch'], {
      env,
      clock: sb.clock,
      ...terminal(60, 20),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /the terminal \(60x20\) is too small for the QR code, which needs at least 7\dx2\d \(or 4\dx\d\d with the amount under it\): enlarge it, or write the code to a file with --qr-png <file>/,
    );
    expect(r.stdout).not.toContain('█');
    expect(copyPaste(r.stdout)).toMatch(/^000201/);
    expect(r.stdout).toMatch(/Paid {6}R\$ 35,00 at 2026-11-22 07:00:02 -03:00/);
  });

  // 74x24 holds a 45-module code followed, not with a line and the prompt under it; a 41 either way
  it('a plain create where only a followed view fits: says so with the real size and --watch as a way out', async () => {
    const { sb, env } = await sandbox(null);
    const r = await runCli(['deposit', 'create', '--amount', '35', '--to', LQ, '--qr-style', 'dark'], {
      env,
      clock: sb.clock,
      ...terminal(74, 24),
    });
    expect(r.code).toBe(0);
    if (r.stdout.includes('█')) {
      expect(r.stderr).not.toContain('too small');
      // the still view, read as a camera would (zbarimg), the big amount beside it and all
      // the view's rows: the code at their left, in block characters (the lines around it are text)
      const view = r.stdout
        .replace(SGR, '')
        .split('\n')
        .map((l) => l.replace(/\u001b\[K$/, ''))
        .filter((l) => /^[█▀▄ ]{20}/.test(l) && /[█▀▄]/.test(l));
      expect(view.length).toBeLessThanOrEqual(22);
      expect(zbarScreen(view.join('\n'), 'dark')).toBe(copyPaste(r.stdout));
    } else {
      expect(r.stderr).toContain(
        'the terminal (74x24) is too small for the QR code and the 2 lines after it, which needs at least 74x26 (or 47x33 with the amount under it): enlarge it, add --watch (followed, the view may take every row), or write the code to a file with --qr-png <file>',
      );
    }
    expect(r.stderr).toMatch(/follow it with: lbrl deposit watch [0-9a-f-]{36}\n$/);
  });

  it('TERM=dumb: no redrawing, no colour; NO_COLOR: the view without colour', async () => {
    const { sb, env } = await sandbox(2);
    const dumb = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '--watch'], {
      env: { ...env, TERM: 'dumb' },
      clock: sb.clock,
      ...terminal(80, 24),
    });
    expect(dumb.code).toBe(0);
    expect(dumb.stdout + dumb.stderr).not.toContain('\u001b[');
    expect(dumb.stdout).toContain('-> FINALIZED');
    const noColor = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '--watch'], {
      env: { ...env, NO_COLOR: '1' },
      clock: sb.clock,
      ...terminal(80, 24),
    });
    expect(noColor.code).toBe(0);
    expect(noColor.stdout).not.toMatch(SGR);
    expect(noColor.stdout).toMatch(/\r\u001b\[2\dA/);
  });

  it('--timeout ends with 124, says the charge is still open and how to follow it again', async () => {
    const { sb, env } = await sandbox(null);
    expect((await runCli(['config', 'set', 'qr-style', 'light', '--profile', 'shop'], { env })).code).toBe(0);
    const started = sb.clock.now;
    const r = await runCli(
      ['deposit', 'create', '--amount', '35', '--to', LQ, '--watch', '--timeout', '10s', '--profile', 'shop'],
      { env, clock: sb.clock, ...terminal(80, 24) },
    );
    expect(r.code).toBe(124);
    expect(sb.clock.now - started).toBe(10_000);
    const id = /Deposit\s+([0-9a-f-]{36})/.exec(r.stdout.replace(SGR, ''))![1]!;
    expect(r.stderr).toContain(`deposit ${id} timed out at WAITING_PAYMENT\n`);
    expect(r.stderr).toContain(
      `the charge is still open: stopping the watch cancels nothing. Follow it again with:\n  lbrl deposit watch ${id} --profile shop\n`,
    );
    // the profile's style (light) was used: the code decodes only as light
    expect(decodeTerminal(lastFrame(r.stdout).join('\n'), 'light')).toBe(copyPaste(r.stdout));
  });

  it('Ctrl-C: exit 130, the charge is still open, and the command to follow it again', async () => {
    const { sb, env } = await sandbox(null);
    const controller = new AbortController();
    const started = sb.clock.now;
    const clock = {
      get now() {
        if (sb.clock.now - started > 4000) controller.abort();
        return sb.clock.now;
      },
      set now(v) {
        sb.clock.now = v;
      },
    };
    const r = await runCli(['deposit', 'create', '--amount', '35', '--to', LQ, '--watch'], {
      env,
      clock,
      signal: controller.signal,
    });
    expect(r.code).toBe(130);
    const id = /Deposit\s+([0-9a-f-]{36})/.exec(r.stdout)![1]!;
    expect(r.stderr).toContain(`deposit ${id} interrupted at WAITING_PAYMENT\n`);
    expect(r.stderr).toContain(`Follow it again with:\n  lbrl deposit watch ${id}\n`);
  });

  it('--interval and --timeout: watch meaning, refused without --watch or when malformed, nothing sent', async () => {
    const { sb, env } = await sandbox(2);
    const r = await runCli(
      ['deposit', 'create', '--amount', '1', '--to', LQ, '--watch', '--interval', '2', '--json'],
      {
        env,
        clock: sb.clock,
      },
    );
    expect(r.code).toBe(0);
    expect(new Set(r.sleeps)).toEqual(new Set([2000]));
    for (const [args, message] of [
      [['--interval', '2'], '--interval goes with --watch'],
      [['--interval', '2', '--timeout', '1m'], '--interval and --timeout go with --watch'],
      [
        ['--watch', '--timeout', '10d'],
        'invalid --timeout "10d": expected a duration such as 90, 90s, 10m, 1h or 1h30m',
      ],
      [['--watch', '--interval', '0'], 'invalid --interval "0"'],
    ] as const) {
      const bad = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, ...args], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(message);
    }
    // one deposit only: the good run's
    expect((await runCli(['deposit', 'list', '--json'], { env })).stdout.match(/"id"/g)).toHaveLength(1);
  });

  it('the split in reais, in the confirmation and the result, one way of writing the percentage', async () => {
    const { sb, env } = await sandbox(null);
    const asked: string[] = [];
    const r = await runCli(
      ['deposit', 'create', '--amount', '35', '--to', LQ, '--split-to', VJL, '--split-fee', '3', '--no-qr'],
      {
        env,
        clock: sb.clock,
        stdinTTY: true,
        stdoutTTY: true,
        prompter: {
          input: async () => '',
          password: async () => '',
          confirm: async (o) => {
            asked.push(o.message);
            return true;
          },
        },
      },
    );
    expect(r.code).toBe(0);
    expect(asked).toEqual(['Create this charge?']);
    expect(r.stderr).toContain(
      `Split    3.00% of net to ${VJL}: at most R$ 1,05 (the destination at least R$ 33,95 before the service fee)`,
    );
    // net R$ 34,65 (the sandbox's 1% fee): 3.00% of it is R$ 1,0395, rounded down to R$ 1,03
    expect(r.stdout).toContain(
      `Split    3.00% of net to ${VJL}: R$ 1,03 (the rest, R$ 33,62, to the destination)`,
    );
    expect(r.stdout).toContain('Created  2026-11-22 07:00:00 -03:00');
  });
});

describe('watch --pending past a deposit the service answers 404 for', () => {
  it('reports it (exit 4), records nothing of it, follows the others to the end, and the next pass hears its payment', async () => {
    // runWatch and runList in process over a history file: the service's 404 is what the client's classify() makes of it
    const world = dayTradeInProcess();
    world.write([world.created(1, 1)]);
    const id = dayId(1);
    // paid between the first look and the second
    world.statusOf.set(id, 'WAITING_PAYMENT');
    world.laterOf.set(id, [1, 'FINALIZED']);
    const lost = '00000000-0000-4000-8000-00000000dead';
    world.write([{ ...world.created(2, 2), id: lost } as StoredRecord]);
    const r = await world.watch([], { pending: true, interval: '1' });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(
      `deposit ${lost}: the service does not know it (404); nothing is recorded, and the next --pending asks again`,
    );
    expect(r.stderr).toContain(`deposit ${id} FINALIZED\n`);
    expect(r.stderr).toContain(
      `deposit ${lost} unknown to the service (404): asked again by the next --pending\n`,
    );
    expect(r.stdout).toMatch(new RegExp(`${id}  \\S+ -> FINALIZED`));
    const listed = JSON.parse((await world.list({}, { json: true })).stdout);
    expect(listed.find((e: { id: string }) => e.id === lost).status).toBe('WAITING_PAYMENT');
    // a replica behind, a deploy: the service knows it again, and it was paid meanwhile
    world.statusOf.set(lost, 'PIX_CONFIRMED');
    const again = await world.watch([], { pending: true, interval: '1', timeout: '5s' }, { quiet: true });
    expect(again.code).toBe(124);
    const list = JSON.parse((await world.list({}, { json: true })).stdout);
    expect(list.find((e: { id: string }) => e.id === lost).status).toBe('PIX_CONFIRMED');
    // a typed id the service does not know still ends the watch at once
    world.statusOf.delete(lost);
    const typed = await world.watch([lost, id], {});
    expect(typed.code).toBe(4);
  });

  it('a charge past expire-after that the service answers 404 for is given up on as expired at its last look (exit 0), not asked about at every pass', async () => {
    const world = dayTradeInProcess();
    const lost = '00000000-0000-4000-8000-00000000dead';
    world.write([{ ...world.created(2, 2), id: lost } as StoredRecord]);
    expect((await world.set('expire-after', '1h')).code).toBe(0);
    const r = await world.watch([], { pending: true, interval: '1' }, { quiet: true });
    expect(r.code).toBe(0);
    const list = JSON.parse((await world.list({ status: ['EXPIRED'] }, { json: true })).stdout);
    expect(list.map((e: { id: string }) => e.id)).toEqual([lost]);
    const asked = world.asked.length;
    const again = await world.watch([], { pending: true, interval: '1' }, { quiet: true });
    expect(again.code).toBe(0);
    expect(world.asked.length).toBe(asked);
  });

  it('a deposit an earlier version recorded GONE after one 404 is followed again, and its payment heard', async () => {
    const world = dayTradeInProcess();
    const lost = '00000000-0000-4000-8000-00000000dead';
    const created = { ...world.created(2, 2), id: lost } as StoredRecord;
    world.write([
      created,
      { v: 1, type: 'status', id: lost, status: 'GONE', at: '2026-11-23T12:00:00.000Z' } as never,
    ]);
    const before = JSON.parse((await world.list({}, { json: true })).stdout);
    expect(before.find((e: { id: string }) => e.id === lost).status).toBe('WAITING_PAYMENT');
    world.statusOf.set(lost, 'FINALIZED');
    const r = await world.watch([], { pending: true, interval: '1' }, { quiet: true });
    expect(r.code).toBe(0);
    const list = JSON.parse((await world.list({}, { json: true })).stdout);
    expect(list.find((e: { id: string }) => e.id === lost).status).toBe('FINALIZED');
  });
});
