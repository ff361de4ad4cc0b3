/**
 * What the listen tests share: a world of lbrl runs in-process on one config directory and a clock
 * that moves only when lbrl sleeps, and a receiver that checks every delivery with the
 * standardwebhooks package at the moment it arrives, as a merchant's would.
 */
import { Webhook } from 'standardwebhooks';
import { expect, vi } from 'vitest';
import { type RunOptions, runCli, tempDir } from './cli.js';
import { type Delivery, startReceiver } from './receiver.js';

export function listenWorld() {
  const clock = { now: Date.now() };
  const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir(), NO_COLOR: '1' };
  const outputs: string[] = [];
  const run = async (args: string[], extra: RunOptions = {}) => {
    const r = await runCli(args, { env, clock, ...extra });
    outputs.push(r.stdout, r.stderr);
    return r;
  };
  /** listen until `done` holds (checked at each of its sleeps), then Ctrl-C */
  const listen = (args: string[], done: () => boolean, extra: RunOptions = {}) => {
    const ctrl = new AbortController();
    let sleeps = 0;
    let after = 0;
    return run(['listen', ...args], {
      signal: ctrl.signal,
      onSleep: async () => {
        // a little real time per sleep, so a delivery in flight sees a clock that moved a little
        await new Promise((r) => setTimeout(r, 2));
        // a few sleeps more once done, so an answer the receiver already gave reaches lbrl
        if ((done() && ++after > 3) || ++sleeps > 3000) ctrl.abort();
      },
      ...extra,
    });
  };
  const trigger = async (scenario: string) => {
    const r = await run(['sandbox', 'trigger', scenario]);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim();
  };
  const secret = async () => (await run(['listen', '--print-secret'])).stdout.trim();
  return { clock, env, run, listen, trigger, secret, outputs };
}

export type ListenWorld = ReturnType<typeof listenWorld>;

/** A receiver checking each delivery with the standardwebhooks package when it arrives; closed by the caller's `closers`. */
/**
 * What the `standardwebhooks` package finds wrong with a delivery, judged at the moment it was
 * signed (its `webhook-timestamp`), and a signature dated after `clockNow` (the world's clock when
 * it arrived). Judged at arrival instead, a loaded machine let the stepping clock run minutes on
 * while a request was in flight, and a good signature read as "Message timestamp too old".
 */
export function signedProblem(
  wh: Webhook,
  body: string,
  headers: Record<string, string>,
  clockNow: number,
): string | undefined {
  const signedAt = Number(headers['webhook-timestamp']) * 1000;
  if (!(signedAt <= clockNow))
    return `signed at ${headers['webhook-timestamp']}, after the clock's ${clockNow}`;
  const spy = vi.spyOn(Date, 'now').mockReturnValue(signedAt);
  try {
    wh.verify(body, headers);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    spy.mockRestore();
  }
}

export async function checkingReceiver(
  w: ListenWorld,
  secret: string,
  closers: Array<{ close(): Promise<void> | void }>,
  answer: (d: Omit<Delivery, 'answered'>, attempt: number) => number = () => 200,
) {
  const wh = new Webhook(secret);
  const problems: string[] = [];
  const attempts = new Map<string, number>();
  const rx = await startReceiver((d) => {
    const problem = signedProblem(wh, d.body, d.headers as Record<string, string>, w.clock.now);
    if (problem) problems.push(`${d.id}: ${problem}`);
    const n = (attempts.get(d.id) ?? 0) + 1;
    attempts.set(d.id, n);
    return answer(d, n);
  });
  closers.push(rx);
  const types = (deposit: string) =>
    rx
      .taken()
      .filter((d) => d.deposit === deposit)
      .map((d) => d.type);
  return { ...rx, problems, types };
}
