/** Errors a command throws; the one handler in cli.ts prints them and sets the exit code. */
export type ErrorType =
  | 'usage'
  | 'validation'
  | 'auth'
  | 'not_found'
  | 'service'
  | 'contract'
  | 'mismatch'
  | 'rate_limited'
  | 'network'
  | 'timeout'
  | 'failed'
  | 'watch_timeout'
  | 'interrupted'
  | 'config'
  /** the config file's content is damaged: not JSON, or a setting of the wrong type (the file and key named) */
  | 'config_invalid'
  /** the base URL does not lead to the Deposit service (its 404 or an HTML page) */
  | 'endpoint'
  | 'cancelled'
  /** verify: nothing contradicts the settlement, but not everything could be checked */
  | 'unproven'
  /** verify: not settled yet, not yet found on the explorer, or not yet confirmed deeply enough */
  | 'settlement_pending'
  /** create --display: the charge was created, but the customer display did not take it */
  | 'display'
  /** stdout closed (its reader went away: `| head`) before a watch or a batch was done */
  | 'output_closed';

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  failed: 5,
  unreachable: 6,
  unproven: 7,
  settlementPending: 8,
  watchTimeout: 124,
  interrupted: 130,
  outputClosed: 141,
} as const;

/**
 * What each exit code means, as `lbrl help exit-codes`, docs/using.md and the man page say it:
 * those are generated from this and EXIT_CODES (npm run build), and no other copy is kept.
 */
export const EXIT_MEANINGS: Readonly<Record<keyof typeof EXIT, string>> = {
  ok: 'success (`watch`: every deposit reached FINALIZED)',
  failure:
    'unexpected failure: the service answered 5xx or kept rate-limiting, or with a body that breaks the contract, or an answer that does not match the request; `verify`: a settlement that contradicts the deposit, or an explorer answer that breaks its API; `reconcile`: something missing, unmatched, paid after expiry or beyond what was due',
  usage:
    'usage or validation error, found locally or reported by the service (400/422); a declined confirmation; a damaged config file (`config_invalid`: the file and key named)',
  auth: 'authentication: token missing, invalid or expired (401/403)',
  notFound:
    'not found: the service does not know the deposit id (`watch --pending`: one was gone, recorded, and the others ended FINALIZED)',
  failed: 'a watched deposit ended FAILED',
  unreachable:
    'the service could not be reached or did not answer in time (also the explorer, for `verify`: never a pass)',
  unproven:
    "`verify`: a settlement could not be fully verified (no blinding key for a confidential output, asset not pinned, precision unknown); nothing contradicts it; `reconcile`: the asset's precision is not proven, or an amount it could not read",
  settlementPending:
    '`verify`: not settled yet, its transaction not yet known to the explorer, or not yet confirmed deeply enough; `reconcile`: a settlement or receipt not yet confirmed deeply enough (the same `confirmations` setting)',
  watchTimeout: '`watch --timeout` ran out before every deposit was terminal',
  interrupted: 'interrupted (Ctrl-C); also how `sandbox serve` and `display` end',
  outputClosed:
    'stdout closed (its reader went away: `| head`, a pager quit) before a `watch`, a batch `create --from` or an export (`deposit export`, `ledger export`) was done, 128 + SIGPIPE as a shell reports a program a broken pipe stopped; a list cut short by its reader still ends 0',
};

/** One row of the exit-code table: the code, what it means, and the error types (EXIT_CODES) that end with it. */
export interface ExitCodeRow {
  readonly code: number;
  readonly meaning: string;
  readonly types: readonly ErrorType[];
}

/** The exit-code table, from EXIT, EXIT_MEANINGS and EXIT_CODES, by code. */
export function exitCodeTable(): ExitCodeRow[] {
  const types = Object.keys(EXIT_CODES) as ErrorType[];
  return (Object.keys(EXIT) as (keyof typeof EXIT)[])
    .map((name) => ({
      code: EXIT[name],
      meaning: EXIT_MEANINGS[name],
      types: types.filter((type) => EXIT_CODES[type] === EXIT[name]),
    }))
    .sort((a, b) => a.code - b.code);
}

/** Each error type's exit code: the one table, so no call site chooses a code by hand. */
export const EXIT_CODES: Readonly<Record<ErrorType, number>> = {
  usage: EXIT.usage,
  validation: EXIT.usage,
  cancelled: EXIT.usage,
  endpoint: EXIT.usage,
  auth: EXIT.auth,
  not_found: EXIT.notFound,
  service: EXIT.failure,
  contract: EXIT.failure,
  mismatch: EXIT.failure,
  rate_limited: EXIT.failure,
  config: EXIT.failure,
  config_invalid: EXIT.usage,
  network: EXIT.unreachable,
  timeout: EXIT.unreachable,
  failed: EXIT.failed,
  unproven: EXIT.unproven,
  settlement_pending: EXIT.settlementPending,
  display: EXIT.failure,
  watch_timeout: EXIT.watchTimeout,
  interrupted: EXIT.interrupted,
  output_closed: EXIT.outputClosed,
};

export class LbrlError extends Error {
  /** what the service asked for with Retry-After, when it did */
  retryAfterMs?: number;
  /** from the type, by EXIT_CODES */
  readonly exitCode: number;
  /** more for scripts, in the --json error object beside type, message and exitCode */
  details?: Record<string, unknown>;

  constructor(
    message: string,
    readonly type: ErrorType,
    readonly suggestion?: string,
  ) {
    super(message);
    this.name = 'LbrlError';
    this.exitCode = EXIT_CODES[type];
  }
}

export function usageError(message: string, suggestion?: string): LbrlError {
  return new LbrlError(message, 'usage', suggestion);
}

/** A refused value: names the option, the value and what is expected. */
/** A value from the user as a message shows it: quoted, so control characters show as escapes; a very long one shortened. */
export function quoted(value: string): string {
  return value.length > 120
    ? `${JSON.stringify(value.slice(0, 100))}… (${value.length} characters)`
    : JSON.stringify(value);
}

export function invalidValue(option: string, value: string, expected: string): LbrlError {
  return usageError(`invalid ${option} ${quoted(value)}: expected ${expected}`);
}

export function interrupted(): LbrlError {
  return new LbrlError('interrupted', 'interrupted');
}

/**
 * The error with `redact` applied to all a program can print of it: `message`, `stack`,
 * `suggestion`, and so `String(e)` and `util.inspect(e)`; no `cause` is kept (its own message and
 * stack are where a transport's words would slip through). Anything not an LbrlError becomes one
 * (`service`): the library throws nothing else.
 */
export function redactedError(error: unknown, redact: (text: string) => string): LbrlError {
  const original = error instanceof Error ? error : undefined;
  const clean =
    error instanceof LbrlError
      ? new LbrlError(redact(error.message), error.type, error.suggestion && redact(error.suggestion))
      : new LbrlError(
          `unexpected failure: ${redact(original ? original.message : String(error))}`,
          'service',
        );
  if (error instanceof LbrlError && error.retryAfterMs !== undefined) clean.retryAfterMs = error.retryAfterMs;
  // the frames of where it was thrown, under the clean first line
  const frames = original?.stack?.split('\n').filter((line) => /^\s+at /.test(line)) ?? [];
  const stack = [`${clean.name}: ${clean.message}`, ...frames.map(redact)].join('\n');
  Object.defineProperty(clean, 'stack', {
    value: stack,
    writable: true,
    configurable: true,
    enumerable: false,
  });
  return clean;
}
