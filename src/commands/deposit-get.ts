import type { GetResponse } from '../api/models.js';
import type { Context } from '../context.js';
import { getChecked } from '../deposits/answers.js';
import type { DepositApi, Recorder } from '../deposits/ports.js';
import { scopeOnTarget, targetKey } from '../deposits/ports.js';
import { settlementFactsOf } from '../domain/settlement-facts.js';
import {
  type LocalFields,
  localFieldsOf,
  REF_MAX,
  readLocalText,
  sameReference,
  withLocalFields,
} from '../domain/text/reference.js';
import { isLaterStatus, isPaid, isTerminal, parseDepositId } from '../domain/values.js';
import { invalidValue, LbrlError, quoted, usageError } from '../errors.js';
import type { Factory } from '../factory/factory.js';
import { settingOf } from '../factory/settings.js';
import { renderModeOf } from '../factory/target.js';
import { type HistoryEntry, statusRecord } from '../store/history-records.js';
import type { Printer } from '../ui/output.js';
import { checkQrPngTarget, qrStyle, renderTerminalQr, writeFileAtomic } from '../ui/qr.js';
import { qrPng } from '../ui/qrpng.js';
import type { FlagDef, OptionsOf } from './define.js';
import { command, listed } from './define.js';
import { ID_ARG, QR_STYLE } from './shared/flag-parts.js';
import type { VerifySetup } from './shared/verify-setup.js';

const GET_FLAGS = [
  { flags: '--ref <text>', help: 'the deposit created with this reference (instead of an id)' },
  { flags: '--qr', help: 'draw the QR code and print the copy-paste string' },
  { flags: '--qr-png <file>', help: 'write the QR code as a PNG file', complete: 'files' },
  QR_STYLE,
] as const satisfies readonly FlagDef[];

export type GetFlags = OptionsOf<typeof GET_FLAGS>;

/**
 * All `deposit get` needs, and nothing more (gh's Options struct): the factory's getters fill it in
 * (`getOptionsOf`); a test hands plain objects, a fake client included, and needs no server.
 */
export interface GetCommandOptions {
  /** the deposit id as typed (absent with --ref) */
  idText: string | undefined;
  flags: GetFlags;
  printer: Printer;
  /** --json and --quiet */
  json: boolean;
  quiet: boolean;
  /** the profile's qr-style setting, when there is one */
  qrStyleSetting: string | undefined;
  /** the environment: its TZ is the time zone of human times */
  env: Record<string, string | undefined>;
  /** the service's client, made only once the input is checked; sandbox: it is the embedded or a standing sandbox */
  client(): Promise<{ api: DepositApi; sandbox: boolean }>;
  /** the explorer link's fragment that shows the unblinded amounts, when a blinding key is set */
  blindedFragment(value: GetResponse): Promise<string | null>;
  /** a standing sandbox's base URL (known by its token), whose deposits link to its own explorer */
  serviceUrl(): string | undefined;
  /** when lbrl recorded this deposit expired (local), if it did */
  expiredAt(id: string): string | undefined;
  /** the ledger's record of this deposit (what its answer is checked against), when it holds one */
  recorded?(id: string): HistoryEntry | undefined;
  /** the reference and note the ledger keeps with this deposit */
  localOf?(id: string): LocalFields;
  /** the ids of this profile's deposits on the target created with reference `ref`, newest first (at most `limit`) */
  idsWithRef?(ref: string, limit: number): string[];
  /** a deposit recorded expired is still waiting (a note) or was paid after all (recorded, and an alarm) */
  afterExpiry(value: GetResponse, expiredAt: string): Promise<void>;
  /** records what the answer settled of a deposit the ledger holds (its end, a settlement fact), when new */
  keepSettled?(value: GetResponse): Promise<void>;
}

/** The factory's getters, narrowed to what `deposit get` uses. */
export function getOptionsOf(
  idText: string | undefined,
  flags: GetFlags,
  factory: Factory,
): GetCommandOptions {
  // the ledger's record of the deposit, read once for the whole get (it was read four times: the
  // expiry, the answer's check, the local fields, what the answer settles anew)
  const held = new Map<string, HistoryEntry | undefined>();
  const recorded = (id: string) => {
    if (!held.has(id)) held.set(id, factory.ledger().recorded(targetKey(factory.target()), id));
    return held.get(id);
  };
  return {
    idText,
    flags,
    printer: factory.printer,
    json: factory.globals.json === true,
    quiet: factory.globals.quiet === true,
    qrStyleSetting: settingOf(factory.profile(), 'qr-style'),
    env: factory.ctx.env,
    async client() {
      const target = factory.target();
      return { api: await factory.client(target), sandbox: target.mode === 'sandbox' };
    },
    blindedFragment: (value) =>
      blindedFragment(value, {
        hasBlindingKeys: () => (factory.profile()['blinding-keys'] ?? []).length > 0,
        verifySetup: async () => (await import('./shared/verify-setup.js')).verifySetupOf(factory),
        printer: factory.printer,
      }),
    serviceUrl: () => renderModeOf(factory.target()).serviceUrl,
    expiredAt: (id) => recorded(id)?.expiredAt,
    recorded,
    localOf: (id) => localFieldsOf(recorded(id)),
    idsWithRef(ref, limit) {
      const { profile, target } = scopeOnTarget(factory.profileName, factory.target());
      return factory
        .ledger()
        .history()
        .entries((r) => sameReference(r.ref, ref) && r.profile === profile && r.baseUrl === target, {
          limit,
        })
        .map((entry) => entry.id);
    },
    afterExpiry: (value, expiredAt) =>
      afterExpiry(value, expiredAt, {
        printer: factory.printer,
        globals: factory.globals,
        ctx: factory.ctx,
        record: (records) => factory.ledger().record(records),
      }),
    async keepSettled(value) {
      const held = recorded(value.id);
      if (held && settlesAnew(held, value))
        await factory.ledger().record([statusRecord(value.id, value.status, factory.ctx.now(), value)]);
    },
  };
}

/**
 * Whether an answer settles more of a deposit than the ledger holds: a status past the one it
 * recorded (a payment seen, an end), or a settlement fact (the txid, confirmedAt) it has not.
 * Recorded once, such a fact is what every later answer, in any command, is held to: a get that
 * saw PIX_CONFIRMED and a later one that shows WAITING_PAYMENT (pay again?), or txid A then B, is
 * a lie said as such, never two truths. Anything else is not recorded, so a script may poll.
 */
function settlesAnew(held: HistoryEntry, value: GetResponse): boolean {
  if (isTerminal(value.status) && held.status !== value.status) return true;
  if (isLaterStatus(value.status, held.status)) return true;
  const known = held.facts ?? {};
  return Object.keys(settlementFactsOf(value)).some((field) => !(field in known));
}

/** Parse, get (every rule of the answer checked), print. */
export async function runGet(options: GetCommandOptions): Promise<void> {
  const { flags, printer } = options;
  const id = chosenId(options);
  const style = qrStyle(flags.qrStyle, options.qrStyleSetting);
  if (flags.qrPng !== undefined) checkQrPngTarget(flags.qrPng);
  const { api, sandbox } = await options.client();
  // the answer passed every rule: qrCodeText is a valid BR Code for the deposit's amount
  const expiredAt = options.expiredAt(id);
  const known = options.recorded ? { recorded: options.recorded(id) } : {};
  const { value, raw } = await getChecked(api, id, known);
  if (expiredAt) await options.afterExpiry(value, expiredAt);
  else await options.keepSettled?.(value);
  const showsCode = flags.qr || flags.qrPng !== undefined;
  if (showsCode && isTerminal(value.status)) {
    // said even with --quiet: the code is shown or written all the same
    printer.err(
      `warning: deposit ${value.id} is ${value.status}: do not pay its QR code or copy-paste string; a payment now would not be settled`,
    );
  }
  if (flags.qrPng !== undefined) {
    // drawn from the checked qrCodeText, never a picture the service sent
    writeFileAtomic(flags.qrPng, await qrPng(value.qrCodeText));
    printer.info(`QR code written to ${flags.qrPng}`);
  }
  const local = options.localOf?.(value.id) ?? {};
  if (options.json) {
    printer.json(withLocalFields(raw, local));
    return;
  }
  if (options.quiet) {
    printer.out(value.status);
    return;
  }
  const [{ renderDeposit }, { timeZoneOf }] = await Promise.all([
    import('../ui/render.js'),
    import('../ui/zone-time.js'),
  ]);
  printer.out(
    renderDeposit(printer.outColor, value, {
      sandbox,
      blinded: sandbox ? null : await options.blindedFragment(value),
      timeZone: timeZoneOf(options.env),
      serviceUrl: options.serviceUrl(),
      local,
    }),
  );
  if (flags.qr) {
    const { safeText } = await import('../domain/text/safe-text.js');
    printer.out('');
    printer.out(await renderTerminalQr(value.qrCodeText, style));
    printer.out('PIX copy-paste:');
    printer.out(safeText(value.qrCodeText));
  }
}

/** The deposit asked for: its id as typed, or the one deposit the ledger holds with --ref. */
function chosenId(options: GetCommandOptions): string {
  const { idText, flags } = options;
  if (flags.ref !== undefined && idText !== undefined)
    throw usageError('give a deposit id or --ref, not both');
  if (flags.ref === undefined) {
    if (idText === undefined)
      throw usageError('give a deposit id, or --ref <text> to find it by its reference');
    const id = parseDepositId(idText);
    if (!id.ok) throw invalidValue('deposit id', idText, id.expected);
    return id.value;
  }
  const ref = readLocalText(flags.ref, REF_MAX);
  if (!ref.ok) throw invalidValue('--ref', flags.ref, ref.expected);
  const ids = options.idsWithRef?.(ref.value, 6) ?? [];
  if (ids.length === 0)
    throw new LbrlError(
      `no deposit with reference ${quoted(ref.value)} in this profile's ledger`,
      'not_found',
      'lbrl deposit list shows the deposits recorded, with their references',
    );
  if (ids.length > 1)
    throw usageError(
      `${ids.length > 5 ? 'more than 5' : ids.length} deposits have reference ${quoted(ref.value)} (${ids.slice(0, 5).join(', ')}): give the one you mean by its id (lbrl deposit list --ref ${shellQuoted(ref.value)} lists them)`,
    );
  return ids[0]!;
}

/** A word for a shell: as it is when plain, else in single quotes. */
function shellQuoted(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** What the blinded link reads: the profile's blinding keys, the verification setup, and where a warning goes. */
interface BlindingSources {
  hasBlindingKeys(): boolean;
  /** the setup of a verification (commands/shared/verify-setup.ts), loaded only when a key is set */
  verifySetup(): Promise<VerifySetup>;
  printer: Pick<Printer, 'warn'>;
}

/**
 * With a blinding key set, the explorer link shows the unblinded amounts (`#blinded=`): the
 * settlement is looked up and opened. Anything that goes wrong leaves the link as it is, with a
 * warning: `get` does not verify (that is `deposit verify`).
 */
async function blindedFragment(value: GetResponse, sources: BlindingSources): Promise<string | null> {
  const txid = value.settlement?.liquidTxid;
  if (!txid || !sources.hasBlindingKeys()) return null;
  const { verifySettlements } = await import('../deposits/verify.js');
  try {
    const setup = await sources.verifySetup();
    try {
      const [outcome] = await verifySettlements(setup.check, [value], setup.settings, setup.ledger);
      return outcome?.report?.blindedFragment ?? null;
    } finally {
      await setup.close();
    }
  } catch (error) {
    sources.printer.warn(
      `warning: the settlement could not be unblinded for the explorer link: ${(error as Error).message}`,
    );
    return null;
  }
}

/** Where afterExpiry writes: the printer, --json, the clock and TZ, and the history's recorder. */
export interface AfterExpiryOutput extends Pick<Recorder, 'record'> {
  printer: Pick<Printer, 'info' | 'err' | 'alarm'>;
  globals: { json?: boolean | undefined };
  ctx: Pick<Context, 'env' | 'now'>;
}

/**
 * A charge lbrl recorded as expired: still waiting, a note; paid after lbrl gave up on it, recorded
 * (so watch --pending follows it again) and said loudly.
 */
export async function afterExpiry(
  value: GetResponse,
  expiredAt: string,
  out: AfterExpiryOutput,
): Promise<void> {
  const printer = out.printer;
  if (value.status === 'WAITING_PAYMENT') {
    const { localTime, timeZoneOf } = await import('../ui/zone-time.js');
    printer.info(
      `note: lbrl recorded this charge EXPIRED (local) at ${localTime(expiredAt, timeZoneOf(out.ctx.env))}: watch --pending no longer follows it (lbrl deposit watch ${value.id} does)`,
    );
    return;
  }
  await out.record([statusRecord(value.id, value.status, out.ctx.now(), value)]);
  // FAILED is an end, not a payment: recorded, and no alarm
  if (!isPaid(value.status)) return;
  const { reportPaidAfterExpiry } = await import('./shared/expiry.js');
  reportPaidAfterExpiry(out, value.id, value.status, expiredAt);
}

export const DEPOSIT_GET = command({
  rank: 30,
  path: 'deposit get',
  description: "show a deposit's status and settlement",
  long: `One request; the answer goes through the same checks as every other, against what the local history knows of the deposit. \`--qr\` and \`--qr-png\` draw the QR code again from the checked copy-paste string (never from the service's PNG), and warn when the deposit is already FINALIZED or FAILED. \`get\` records only what moves a deposit the history holds on (a later status, its settlement transaction), once: a script may poll it, and a later answer is held to what it saw (a payment seen is never unseen).`,
  args: [{ ...ID_ARG, name: '[id]' }],
  flags: GET_FLAGS,
  examples: [
    'lbrl deposit get <id>',
    "lbrl deposit get --ref 'order 1042'",
    'lbrl deposit get <id> --json | jq -r .settlement.liquidTxid',
    'lbrl deposit get <id> --qr --qr-style light',
  ],
  async run({ opts, args: [id], factory }) {
    return runGet(getOptionsOf(id, opts, await factory()));
  },
});

/** The commands this module defines (the manifest lists them: npm run build). */
export const definitions = listed(DEPOSIT_GET);
