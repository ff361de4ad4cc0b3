// The cron pass of the README (`deposit watch --pending --timeout 9m`) over 1,000 charges due
// their last look and 3 live ones, in process, on the injected clock of the in-process tests:
// the service answers at once, so a pass's length is the time the watch itself chose to wait.
// Bundled and run by bench/cron-pass.mjs.
import type { StoredRecord } from '../src/store/history-records.js';
import { dayTradeInProcess, id } from '../test/helpers/day-trade.js';

const DUE = 1000;
const LIVE = [1, 2, 3];

export async function cronPasses(): Promise<Array<Record<string, number | string>>> {
  const world = dayTradeInProcess();
  const records: StoredRecord[] = [];
  for (let n = 100; n < 100 + DUE; n++) {
    records.push(world.created(n, 72));
    world.statusOf.set(id(n), 'WAITING_PAYMENT');
  }
  for (const n of LIVE) {
    records.push(world.created(n, 0.1));
    world.statusOf.set(id(n), 'WAITING_PAYMENT');
    // paid on its third look, as a customer paying within the first half minute
    world.laterOf.set(id(n), [2, 'FINALIZED']);
  }
  world.write(records);
  const rows: Array<Record<string, number | string>> = [];
  for (let pass = 1; pass <= 40; pass++) {
    const before = world.asked.length;
    const cpu = process.cpuUsage();
    const wall = performance.now();
    const run = await world.watch([], { pending: true, timeout: '9m' }, { quiet: false });
    const left = /(\d+) charge\(s\) past expire-after left/.exec(run.stderr)?.[1] ?? '0';
    const used = process.cpuUsage(cpu);
    rows.push({
      pass,
      exit: run.code,
      requests: world.asked.length - before,
      'pass length (s, injected clock)': Math.round(run.sleeps.reduce((a, b) => a + b, 0) / 1000),
      'left for later': Number(left),
      'cpu (ms)': Math.round((used.user + used.system) / 1000),
      'wall (ms)': Math.round(performance.now() - wall),
    });
    // (after the line that says which service's deposits the pass follows)
    if (run.stderr.includes('no pending deposits')) break;
  }
  return rows;
}
