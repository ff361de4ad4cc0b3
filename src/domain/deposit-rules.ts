/**
 * Money safety: ONE rule set for every deposit answer, whichever command asked.
 *
 * `checkDeposit(answer, context)` returns every rule the answer breaks, as violations that name
 * the field and both values (already safe to print). The rules come in four groups, each a table
 * of small checks, so a new kind of lie is caught by a rule rather than by a special case:
 *
 * 1. internal: what the interface says of any deposit (sums, split pairing, status, BR Code);
 * 2. by status: what each status says about `settlement` and `confirmedAt`;
 * 3. asked: when lbrl knows the deposit (the create it just sent, or its history), the fields
 *    that were asked (amount, destination, split, id) must be what was asked;
 * 4. seen: every field fixed at creation is compared with the first answer lbrl saw, and the
 *    status may only move forward (terminal statuses never change).
 *
 * Pure, no I/O. Numbers are compared as exact decimals, never as floats.
 */
import { brCodeAmountCents, readBrCode } from './brcode.js';
import {
  type Decimal,
  decimalEquals,
  decimalFromNumber,
  decimalFromText,
  decimalSub,
  decimalToString,
} from './decimal.js';
import {
  ALWAYS_FIELDS,
  CREATE_ONLY_FIELDS,
  createdDepositShape,
  depositShape,
  FIELD_EXPECTED,
  INTEGER_FIELDS,
  isIsoTimestamp,
  MUTABLE_FIELDS,
  OBJECT_FIELDS,
  REQUIRED_NULLABLE,
  SETTLEMENT_FACT_FIELDS,
  type SettlementFacts,
  SPLIT_FIELDS,
  valueAtPath,
} from './deposit.js';
import { centsToDecimalText, MAX_CENTS, MIN_CENTS } from './money.js';
import { JsonNumber, type JsonValue, parseJsonExact } from './text/json-exact.js';
import { safeText, showValue, terminalSafe } from './text/safe-text.js';
import { canonicalId, isHex32, isTerminal, STATUS_ORDER } from './values.js';

export interface Violation {
  /** the field of the answer, e.g. `amount` or `settlement.liquidTxid` */
  field: string;
  /** what the rule wants, in words; safe to print */
  expected: string;
  /** what the answer holds; safe to print */
  received: string;
}

/** A deposit answer as JSON gave it: nothing about its fields is assumed. */
export type DepositAnswer = Readonly<Record<string, unknown>>;

/** What lbrl asked for: the create request it sent, or the deposit's record in its history. */
export interface AskedDeposit {
  /** known once created; compared without case */
  id?: string | undefined;
  amountInCents: number;
  destinationAddress: string;
  /** null: no split was asked; left out: not known, not compared */
  splitAddress?: string | null | undefined;
  /** as sent: `"2.99%"`; null: no split; left out: not known, not compared */
  splitFee?: string | null | undefined;
}

export interface CheckContext {
  /** a create answer (status WAITING_PAYMENT, no settlement yet) or a get answer */
  kind: 'create' | 'get';
  known?: AskedDeposit | undefined;
  /** the first answer lbrl saw for this deposit (usually the create answer) */
  first?: DepositAnswer | undefined;
  /**
   * `first` is what a record kept of the first answer, not the answer itself: a field it does not
   * hold is unknown (a record written before the field existed), never compared as absent.
   */
  firstIsKept?: boolean | undefined;
  /** the settlement facts lbrl recorded of this deposit: a later answer must state each the same */
  facts?: KeptFacts | undefined;
  /** the answer lbrl saw just before this one (a watch's previous poll) */
  previous?: DepositAnswer | undefined;
  /**
   * The body as received, when the caller has it: each number in it must be exactly the value
   * JSON.parse gave (`15.000000000000001` reads as 15, which is not what the service wrote).
   */
  text?: string | undefined;
  /** the time now (ms), when the caller has a clock: no timestamp of the service may lie ahead of it */
  now?: number | undefined;
  /** a get: the id asked for; an answer about another deposit is no answer about this one */
  askedId?: string | undefined;
}

/** The settlement facts lbrl recorded, and the transaction a verification on chain proved. */
export interface KeptFacts {
  values: SettlementFacts;
  /** the transaction lbrl verified on chain, when it did */
  verifiedTxid?: string | undefined;
}

/** How far ahead of lbrl's clock a service timestamp may be (clocks drift): one hour. */
export const CLOCK_SKEW_MS = 60 * 60 * 1000;

/** bech32, blech32 and base58 addresses alike are letters and digits, nothing else */
const ADDRESS_CHARS = /^[0-9A-Za-z]{1,200}$/;

type AnswerRule = (answer: DepositAnswer, ctx: CheckContext) => Violation | Violation[] | undefined;

function violation(field: string, expected: string, received: unknown): Violation {
  return { field, expected, received: showValue(received) };
}

/**
 * Two addresses alike: equal, or a bech32/blech32 address (lbrl's own, already checked when it
 * was sent) written in the other case. Only the syntax is looked at, so the address codecs are not
 * loaded to check an answer (`deposit get --json` stays light); base58 is case-sensitive, and a
 * mixed-case bech32 string is no address at all.
 */
const SEGWIT = /^(ex|tex|ert|lq|tlq|el)1[02-9ac-hj-np-z]+$/;
export function sameAddressText(known: string, got: string): boolean {
  if (known === got) return true;
  const lower = known.toLowerCase();
  return (
    SEGWIT.test(lower) &&
    (got === got.toLowerCase() || got === got.toUpperCase()) &&
    got.toLowerCase() === lower
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An exact decimal from a JSON number, or null when it is not a finite number. */
function dec(value: unknown): Decimal | null {
  return typeof value === 'number' ? decimalFromNumber(value) : null;
}

function isCents(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= MIN_CENTS && value <= MAX_CENTS;
}

/** `"2.99%"` as the fraction the service should echo, `0.0299`; null if not written so. */
export function splitFeeFraction(fee: string): Decimal | null {
  const match = /^(\d{1,3})\.(\d{2})%$/.exec(fee);
  return match ? { units: BigInt(Number(match[1]) * 100 + Number(match[2])), scale: 4 } : null;
}

// 1. internal rules: any deposit answer, known or not --------------------------------------

function expectedOf(path: string): string {
  return (FIELD_EXPECTED as Readonly<Record<string, string>>)[path] ?? 'what the interface says it holds';
}

/**
 * Every field is of the type its schema gives (domain/deposit.ts, the one model): the schema's
 * own check, read out as a violation that names the field and says in words what it holds. An
 * object field is checked field by field. A field missing that the interface requires even when
 * null is said missing once, by the rule before this one.
 */
const ofItsType: AnswerRule = (answer, ctx) => {
  const shape = ctx.kind === 'create' ? createdDepositShape.shape : depositShape.shape;
  const required: readonly string[] = REQUIRED_NULLABLE[ctx.kind];
  const out: Violation[] = [];
  for (const [field, schema] of Object.entries(shape)) {
    const value = answer[field];
    if (!(field in answer) && required.includes(field)) continue;
    const inner = field in OBJECT_FIELDS ? OBJECT_FIELDS[field as keyof typeof OBJECT_FIELDS] : undefined;
    if (inner && isObject(value)) {
      for (const [name, innerSchema] of Object.entries(inner.shape))
        if (!innerSchema.safeParse(value[name]).success)
          out.push(violation(`${field}.${name}`, expectedOf(`${field}.${name}`), value[name]));
    } else if (!schema.safeParse(value).success) out.push(violation(field, expectedOf(field), value));
  }
  return out;
};

const internal: AnswerRule[] = [
  (answer, ctx) =>
    REQUIRED_NULLABLE[ctx.kind]
      .filter((field) => !(field in answer))
      .map((field) =>
        violation(
          field,
          `present (null when it does not apply), as every ${ctx.kind} answer carries it`,
          undefined,
        ),
      ),
  ofItsType,
  (answer, ctx) =>
    ctx.kind === 'create' && answer.status !== 'WAITING_PAYMENT'
      ? violation('status', 'WAITING_PAYMENT (a new deposit)', answer.status)
      : undefined,
  (answer) => {
    const amount = dec(answer.amount);
    if (!amount || !isCents(answer.amountInCents)) return undefined;
    const want = { units: BigInt(answer.amountInCents), scale: 2 };
    return decimalEquals(amount, want)
      ? undefined
      : violation('amount', `amountInCents / 100 = ${decimalToString(want)}`, answer.amount);
  },
  (answer) => {
    const amount = dec(answer.amount);
    const fee = dec(answer.feeAmount);
    if (!fee) return undefined;
    if (fee.units < 0n) return violation('feeAmount', 'at least 0', answer.feeAmount);
    if (amount && decimalSub(amount, fee).units < 0n)
      return violation('feeAmount', `at most the amount, ${decimalToString(amount)}`, answer.feeAmount);
    return undefined;
  },
  (answer) => {
    const amount = dec(answer.amount);
    const fee = dec(answer.feeAmount);
    const net = dec(answer.netAmount);
    if (!net || !amount || !fee) return undefined;
    const want = decimalSub(amount, fee);
    return decimalEquals(net, want)
      ? undefined
      : violation('netAmount', `amount - feeAmount = ${decimalToString(want)}`, answer.netAmount);
  },
  (answer) =>
    typeof answer.destinationAddress === 'string' && ADDRESS_CHARS.test(answer.destinationAddress)
      ? undefined
      : violation(
          'destinationAddress',
          'a Liquid address (letters and digits only)',
          answer.destinationAddress,
        ),
  (answer) => {
    const address = answer.splitAddress ?? null;
    const percent = answer.splitPercent ?? null;
    if (address !== null && (typeof address !== 'string' || !ADDRESS_CHARS.test(address)))
      return violation('splitAddress', 'a Liquid address (letters and digits only) or null', address);
    if ((address === null) !== (percent === null))
      return violation(
        'splitPercent',
        `null exactly when splitAddress is null (splitAddress is ${showValue(address)})`,
        percent,
      );
    return undefined;
  },
  (answer) => {
    const percent = answer.splitPercent ?? null;
    if (percent === null) return undefined;
    const decimal = dec(percent);
    const expected = 'a fraction above 0 and at most 1 with at most 4 decimals (0.0299 is 2.99%)';
    if (
      !decimal ||
      decimal.units <= 0n ||
      decimal.scale > 4 ||
      decimalSub({ units: 1n, scale: 0 }, decimal).units < 0n
    )
      return violation('splitPercent', expected, percent);
    return undefined;
  },
  (answer) => {
    if (typeof answer.qrCodeText !== 'string') return undefined;
    // it is shown as it is (the copy-paste string): nothing in it may act on a terminal or
    // reorder what is shown
    if (terminalSafe(answer.qrCodeText) !== answer.qrCodeText)
      return violation(
        'qrCodeText',
        'a PIX BR Code without control, bidirectional or invisible characters',
        answer.qrCodeText,
      );
    const code = readBrCode(answer.qrCodeText);
    // the reason says more than the long string itself
    if (!code.ok)
      return {
        field: 'qrCodeText',
        expected: 'a valid PIX BR Code',
        received: `one where ${safeText(code.reason)}`,
      };
    if (!code.value.amount || !isCents(answer.amountInCents)) return undefined;
    return brCodeAmountCents(code.value) === BigInt(answer.amountInCents)
      ? undefined
      : violation('qrCodeText amount (54)', centsToDecimalText(answer.amountInCents), code.value.amountText);
  },
  // a deposit cannot have been created, or confirmed, after now
  (answer, { now }) =>
    now === undefined
      ? undefined
      : (['createdAt', 'confirmedAt'] as const)
          .filter(
            (field) =>
              isIsoTimestamp(answer[field]) && Date.parse(answer[field] as string) > now + CLOCK_SKEW_MS,
          )
          .map((field) =>
            violation(
              field,
              `not after now, ${new Date(now).toISOString()} (a time still to come)`,
              answer[field],
            ),
          ),
  (answer) => {
    const confirmedAt = answer.confirmedAt ?? null;
    if (!isIsoTimestamp(confirmedAt)) return undefined;
    if (isIsoTimestamp(answer.createdAt) && Date.parse(confirmedAt) < Date.parse(answer.createdAt))
      return violation('confirmedAt', `not before createdAt ${answer.createdAt}`, confirmedAt);
    return undefined;
  },
  (answer) => {
    const settlement = answer.settlement ?? null;
    if (!isObject(settlement)) return undefined;
    const txid = settlement.liquidTxid ?? null;
    return txid !== null && !isHex32(txid)
      ? violation('settlement.liquidTxid', expectedOf('settlement.liquidTxid'), txid)
      : undefined;
  },
];

// 2. by status: what each status says about the settlement and confirmedAt -----------------

interface StatusRule {
  settlement: 'null' | 'object' | 'any';
  /** a liquidTxid: required, absent (null or missing), or either */
  txid: 'required' | 'absent' | 'any';
  settlementStatus?: string;
  confirmedAt: 'null' | 'set' | 'any';
  why: string;
}

/**
 * The interface states the first and the last row; the rows between follow from the meaning of
 * each status and are kept as loose as that meaning allows (see docs/money-safety.md).
 */
export const STATUS_RULES: Record<string, StatusRule> = {
  WAITING_PAYMENT: {
    settlement: 'null',
    txid: 'absent',
    confirmedAt: 'null',
    why: 'the interface: while the deposit waits for payment, settlement and confirmedAt are null',
  },
  PIX_CONFIRMED: {
    settlement: 'any',
    txid: 'absent',
    confirmedAt: 'any',
    why: 'nothing has been sent on Liquid before TX_SENT',
  },
  SETTLEMENT_CREATED: {
    settlement: 'object',
    txid: 'any',
    confirmedAt: 'any',
    why: 'the settlement has been created',
  },
  TX_SENT: {
    settlement: 'object',
    txid: 'required',
    confirmedAt: 'any',
    why: 'the asset has been sent, so there is a transaction',
  },
  FINALIZED: {
    settlement: 'object',
    txid: 'required',
    settlementStatus: 'FINALIZED',
    confirmedAt: 'set',
    why: 'the interface: a finalized deposit has a settlement with liquidTxid and status, and confirmedAt',
  },
  FAILED: { settlement: 'any', txid: 'any', confirmedAt: 'any', why: 'its meaning is given nowhere' },
};

const byStatus: AnswerRule = (answer) => {
  // a create answer too: it is WAITING_PAYMENT, so a settlement or confirmedAt must be null
  if (typeof answer.status !== 'string') return undefined;
  const rule = STATUS_RULES[answer.status];
  if (!rule) return undefined;
  const out: Violation[] = [];
  const settlement = answer.settlement ?? null;
  const txid = isObject(settlement) ? (settlement.liquidTxid ?? null) : null;
  const at = `at ${answer.status}`;
  if (rule.settlement === 'null' && settlement !== null)
    out.push(violation('settlement', `null ${at}`, settlement));
  if (rule.settlement === 'object' && !isObject(settlement))
    out.push(violation('settlement', `a settlement object ${at} (${rule.why})`, settlement));
  if (isObject(settlement) && rule.settlement !== 'null') {
    if (rule.txid === 'required' && txid === null)
      out.push(
        violation('settlement.liquidTxid', `a Liquid transaction id ${at} (${rule.why})`, txid ?? undefined),
      );
    if (rule.txid === 'absent' && txid !== null)
      out.push(violation('settlement.liquidTxid', `none ${at} (${rule.why})`, txid));
  }
  if (rule.settlementStatus && isObject(settlement) && settlement.status !== rule.settlementStatus)
    out.push(violation('settlement.status', `${rule.settlementStatus} ${at}`, settlement.status));
  const confirmedAt = answer.confirmedAt ?? null;
  if (rule.confirmedAt === 'null' && confirmedAt !== null)
    out.push(violation('confirmedAt', `null ${at}`, confirmedAt));
  if (rule.confirmedAt === 'set' && confirmedAt === null)
    out.push(violation('confirmedAt', `a timestamp ${at} (${rule.why})`, answer.confirmedAt));
  return out;
};

// 3. asked: what lbrl asked for, when it knows the deposit -----------------------------------

const asked: AnswerRule[] = [
  (answer, { askedId }) =>
    askedId !== undefined &&
    (typeof answer.id !== 'string' || canonicalId(answer.id) !== canonicalId(askedId))
      ? violation('id', `${canonicalId(askedId)}, the deposit asked for`, answer.id)
      : undefined,
  (answer, { known }) =>
    known?.id !== undefined &&
    (typeof answer.id !== 'string' || canonicalId(answer.id) !== canonicalId(known.id))
      ? violation('id', canonicalId(known.id), answer.id)
      : undefined,
  (answer, { known }) =>
    known && answer.amountInCents !== known.amountInCents
      ? violation('amountInCents', String(known.amountInCents), answer.amountInCents)
      : undefined,
  (answer, { known }) =>
    known &&
    (typeof answer.destinationAddress !== 'string' ||
      !sameAddressText(known.destinationAddress, answer.destinationAddress))
      ? violation('destinationAddress', known.destinationAddress, answer.destinationAddress)
      : undefined,
  (answer, { known }) => {
    if (!known || known.splitAddress === undefined) return undefined;
    const want = known.splitAddress;
    const got = answer.splitAddress;
    if (want === null)
      return got === null || got === undefined ? undefined : violation('splitAddress', 'null', got);
    return typeof got === 'string' && sameAddressText(want, got)
      ? undefined
      : violation('splitAddress', want, got);
  },
  (answer, { known }) => {
    if (!known || known.splitFee === undefined) return undefined;
    const fee = known.splitFee;
    const got = answer.splitPercent;
    if (fee === null)
      return got === null || got === undefined ? undefined : violation('splitPercent', 'null', got);
    const want = splitFeeFraction(fee);
    const decimal = dec(got);
    if (want && decimal && decimalEquals(want, decimal)) return undefined;
    return violation('splitPercent', want ? `${decimalToString(want)} (${fee})` : fee, got);
  },
];

// 4. seen: what an earlier answer about the same deposit already said -----------------------

/** Two JSON values alike: numbers as exact decimals, ids and segwit addresses without case. */
function sameValue(field: string, first: unknown, later: unknown): boolean {
  if (typeof first === 'number' && typeof later === 'number') {
    const firstDecimal = decimalFromNumber(first);
    const laterDecimal = decimalFromNumber(later);
    return firstDecimal !== null && laterDecimal !== null && decimalEquals(firstDecimal, laterDecimal);
  }
  if (typeof first === 'string' && typeof later === 'string') {
    if (first === later) return true;
    if (field === 'id') return canonicalId(first) === canonicalId(later);
    if (field === 'destinationAddress' || field === 'splitAddress') return sameAddressText(first, later);
    if (field === 'createdAt' || field === 'confirmedAt')
      return isIsoTimestamp(first) && isIsoTimestamp(later) && Date.parse(first) === Date.parse(later);
    return false;
  }
  if (Array.isArray(first) && Array.isArray(later))
    return first.length === later.length && first.every((item, i) => sameValue(field, item, later[i]));
  if (isObject(first) && isObject(later)) {
    const keys = new Set([...Object.keys(first), ...Object.keys(later)]);
    return [...keys].every((key) => sameValue(`${field}.${key}`, first[key], later[key]));
  }
  return first === later;
}

/** A field the model (deposit.ts) says every answer carries. */
const ALWAYS = new Set(ALWAYS_FIELDS);
/** The split's fields: left out means null. */
const NULL_WHEN_ABSENT = new Set(SPLIT_FIELDS);

/**
 * Each settlement fact lbrl recorded (seen in a checked answer, or proven on chain) is stated the
 * same by every later answer: another value, or none, is a contradiction, whatever the status.
 */
const keptFacts: AnswerRule = (answer, { facts }) => {
  if (!facts) return undefined;
  const out: Violation[] = [];
  for (const field of SETTLEMENT_FACT_FIELDS) {
    const kept = facts.values[field];
    if (kept === undefined) continue;
    const now = valueAtPath(answer, field);
    const same =
      field === 'confirmedAt'
        ? isIsoTimestamp(now) && Date.parse(now) === Date.parse(kept)
        : typeof now === 'string' && now === kept;
    if (same) continue;
    const proof =
      field === 'settlement.liquidTxid' && facts.verifiedTxid === kept
        ? 'the settlement lbrl verified on chain'
        : 'as lbrl recorded it';
    out.push(violation(field, `${kept}, ${proof} (a settlement fact never changes)`, now));
  }
  return out;
};

const seen: AnswerRule[] = [
  keptFacts,
  // every field fixed at creation: the same as in the first answer (extra fields too, when both
  // answers carry them); only status, settlement and confirmedAt may change
  (answer, { first, firstIsKept }) => {
    if (!first) return undefined;
    const out: Violation[] = [];
    const keys = new Set([...Object.keys(first), ...Object.keys(answer), ...ALWAYS, ...NULL_WHEN_ABSENT]);
    for (const key of keys) {
      if (MUTABLE_FIELDS.has(key) || CREATE_ONLY_FIELDS.has(key)) continue;
      // a field the kept answer never held (written before the field existed) is unknown
      if (firstIsKept && !Object.hasOwn(first, key)) continue;
      let was = first[key];
      let now = answer[key];
      if (NULL_WHEN_ABSENT.has(key)) {
        was = was ?? null;
        now = now ?? null;
      } else if (!ALWAYS.has(key) && (was === undefined || now === undefined)) continue;
      if (!sameValue(key, was, now))
        out.push(violation(key, `${showValue(was)}, as first answered (it never changes)`, now));
    }
    return out;
  },
  // status only moves forward; FINALIZED and FAILED are final, with all they said
  (answer, { previous }) => {
    if (!previous || typeof previous.status !== 'string' || typeof answer.status !== 'string')
      return undefined;
    const was = previous.status;
    const now = answer.status;
    if (isTerminal(was)) {
      if (now !== was)
        return violation('status', `${was}, as already answered (a final status never changes)`, now);
      const out: Violation[] = [];
      // what the previous answer said (the history keeps only the status)
      for (const key of MUTABLE_FIELDS) {
        if (
          key !== 'status' &&
          key in previous &&
          !sameValue(key, previous[key] ?? null, answer[key] ?? null)
        )
          out.push(
            violation(key, `${showValue(previous[key] ?? null)}, as already answered at ${was}`, answer[key]),
          );
      }
      return out;
    }
    const from = STATUS_ORDER.indexOf(was);
    const to = STATUS_ORDER.indexOf(now);
    if (from >= 0 && to >= 0 && to < from)
      return violation('status', `${was} or a later status (a status never goes back)`, now);
    return undefined;
  },
];

/** The numbers of the body as written, each as exact as the float JSON.parse made of it. */
const asWritten: AnswerRule = (_answer, { text }) => {
  if (text === undefined) return undefined;
  const parsed = parseJsonExact(text);
  if (!parsed.ok) return violation('(body)', 'JSON', parsed.reason);
  const out: Violation[] = [];
  const walk = (value: JsonValue, path: string): void => {
    if (value instanceof JsonNumber) {
      const written = decimalFromText(value.text);
      const read = decimalFromNumber(Number(value.text));
      if (!written || !read || !decimalEquals(written, read))
        out.push(
          violation(path, `a number JSON reads exactly (it reads as ${Number(value.text)})`, value.text),
        );
      else if (INTEGER_FIELDS.has(path) && !/^-?\d+$/.test(value.text))
        out.push(
          violation(path, 'an integer written as one (digits only, as the interface types it)', value.text),
        );
    } else if (Array.isArray(value)) {
      for (const [i, e] of value.entries()) walk(e, `${path}[${i}]`);
    } else if (value !== null && typeof value === 'object')
      for (const [k, e] of Object.entries(value)) walk(e, path ? `${path}.${k}` : k);
  };
  walk(parsed.value, '');
  return out;
};

const RULES: AnswerRule[] = [asWritten, ...internal, byStatus, ...asked, ...seen];

/**
 * Every rule the answer breaks, one violation per field (the first rule a field breaks names it:
 * a field of the wrong type is said to be that, not also each value rule it then fails); an empty
 * list when it keeps them all.
 */
export function checkDeposit(answer: unknown, ctx: CheckContext): Violation[] {
  if (!isObject(answer)) return [violation('(body)', 'a deposit object', answer)];
  const out: Violation[] = [];
  const named = new Set<string>();
  for (const rule of RULES) {
    const found = rule(answer, ctx);
    for (const problem of Array.isArray(found) ? found : found ? [found] : []) {
      if (named.has(problem.field)) continue;
      named.add(problem.field);
      out.push(problem);
    }
  }
  return out;
}

/** One line per violation: `amount: expected 15.00, received 0.01`. */
export function describeViolations(violations: readonly Violation[]): string {
  return violations
    .map((problem) => `${problem.field}: expected ${problem.expected}, received ${problem.received}`)
    .join('; ');
}
