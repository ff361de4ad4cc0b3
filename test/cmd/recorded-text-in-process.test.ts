/**
 * A reference or note read back from the history is held to the rule input is held to
 * (domain/text/reference.ts): another till, a tool or an edit may have written one of 5,000
 * characters or with controls in it. list, get and export show it cut (an ellipsis at the
 * limit), its controls escaped as every output escapes them, the deposit kept, and the reader
 * says once how many lines broke the rule.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiResult } from '../../src/api/client.js';
import type { GetResponse } from '../../src/api/models.js';
import { type ExportOptions, runExport } from '../../src/commands/deposit-export.js';
import { type GetFlags, runGet } from '../../src/commands/deposit-get.js';
import { localFieldsOf } from '../../src/domain/text/reference.js';
import { History } from '../../src/store/history.js';
import { entryOfRow } from '../../src/store/ledger-postgres-rows.js';
import { getAnswer } from '../helpers/fixtures.js';
import { listOffline } from '../helpers/list-offline.js';
import { plainTerminal, seenRun } from '../helpers/plain-terminal.js';
import { tempDir } from '../helpers/temp.js';

const LIVE = 'https://pay.example.com';
const NOW = Date.parse('2026-11-22T15:00:00Z');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const LONG = 'x'.repeat(5_000);

function created(n: number, extra: Record<string, unknown>): string {
  return JSON.stringify({
    v: 1,
    type: 'created',
    id: id(n),
    profile: 'default',
    baseUrl: LIVE,
    at: new Date(NOW - (10 - n) * 3_600_000).toISOString(),
    amountInCents: 2_000,
    destinationAddress: 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn',
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
    ...extra,
  });
}

function historyIn(lines: string[], warn: (line: string) => void): History {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'history.ndjson'), `${lines.join('\n')}\n`, { mode: 0o600 });
  return new History(dir, warn);
}

type Term = ReturnType<typeof plainTerminal>;

async function run(lines: string[], json: boolean, work: (term: Term, history: History) => Promise<void>) {
  const term = plainTerminal({ json, env: { TZ: 'UTC' }, now: () => NOW });
  const history = historyIn(lines, (line) => term.printer.warn(line));
  const seen = await seenRun(term, () => work(term, history));
  return { ...seen, file: history.file };
}

const list = (json: boolean) => (term: Term, history: History) =>
  listOffline(term, history, { service: LIVE, json });

const exportCsv = (term: Term, history: History) =>
  runExport({
    flags: { format: 'csv' } as ExportOptions,
    json: false,
    printer: term.printer,
    profileName: 'default',
    ctx: term.ctx,
    history: () => history,
    service: () => LIVE,
  } as Parameters<typeof runExport>[0]);

const get = (json: boolean) => (term: Term, history: History) => {
  const answer = getAnswer({ id: id(1) });
  const text = JSON.stringify(answer);
  return runGet({
    idText: id(1),
    flags: {} as GetFlags,
    json,
    quiet: false,
    qrStyleSetting: undefined,
    env: { TZ: 'UTC' },
    blindedFragment: async () => null,
    serviceUrl: () => undefined,
    expiredAt: () => undefined,
    afterExpiry: async () => {},
    localOf: (asked) => localFieldsOf(history.recorded(asked, LIVE)),
    printer: term.printer,
    client: async () => ({
      api: {
        createDeposit: async () => {
          throw new Error('get creates nothing');
        },
        getDeposit: async () => ({ value: answer, raw: JSON.parse(text), text }) as ApiResult<GetResponse>,
      },
      sandbox: false,
    }),
  });
};

const CUT_REF = `${'x'.repeat(99)}…`;
const warning = (file: string) =>
  `warning: read 1 line(s) in ${file} with a reference or note that breaks the input rule (over 100 or 500 characters: cut, ending in …; control or invisible characters: shown escaped)\n`;

describe('a recorded reference or note that breaks the input rule', () => {
  it('list --json: a 5,000-character reference is cut to 100 characters, the deposit kept, said once', async () => {
    const r = await run([created(1, { ref: LONG }), created(2, { ref: 'mesa 2' })], true, list(true));
    expect(r.error).toBeUndefined();
    const shown = JSON.parse(r.stdout) as Array<{ id: string; ref?: string }>;
    expect(shown.map((e) => [e.id, e.ref])).toEqual([
      [id(2), 'mesa 2'],
      [id(1), CUT_REF],
    ]);
    expect(r.stderr).toBe(warning(r.file));
  });

  it('list in a pipe: the sixth field cut, not 5,000 characters', async () => {
    const r = await run([created(1, { ref: LONG })], false, list(false));
    const row = r.stdout.split('\n').find((line) => line.startsWith(id(1)));
    expect(row?.split('\t')[5]).toBe(CUT_REF);
    expect(r.stdout).not.toContain('x'.repeat(100));
  });

  it('get: Ref cut, the controls and invisible characters of a note escaped, in text and --json', async () => {
    const lines = [created(1, { ref: LONG, note: 'a\u202eb\u0007c\u200bd' })];
    const text = await run(lines, false, get(false));
    expect(text.error).toBeUndefined();
    expect(text.stdout).toContain(`Ref      ${CUT_REF}\nNote     a\\u202eb\\x07c\\u200bd\n`);
    expect(text.stderr).toBe(warning(text.file));
    const json = await run(lines, true, get(true));
    expect(JSON.parse(json.stdout)).toMatchObject({ ref: CUT_REF, note: 'a\u202eb\u0007c\u200bd' });
    expect(json.stdout).not.toMatch(/[\u202e\u0007\u200b]/);
  });

  it('export: the cells hold the cut texts; a note over 500 characters ends with the ellipsis at 500', async () => {
    const r = await run([created(1, { ref: 'mesa\n2', note: 'n'.repeat(501) })], false, exportCsv);
    expect(r.error).toBeUndefined();
    expect(r.stdout).toContain(`${id(1)},mesa\\n2,${'n'.repeat(499)}…,`);
    expect(r.stderr).toContain(warning(r.file));
  });

  it('a reference of only spaces is none; one that keeps the rule is read as written, no warning', async () => {
    const r = await run(
      [created(1, { ref: '   ' }), created(2, { ref: 'pedido 7', note: 'café' })],
      true,
      list(true),
    );
    const shown = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(shown.find((e) => e.id === id(1))).not.toHaveProperty('ref');
    expect(shown.find((e) => e.id === id(2))).toMatchObject({ ref: 'pedido 7', note: 'café' });
    expect(r.stderr).toBe(warning(r.file));
    const clean = await run([created(2, { ref: 'pedido 7' })], true, list(true));
    expect(clean.stderr).toBe('');
  });

  it.each([
    ['a lone surrogate', 'mesa \ud800 2', 'mesa \\ud800 2'],
    ['a byte order mark', '\ufeffpedido 7', '\\ufeffpedido 7'],
    ['a line separator', 'pedido\u20287', 'pedido\\u20287'],
    ['101 characters', 'y'.repeat(101), `${'y'.repeat(99)}…`],
  ])('%s in a reference: shown escaped or cut in a pipe, said once', async (_, ref, shown) => {
    const r = await run([created(1, { ref }), created(2, { ref: 'x' })], false, list(false));
    const row = r.stdout.split('\n').find((line) => line.startsWith(id(1)));
    expect(row?.split('\t')[5]).toBe(shown);
    expect(r.stderr.split(warning(r.file))).toHaveLength(2);
  });

  it("the PostgreSQL ledger's row is read by the same rule (another till inserted it)", () => {
    const entry = entryOfRow({
      created: created(1, { ref: LONG, note: 'a\u0000b' }),
      status: 'WAITING_PAYMENT',
      status_at: new Date(NOW).toISOString(),
      final: null,
      chain: null,
      expired_at: null,
      facts: null,
    });
    expect([entry.ref, entry.note]).toEqual([CUT_REF, 'a\u0000b']);
  });
});
