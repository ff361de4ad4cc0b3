/**
 * --ref and deposit export through the whole program (main() in process, the embedded sandbox):
 * the flags as commander reads them, the factory's ledger, exit codes from the one handler.
 */
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { LQ } from '../helpers/fixtures.js';

describe('a reference through the whole program', () => {
  it('create --ref, then get --ref, list --ref and export find it; two alike make get --ref refuse', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), TZ: 'America/Sao_Paulo' };
    await runCli(['config', 'set', 'sandbox-autopay', 'off'], { env });
    const first = await runCli(
      ['deposit', 'create', '--amount', '15,50', '--to', LQ, '--ref', 'pedido 1', '--note', 'mesa 7', '-q'],
      { env },
    );
    expect(first.code).toBe(0);
    const id = first.stdout.trim();
    const got = await runCli(['deposit', 'get', '--ref', 'pedido 1', '--json'], { env });
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ id, ref: 'pedido 1', note: 'mesa 7' });
    const listed = await runCli(['deposit', 'list', '--ref', 'pedido 1'], { env });
    expect(listed.stdout.split('\t')[0]).toBe(id);
    expect(listed.stdout.trimEnd().endsWith('\tpedido 1')).toBe(true);
    const csv = await runCli(['deposit', 'export', '--format', 'csv', '--since', '1d'], { env });
    expect(csv.code).toBe(0);
    expect(csv.stdout).toContain(`${id},pedido 1,mesa 7,`);

    await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '--ref', 'pedido 1', '-q'], { env });
    const two = await runCli(['deposit', 'get', '--ref', 'pedido 1'], { env });
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/^error: 2 deposits have reference "pedido 1" \(.*\): give the one you mean/m);
    const none = await runCli(['deposit', 'get', '--ref', 'pedido 9'], { env });
    expect(none.code).toBe(4);
    const bad = await runCli(['deposit', 'export', '--format', 'pdf'], { env });
    expect([bad.code, bad.stdout]).toEqual([2, '']);
  });
});
