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

  it('a reference is one whichever way its accents were typed (composed or as combining marks)', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    await runCli(['config', 'set', 'sandbox-autopay', 'off'], { env });
    const decomposed = 'cafe\u0301 7';
    const composed = 'caf\u00e9 7';
    const made = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '--ref', decomposed, '-q'], {
      env,
    });
    expect(made.code).toBe(0);
    const id = made.stdout.trim();
    const got = await runCli(['deposit', 'get', '--ref', composed, '--json'], { env });
    expect([got.code, got.stderr]).toEqual([0, '']);
    expect(JSON.parse(got.stdout)).toMatchObject({ id, ref: composed });
    const listed = await runCli(['deposit', 'list', '--ref', decomposed], { env });
    expect(listed.stdout.split('\t')[0]).toBe(id);
    // a second charge typed the other way is the same reference: get --ref asks which one
    await runCli(['deposit', 'create', '--amount', '2', '--to', LQ, '--ref', composed, '-q'], { env });
    const two = await runCli(['deposit', 'get', '--ref', decomposed], { env });
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/^error: 2 deposits have reference "café 7"/m);
  });
});
