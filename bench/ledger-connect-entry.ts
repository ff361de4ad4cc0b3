// Bundled by bench/ledger-postgres.mjs: what a command adds to connect to the ledger, measured in
// one process (the program loaded once): open (connect, authenticate, check the schema), move in
// the spool, bring the host's copy up to date, close.
import { performance } from 'node:perf_hooks';
import { readLedgerSetting } from '../src/domain/ledger-url.js';
import { openLedger } from '../src/store/ledger.js';
import { LedgerMirror } from '../src/store/ledger-mirror.js';
import { moveSpoolIn } from '../src/store/ledger-spool.js';

export async function connectCost(url: string, dir: string, runs: number): Promise<number[]> {
  const setting = readLedgerSetting(url);
  if (!setting.ok) throw new Error(setting.expected);
  const clock = { now: Date.now, sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const began = performance.now();
    const ledger = await openLedger(setting.value, { dir, warn: () => {}, env: {} });
    await moveSpoolIn(
      dir,
      ledger,
      () => {},
      () => {},
    );
    await new LedgerMirror(dir, ledger.where, () => {}).catchUp(ledger, clock);
    await ledger.close();
    times.push(performance.now() - began);
  }
  return times;
}
