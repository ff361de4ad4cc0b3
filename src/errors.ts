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
  /** the base URL does not lead to the Deposit service (its 404 or an HTML page) */
  | 'endpoint'
  | 'cancelled'
  /** verify: nothing contradicts the settlement, but not everything could be checked */
  | 'unproven'
  /** verify: not settled yet, not yet found on the explorer, or not yet confirmed deeply enough */
  | 'settlement_pending';

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
} as const;

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
  network: EXIT.unreachable,
  timeout: EXIT.unreachable,
  failed: EXIT.failed,
  unproven: EXIT.unproven,
  settlement_pending: EXIT.settlementPending,
  watch_timeout: EXIT.watchTimeout,
  interrupted: EXIT.interrupted,
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
