/**
 * lbrl for Node programs: the one file that says what is public. Everything exported here is
 * the library's stable surface; nothing else under src/ is.
 *
 * ```ts
 * import { createClient, isLbrlError } from 'lbrl';
 * const lbrl = createClient({ baseUrl: 'https://api.example.com', token: process.env.TOKEN! });
 * const charge = await lbrl.create({ amount: '15.50', to: 'lq1...' });
 * for await (const deposit of lbrl.watch(charge.id)) console.log(deposit.status);
 * ```
 */

/**
 * Errors: every failure is an LbrlError whose `type` names it as the command line does
 * (`usage`, `validation`, `auth`, `not_found`, `mismatch`, `contract`, `service`, `network`,
 * `timeout`, `rate_limited`, `watch_timeout`, `interrupted`, ...) and whose `exitCode` is the
 * command line's exit code for it (EXIT_CODES).
 */
export { type ErrorType, EXIT_CODES, LbrlError } from './errors.js';
/** The client: create, get and watch deposits with every check of the command line. */
export {
  type ChargeFields,
  type ClientSettings,
  type Clock,
  type CreateInput,
  type CreateOptions,
  createClient,
  type GetOptions,
  type KnownDeposit,
  type LbrlClient,
  type WatchOptions,
} from './lib/client.js';
export { isLbrlError } from './lib/errors.js';
/** What the service answers, as the client hands it back after checking it. */
export type {
  ChargeNotes,
  CreatedDeposit,
  Deposit,
  DepositFields,
  DepositRequest,
  DepositStatus,
  Settlement,
} from './lib/types.js';
/** The value parsers: the command line's rules; a refused value throws LbrlError `usage` (exit code 2). */
export {
  formatCents,
  type LiquidAddress,
  type Network,
  type PixCode,
  parseAddress,
  parseAmount,
  parseBrCode,
  parseCents,
  parseSplitFee,
  type SplitFee,
} from './lib/values.js';
/** Receiving lbrl's events (`lbrl listen`): check a delivery's Standard Webhooks signature. */
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  WebhookEventError,
  type WebhookHeaders,
  type WebhookProblem,
  WebhookVerificationError,
} from './lib/webhook.js';
