import { isLoopbackHost } from '../api/baseurl.js';
import { isTerminal, parseDepositId, parseWholeNumber } from '../domain/values.js';
import { interrupted, invalidValue, LbrlError, usageError } from '../errors.js';
import { getView, STEP_MS, type StoredDeposit, stateAt } from '../sandbox/lifecycle.js';
import { SandboxStore } from '../sandbox/store.js';
import type { Session } from '../session.js';

export interface ServeOptions {
  port: string;
  host: string;
}

export async function serve(opts: ServeOptions, session: Session): Promise<void> {
  const p = session.printer;
  const port = parseWholeNumber(opts.port, 0, 65535, 'a port number from 0 to 65535 (0 picks a free one)');
  if (!port.ok) throw invalidValue('--port', opts.port, port.expected);
  if (!/^[0-9A-Za-z.:[\]-]{1,255}$/.test(opts.host))
    throw invalidValue('--host', opts.host, 'an IP address or host name');
  const { startSandbox } = await import('../sandbox/embedded.js');
  const store = new SandboxStore(session.sandboxDir);
  const autopay = session.setting('sandbox-autopay');
  let running: Awaited<ReturnType<typeof startSandbox>>;
  try {
    running = await startSandbox(
      {
        dir: session.sandboxDir,
        autopay,
        now: session.ctx.now,
        host: opts.host,
        port: port.value,
        token: store.token(),
      },
      store,
    );
  } catch (error) {
    throw new LbrlError(`cannot listen on ${opts.host}:${opts.port}: ${(error as Error).message}`, 'usage');
  }
  if (session.globals.json)
    p.json({ baseUrl: running.baseUrl, token: running.token, dataDir: session.sandboxDir });
  else {
    p.out(`LBRL_BASE_URL=${running.baseUrl}`);
    p.out(`LBRL_TOKEN=${running.token}`);
  }
  if (!isLoopbackHost(opts.host)) p.warn(`warning: listening on ${opts.host}, reachable beyond this machine`);
  p.info(
    `sandbox serving at ${running.baseUrl} (data in ${session.sandboxDir}; autopay ${autopay === 'off' ? 'off' : `after ${autopay} s`}); Ctrl-C to stop`,
  );
  const signal = session.ctx.signal;
  try {
    if (!signal.aborted)
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    await running.close();
  }
  throw interrupted();
}

/**
 * Record what the payer (or the bank) did to a stored deposit, if its status allows it now;
 * `rule` says which statuses do. Returns the deposit and the status it had.
 */
function act(
  idText: string,
  session: Session,
  event: 'paid' | 'failed',
  allowed: (status: string) => boolean,
  rule: string,
  extra: { settle?: string } = {},
): { store: SandboxStore; deposit: StoredDeposit; was: string } {
  const id = parseDepositId(idText);
  if (!id.ok) throw invalidValue('deposit id', idText, id.expected);
  const store = new SandboxStore(session.sandboxDir);
  const deposit = store.load(id.value);
  if (!deposit) {
    throw new LbrlError(
      `deposit ${id.value} not found in the sandbox data in ${session.sandboxDir}`,
      'not_found',
    );
  }
  const now = session.ctx.now();
  const was = stateAt(deposit, store.eventsOf(deposit.id), now).status;
  // record() refuses when another process got there first: report the status that won
  if (!allowed(was) || !store.record(deposit.id, event, now, extra)) {
    const current = stateAt(deposit, store.eventsOf(deposit.id), now).status;
    throw usageError(`deposit ${deposit.id} is ${current}; ${rule}`);
  }
  return { store, deposit, was };
}

/** --json: the deposit as get would now show it; otherwise one line. */
function report(session: Session, store: SandboxStore, deposit: StoredDeposit, line: string): void {
  if (session.globals.json)
    session.printer.json(getView(deposit, store.eventsOf(deposit.id), session.ctx.now()));
  else session.printer.out(line);
}

/** How `sandbox pay --settle` may make the sandbox settle (src/sandbox/chain.ts SETTLE_MODES). */
export const SETTLE_CHOICES = ['ok', 'amount', 'asset', 'address', 'none'] as const;

export interface PayOptions {
  settle?: string;
}

export function pay(idText: string, session: Session, opts: PayOptions = {}): void {
  const settle = opts.settle ?? 'ok';
  if (!(SETTLE_CHOICES as readonly string[]).includes(settle)) {
    throw invalidValue(
      '--settle',
      settle,
      'ok, amount (one cent short), asset (paid in L-BTC), address (paid to a stranger) or none (no transaction)',
    );
  }
  const { store, deposit } = act(
    idText,
    session,
    'paid',
    (status) => status === 'WAITING_PAYMENT',
    'only a WAITING_PAYMENT deposit can be paid',
    settle === 'ok' ? {} : { settle },
  );
  report(
    session,
    store,
    deposit,
    `paid ${deposit.id}: PIX_CONFIRMED now, FINALIZED in about ${(3 * STEP_MS) / 1000} s`,
  );
}

export function fail(idText: string, session: Session): void {
  const { store, deposit, was } = act(
    idText,
    session,
    'failed',
    (status) => !isTerminal(status),
    'only a deposit that is not yet terminal can fail',
  );
  report(session, store, deposit, `failed ${deposit.id}: FAILED (was ${was})`);
}
