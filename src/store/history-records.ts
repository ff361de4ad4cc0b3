/**
 * The records the history holds, one per line, and how each is made: what a deposit's creation,
 * a status seen, a check on chain, an expiry and a batch row's attempt record.
 */
import type { FixedFields } from '../domain/deposit.js';
import { type SettlementFacts, settlementFactsOf } from '../domain/settlement-facts.js';
import { canonicalId, isTerminal } from '../domain/values.js';

export interface CreatedRecord {
  v: 1;
  type: 'created';
  id: string;
  profile: string;
  baseUrl: string;
  at: string;
  amountInCents: number;
  destinationAddress: string;
  splitAddress: string | null;
  splitFee: string | null;
  status: string;
  /** set for rows of a batch: what --resume recognises */
  batchKey?: string;
  /**
   * The merchant's reference (order, table, invoice) and note (domain/text/reference.ts): lbrl's
   * own, never sent to the service nor compared with its answers. Absent from older records.
   */
  ref?: string;
  note?: string;
  /**
   * What the create answer said of the fields fixed at creation that the request did not set:
   * later answers, in any process, must say the same (deposits/answers.ts). Which fields: the
   * deposit model's FIXED_FIELD_NAMES (domain/deposit.ts).
   */
  answer?: FixedFields;
}

export interface StatusRecord {
  v: 1;
  type: 'status';
  id: string;
  /**
   * the service (base URL, or "sandbox") of the deposit it is about: one id may be two deposits,
   * one per service. Absent from records of older releases: see depositKey (history-merge.ts).
   */
  baseUrl?: string;
  status: string;
  at: string;
  /** with a final status: what that answer said, which never changes after it */
  final?: FinalFields;
  /** the settlement facts the answer stated (its liquidTxid, confirmedAt): kept once seen */
  facts?: SettlementFacts;
}

/** What a FINALIZED or FAILED answer said besides its status. */
export interface FinalFields {
  settlement: unknown;
  confirmedAt: unknown;
}

/** A final answer's settlement is a transaction id and a status: more than this is not kept. */
const MAX_FINAL = 1024;

export function statusRecord(
  id: string,
  status: string,
  now: number,
  answer?: { settlement?: unknown; confirmedAt?: unknown },
): StatusRecord {
  const record: StatusRecord = {
    v: 1,
    type: 'status',
    id: canonicalId(id),
    status,
    at: new Date(now).toISOString(),
  };
  if (answer && isTerminal(status)) {
    const final = { settlement: answer.settlement ?? null, confirmedAt: answer.confirmedAt ?? null };
    if (JSON.stringify(final).length <= MAX_FINAL) record.final = final;
  }
  const facts = settlementFactsOf(answer);
  if (Object.keys(facts).length > 0) record.facts = facts;
  return record;
}

/** The deposit's settlement was checked on chain and every check proven (`deposit verify`, `watch --verify`). */
export interface VerifiedRecord {
  v: 1;
  type: 'verified';
  id: string;
  /**
   * the service (base URL, or "sandbox") of the deposit it is about: one id may be two deposits,
   * one per service. Absent from records of older releases: see depositKey (history-merge.ts).
   */
  baseUrl?: string;
  txid: string;
  at: string;
  /**
   * The deposit's shares and the outputs of txid that paid them: a later verification of another
   * deposit naming the same transaction counts them as taken (one output settles one share).
   */
  shares?: StoredShare[];
}

/** A share as the history keeps it: the script, the outputs, and the exact share in reais as "num/den". */
export interface StoredShare {
  role: 'destination' | 'split';
  script: string;
  outputs: number[];
  share: string;
  rounded: boolean;
}

export function verifiedRecord(
  id: string,
  txid: string,
  now: number,
  shares?: StoredShare[],
): VerifiedRecord {
  const record: VerifiedRecord = {
    v: 1,
    type: 'verified',
    id: canonicalId(id),
    txid,
    at: new Date(now).toISOString(),
  };
  if (shares && shares.length > 0) record.shares = shares;
  return record;
}

/**
 * A later verification of a deposit recorded as verified found otherwise (the transaction gone
 * from the explorer, back in the mempool, below the required depth after a reorg, or now
 * contradicting the deposit): `list` shows this instead of `verified` until it is verified again.
 */
export interface UnverifiedRecord {
  v: 1;
  type: 'unverified';
  id: string;
  /**
   * the service (base URL, or "sandbox") of the deposit it is about: one id may be two deposits,
   * one per service. Absent from records of older releases: see depositKey (history-merge.ts).
   */
  baseUrl?: string;
  txid: string;
  at: string;
  /** what the verification found: pending, not-found, not-settled, unproven or mismatch */
  outcome: string;
}

export function unverifiedRecord(id: string, txid: string, outcome: string, now: number): UnverifiedRecord {
  return { v: 1, type: 'unverified', id: canonicalId(id), txid, outcome, at: new Date(now).toISOString() };
}

/** What the history last said of a deposit's settlement on chain. */
export type ChainFact = VerifiedRecord | UnverifiedRecord;

/**
 * lbrl gave up on a deposit that still waited for payment past the profile's `expire-after`
 * (after one last look): `watch --pending` leaves it alone from then on. Local only: the service
 * knows nothing of it, and a later status (a late payment) moves the deposit on again.
 */
export interface ExpiredRecord {
  v: 1;
  type: 'expired';
  id: string;
  /**
   * the service (base URL, or "sandbox") of the deposit it is about: one id may be two deposits,
   * one per service. Absent from records of older releases: see depositKey (history-merge.ts).
   */
  baseUrl?: string;
  at: string;
}

export function expiredRecord(id: string, now: number): ExpiredRecord {
  return { v: 1, type: 'expired', id: canonicalId(id), at: new Date(now).toISOString() };
}

/** A batch row about to be sent: its Idempotency-Key is reused if the outcome never came back. */
export interface AttemptRecord {
  v: 1;
  type: 'attempt';
  profile: string;
  baseUrl: string;
  batchKey: string;
  idempotencyKey: string;
  at: string;
}

export type HistoryRecord = CreatedRecord | StatusRecord | AttemptRecord;
/** What the file holds: the records above, and facts about deposits that only some readers want. */
export type StoredRecord = HistoryRecord | VerifiedRecord | UnverifiedRecord | ExpiredRecord;

export interface HistoryEntry extends CreatedRecord {
  statusAt: string;
  /** what the final answer said, when the status is final and the history kept it */
  final?: FinalFields;
  /** when its settlement was last verified on chain, if ever */
  verifiedAt?: string;
  /** what the last check on chain found, when it undid an earlier verification */
  onChain?: string;
  /** when lbrl recorded it expired (an `expired` record), unless a later status moved it on */
  expiredAt?: string;
  /**
   * The settlement facts the history holds (seen in a checked answer, or proven on chain), the
   * first recorded of each: every later answer must state them the same.
   */
  facts?: SettlementFacts;
  /** the transaction the latest verification proved; `verifiedAt` holds only for it */
  verifiedTxid?: string;
}

/**
 * What only a deposit's later records state (its status's time, the final answer, a check on
 * chain, an expiry, the settlement facts): a created line holding one (written by hand, or by a
 * tool) states nothing of it. The readers drop them from the creation, so none is believed
 * without the record that proves it.
 */
export const LATER_FIELDS = [
  'statusAt',
  'final',
  'verifiedAt',
  'verifiedTxid',
  'onChain',
  'expiredAt',
  'facts',
] as const;

/** What `--resume` needs to know about the rows of one file, and where the reading stopped. */
export interface BatchState {
  done: Map<string, { id: string; status: string }>;
  attempted: Map<string, string>;
  /** the offset after the last whole line read: pass it as `from` to read only what came since */
  end: number;
}

/** The most entries a fold returns (`list --limit` allows as many). */
export const MAX_ENTRIES = 10_000;
