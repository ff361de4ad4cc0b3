/**
 * The one place every deposit answer of the service passes before anything is printed or
 * recorded: create, get, watch, create --watch, list --refresh, watch --pending and create --from
 * alike. The client has already read the answer into the models (api/models.ts) and checked that
 * a GET answered for the id asked; here the one rule set (domain/deposit-rules.ts) is applied with
 * everything lbrl knows of the deposit:
 *
 * - always, the internal rules of the interface and what each status says of the settlement;
 * - the request just sent, or the history's record of it: the fields that were asked;
 * - the first answer seen (in this process, or the create answer's fixed fields the history kept):
 *   fields fixed at creation never change;
 * - the previous answer (in this process, or the status the history last recorded): the status
 *   only moves forward, and a final one never changes.
 */
import type { ApiResult } from '../api/client.js';
import type { CreateRequest, CreateResponse, DepositResponse, GetResponse } from '../api/models.js';
import type {
  AskedDeposit,
  CheckContext,
  DepositAnswer,
  KeptFacts,
  Violation,
} from '../domain/deposit-rules/rule.js';
import type { Network } from '../domain/liquid/networks.js';
import { type SettlementFacts, settlementFactsOf } from '../domain/settlement-facts.js';
import { canonicalId } from '../domain/values.js';
import { LbrlError } from '../errors.js';
import type { CreatedRecord, HistoryEntry } from '../store/history-records.js';
import { addressProblems } from './answer-addresses.js';
import type { DepositApi } from './ports.js';

/** What we know of a deposit before its answer arrives. */
export interface Known {
  /** create: the request just sent */
  request?: CreateRequest | undefined;
  /**
   * what the local history recorded when it was created, when it did; as an entry, with the
   * latest status seen (and what a final answer said)
   */
  recorded?: CreatedRecord | HistoryEntry | undefined;
  /** the first answer seen about it */
  first?: DepositAnswer | undefined;
  /** the answer seen just before this one */
  previous?: DepositAnswer | undefined;
  /** a get: the id asked for (the client checks it too; a DepositApi of another make may not) */
  askedId?: string | undefined;
  /** the settlement facts seen before in this process (the history's are read from `recorded`) */
  facts?: SettlementFacts | undefined;
  /** a create: when lbrl sent it, when its Idempotency-Key was never sent before (domain/answer-times.ts) */
  sentAt?: number | undefined;
  /** a create: its Idempotency-Key, named when its answer is refused (the deposit may exist) */
  idempotencyKey?: string | undefined;
  /** a get: the profile's network, which an address lbrl did not send must belong to */
  network?: Network | undefined;
}

export type AnswerKind = 'create' | 'get';

function knownDeposit(known: Known): AskedDeposit | undefined {
  const { request, recorded: record } = known;
  if (request)
    return {
      amountInCents: request.amountInCents,
      destinationAddress: request.lbrlAddress,
      splitAddress: request.lbrlSplitAddress ?? null,
      splitFee: request.splitFee ?? null,
    };
  if (record)
    return {
      id: record.id,
      amountInCents: record.amountInCents,
      destinationAddress: record.destinationAddress,
      splitAddress: record.splitAddress,
      splitFee: record.splitFee,
    };
  return undefined;
}

/** The first answer as the history's record gives it back, when it kept the create answer's fields. */
function firstFromRecord(created: CreatedRecord | undefined): DepositAnswer | undefined {
  if (!created?.answer) return undefined;
  return {
    id: created.id,
    amountInCents: created.amountInCents,
    destinationAddress: created.destinationAddress,
    splitAddress: created.splitAddress,
    ...created.answer,
  };
}

/** The last answer as the history gives it back: its status, and what a final one said. */
function previousFromRecord(record: CreatedRecord | HistoryEntry | undefined): DepositAnswer | undefined {
  if (!record) return undefined;
  const final = 'final' in record ? record.final : undefined;
  return final ? { status: record.status, ...final } : { status: record.status };
}

/**
 * The settlement facts lbrl holds of the deposit: those the history recorded (seen in an answer,
 * or proven on chain), then those seen in this process; the first known of each is kept.
 */
function keptFactsOf(known: Known): KeptFacts | undefined {
  const recorded = known.recorded && 'facts' in known.recorded ? known.recorded : undefined;
  const values: SettlementFacts = { ...known.facts, ...recorded?.facts };
  if (Object.keys(values).length === 0) return undefined;
  return { values, verifiedTxid: recorded?.verifiedTxid };
}

function contextOf(kind: AnswerKind, known: Known, text: string | undefined): CheckContext {
  const recorded = known.recorded;
  return {
    kind,
    askedId: known.askedId,
    known: knownDeposit(known),
    first: known.first ?? firstFromRecord(recorded),
    firstIsKept: known.first === undefined && recorded?.answer !== undefined,
    facts: kind === 'get' ? keptFactsOf(known) : undefined,
    previous: known.previous ?? (kind === 'get' ? previousFromRecord(recorded) : undefined),
    text,
    now: Date.now(),
    sentAt: known.sentAt,
  };
}

let rules: Promise<typeof import('../domain/deposit-rules.js')> | undefined;

/** The rule set, loaded once, when first needed. */
function loadRules(): Promise<typeof import('../domain/deposit-rules.js')> {
  rules ??= import('../domain/deposit-rules.js');
  return rules;
}

/**
 * The rule set loaded while a request is under way (once it is sent, at the loop's next turn),
 * not after its answer arrived: the process loads it while the service answers. A failure to
 * load is the check's own, said when the answer is checked.
 */
function loadRulesMeanwhile(): void {
  if (rules) return;
  setImmediate(() => {
    loadRules().catch(() => {});
  });
}

/**
 * Every rule the answer breaks, empty when it can be trusted. The rules are loaded when needed,
 * so `deposit get --json` loads nothing more than it needs.
 */
export async function answerProblems(
  kind: AnswerKind,
  answer: unknown,
  known: Known = {},
  text?: string,
): Promise<Violation[]> {
  const { checkDeposit } = await loadRules();
  return checkDeposit(answer, contextOf(kind, known, text));
}

/**
 * The answer itself (its id in canonical lower case; `raw` as the service returned it, for
 * --json), or an error (exit 1) that names every problem; never a partial trust.
 */
export async function checkAnswer<T extends DepositResponse>(
  kind: AnswerKind,
  answer: ApiResult<T>,
  known: Known = {},
): Promise<ApiResult<T>> {
  const raw = typeof answer.raw === 'object' && answer.raw !== null ? answer.raw : answer.value;
  // one line per field: checkDeposit names a field that breaks two rules (asked, and first seen) once
  const violations = await answerProblems(kind, raw, known, answer.text);
  if (kind === 'get') {
    // an address lbrl did not send (nor saw in a first answer) is decoded: answer-addresses.ts
    const sent = knownDeposit(known) ?? known.first;
    const named = new Set(violations.map((problem) => problem.field));
    const wrong = await addressProblems(raw, sent, known.network);
    violations.push(...wrong.filter((problem) => !named.has(problem.field)));
  }
  if (violations.length > 0) {
    const { showValue } = await import('../domain/text/safe-text.js');
    const id = showValue(answer.value.id);
    if (kind === 'create') {
      const detail = violations
        .map((m) => `${m.field}: sent ${m.expected}, service answered ${m.received}`)
        .join('; ');
      // the service may hold the deposit it answered: said, with the key that finds it again
      const mayExist =
        known.idempotencyKey === undefined
          ? ''
          : ` A deposit may exist (Idempotency-Key ${known.idempotencyKey}); nothing was recorded.`;
      throw new LbrlError(
        `the service's answer does not match the request for deposit ${id}: ${detail}.${mayExist} Do not pay this charge`,
        'mismatch',
      );
    }
    const detail = violations
      .map((m) => `${m.field}: expected ${m.expected}, service answered ${m.received}`)
      .join('; ');
    throw new LbrlError(
      `the service's answer about deposit ${id} cannot be trusted: ${detail}. Do not pay this charge or trust its status`,
      'mismatch',
    );
  }
  return { ...answer, value: { ...answer.value, id: canonicalId(answer.value.id) } };
}

/** What one client has seen of each deposit in this process. */
interface SeenDeposit {
  request?: CreateRequest;
  recorded?: CreatedRecord | HistoryEntry | undefined;
  looked?: boolean;
  first?: DepositAnswer;
  previous?: DepositAnswer;
  /** the settlement facts every answer seen stated, the first of each */
  facts?: SettlementFacts;
  /** the Idempotency-Key of the create that answered it, in this process */
  idempotencyKey?: string;
}
const seenBy = new WeakMap<object, Map<string, SeenDeposit>>();
/** How many deposits one client remembers (a long-running program's client forgets the oldest). */
const SEEN_LIMIT = 10_000;

function seenOf(api: DepositApi, id: string): SeenDeposit {
  const owner = api.seenAs ?? api;
  let byId = seenBy.get(owner);
  if (!byId) {
    byId = new Map();
    seenBy.set(owner, byId);
  }
  if (byId.size >= SEEN_LIMIT && !byId.has(canonicalId(id))) byId.delete(byId.keys().next().value as string);
  const key = canonicalId(id);
  let seen = byId.get(key);
  if (!seen) {
    seen = {};
    byId.set(key, seen);
  }
  return seen;
}

function remember(seen: SeenDeposit, raw: unknown): void {
  const answer = raw as DepositAnswer;
  seen.first ??= answer;
  seen.previous = answer;
  seen.facts = { ...settlementFactsOf(answer), ...seen.facts };
}

/**
 * GET one deposit, through the choke point, checked against everything known of it: what
 * `known` says, what this client saw of it before, and what the history recorded.
 */
export async function getChecked(
  api: DepositApi,
  id: string,
  known: Known = {},
): Promise<ApiResult<GetResponse>> {
  const seen = seenOf(api, id);
  if (!seen.looked) {
    // given (a record, or undefined: the caller looked and the history has none), or looked up
    seen.recorded = 'recorded' in known ? known.recorded : api.recorded?.(canonicalId(id));
    seen.looked = true;
  }
  const asked = api.getDeposit(id);
  loadRulesMeanwhile();
  const answer = await asked.catch((error: unknown) => {
    // an answer that is not even a deposit: no more to be trusted than one that breaks a rule
    if (error instanceof LbrlError && error.type === 'contract')
      throw new LbrlError(`${error.message}. Do not pay this charge or trust its status`, 'contract');
    throw error;
  });
  const checked = await checkAnswer('get', answer, {
    askedId: id,
    request: known.request ?? seen.request,
    recorded: known.recorded ?? seen.recorded,
    first: known.first ?? seen.first,
    previous: known.previous ?? seen.previous,
    facts: { ...known.facts, ...seen.facts },
    network: known.network ?? api.network,
  });
  remember(seen, checked.raw);
  return checked;
}

/**
 * A create answers a new deposit: an id this client already saw, or one the history holds for
 * this service, is another deposit's, reused by the service or a lie. It is refused (exit 1)
 * before anything is recorded or shown as payable, and never adopts the deposit it names.
 */
function refuseReusedId(id: string, seen: SeenDeposit, api: DepositApi, idempotencyKey: string): void {
  // the same create sent again with its Idempotency-Key answers the same deposit: no reuse
  if (seen.idempotencyKey === idempotencyKey) return;
  const held = api.holds ? api.holds(id) : true;
  const recorded = seen.recorded ?? (held ? api.recorded?.(id) : undefined);
  if (!seen.first && !seen.request && !recorded && !(api.holds && held)) return;
  const earlier = recorded
    ? `already in the history (created ${recorded.at}, ${recorded.amountInCents} cents, ${recorded.status})`
    : seen.first || seen.request
      ? 'already answered to another request in this run'
      : 'already in the history, for another service';
  throw new LbrlError(
    `the service answered this create with the id of deposit ${id}, ${earlier}: a new charge never reuses an id. Nothing was recorded. Do not pay this charge`,
    'mismatch',
  );
}

/**
 * lbrl's clock for a create, and whether its Idempotency-Key is new (never sent before): then the
 * deposit answered was made now, within the tolerance of domain/answer-times.ts; else (a row sent
 * again with --resume, a caller's own key) it may be up to a day older.
 */
export interface CreateClock {
  now?: () => number;
  keyIsNew?: boolean;
}

/** POST one create, through the choke point. */
export async function createAnswer(
  api: DepositApi,
  body: CreateRequest,
  idempotencyKey: string,
  clock: CreateClock = {},
): Promise<ApiResult<CreateResponse>> {
  const sentAt = clock.keyIsNew && clock.now ? clock.now() : undefined;
  const sent = api.createDeposit(body, idempotencyKey);
  loadRulesMeanwhile();
  const answer = await sent;
  const checked = await checkAnswer('create', answer, { request: body, sentAt, idempotencyKey });
  const seen = seenOf(api, checked.value.id);
  refuseReusedId(checked.value.id, seen, api, idempotencyKey);
  seen.request = body;
  seen.idempotencyKey = idempotencyKey;
  seen.looked = true;
  remember(seen, checked.raw);
  return checked;
}
