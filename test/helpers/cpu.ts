/**
 * The CPU time (user and system, in ms) this process spends in `f`, and what it returned. A check
 * that work is cheap measures this rather than the clock: on a loaded machine the clock also counts
 * the time other processes had the cores, and the check would fail for nothing.
 */
export function cpuTimed<T>(f: () => T): [T, number] {
  const before = process.cpuUsage();
  const r = f();
  const used = process.cpuUsage(before);
  return [r, (used.user + used.system) / 1000];
}

/** The same for an async `f`: the CPU this process spends until it settles (nothing else runs). */
export async function cpuTimedAsync<T>(f: () => Promise<T>): Promise<[T, number]> {
  const before = process.cpuUsage();
  const r = await f();
  const used = process.cpuUsage(before);
  return [r, (used.user + used.system) / 1000];
}
