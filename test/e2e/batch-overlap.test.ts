/**
 * "A row of a file is created once, however many runs overlap": the built CLI, many processes,
 * one sandbox data directory (each process serves the embedded sandbox from it, so its
 * Idempotency-Keys are shared), and kill -9 in the middle of a batch.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';

function start(args: string[], env: Record<string, string>): ChildProcess & { out: Promise<string> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { out: Promise<string> };
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  child.out = new Promise((r) => child.on('close', () => r(out)));
  return child;
}

const exited = (c: ChildProcess) =>
  new Promise<number | null>((r) => {
    if (c.exitCode !== null) r(c.exitCode);
    else c.on('exit', (code) => r(code));
  });

/** The deposits the sandbox holds, whoever made them. */
function sandboxDeposits(configDir: string): string[] {
  const dir = path.join(configDir, 'sandbox', 'deposits');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
}

function rowsFile(rows: number, first = 1): string {
  const f = path.join(tempDir(), 'rows.csv');
  fs.writeFileSync(
    f,
    `amount,to\n${Array.from({ length: rows }, (_, i) => `${first + i},${LQ}`).join('\n')}\n`,
  );
  return f;
}

async function sandboxEnv(): Promise<{ HOME: string; LBRL_CONFIG_DIR: string }> {
  const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
  expect((await runBin(['config', 'set', 'sandbox-autopay', 'off'], env)).code).toBe(0);
  return env;
}

describe('create --from --resume, runs overlapping', () => {
  it('twenty overlapping runs of a 5-row file create exactly 5 deposits, and all exit 0', async () => {
    const env = await sandboxEnv();
    const file = rowsFile(5);
    const runs = Array.from({ length: 20 }, (_, i) =>
      start(['deposit', 'create', '--from', file, '--resume', '--concurrency', String(1 + (i % 4))], env),
    );
    const codes = await Promise.all(runs.map(exited));
    const outputs = await Promise.all(runs.map((r) => r.out));
    expect(codes, outputs.join('\n---\n')).toEqual(Array(20).fill(0));
    expect(sandboxDeposits(env.LBRL_CONFIG_DIR)).toHaveLength(5);
    // each run reports every row, created by it or resumed, and the ids agree across runs
    const idsByRow = new Map<number, Set<string>>();
    let createdLines = 0;
    for (const out of outputs) {
      const lines = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { row: number; deposit: { id: string }; resumed?: boolean });
      expect(lines.map((l) => l.row)).toEqual([1, 2, 3, 4, 5]);
      for (const l of lines) {
        if (!idsByRow.has(l.row)) idsByRow.set(l.row, new Set());
        idsByRow.get(l.row)!.add(l.deposit.id.toLowerCase());
        if (!l.resumed) createdLines += 1;
      }
    }
    expect([...idsByRow.values()].map((s) => s.size)).toEqual([1, 1, 1, 1, 1]);
    expect(createdLines).toBe(5);
    // no claim is left behind
    expect(fs.readdirSync(path.join(env.LBRL_CONFIG_DIR, 'claims'))).toEqual([]);
  }, 120_000);

  it('runs killed with -9 at many moments, then run again: no row is created twice', async () => {
    const env = await sandboxEnv();
    const file = rowsFile(6);
    for (let i = 0; i < 8; i++) {
      const child = start(['deposit', 'create', '--from', file, '--resume', '--concurrency', '2'], env);
      await new Promise((r) => setTimeout(r, 60 + ((i * 53) % 400)));
      child.kill('SIGKILL');
      await exited(child);
    }
    const last = await runBin(['deposit', 'create', '--from', file, '--resume'], env);
    expect(last.code, last.stderr).toBe(0);
    expect(sandboxDeposits(env.LBRL_CONFIG_DIR)).toHaveLength(6);
    const again = await runBin(['deposit', 'create', '--from', file, '--resume'], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('6 row(s): 0 created, 6 resumed (created by an earlier run), 0 failed');
    expect(sandboxDeposits(env.LBRL_CONFIG_DIR)).toHaveLength(6);
  }, 120_000);

  it('a row file edited between runs: the rows left as they were are not created again', async () => {
    const env = await sandboxEnv();
    const file = rowsFile(4);
    expect((await runBin(['deposit', 'create', '--from', file, '--resume'], env)).code).toBe(0);
    // row 2 changed, a row added in front: rows 1, 3 and 4 keep their identity
    fs.writeFileSync(file, `amount,to\n9,${LQ}\n1,${LQ}\n2.5,${LQ}\n3,${LQ}\n4,${LQ}\n`);
    const again = await runBin(['deposit', 'create', '--from', file, '--resume'], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('5 row(s): 2 created, 3 resumed (created by an earlier run), 0 failed');
    expect(sandboxDeposits(env.LBRL_CONFIG_DIR)).toHaveLength(6);
  }, 60_000);
});
