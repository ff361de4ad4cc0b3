import type { ChalkInstance } from 'chalk';
import type { DepositResponse, GetResponse } from '../api/models.js';
import { decimalFromNumber, decimalToCents, decimalToString } from '../domain/decimal.js';
import { decodeLiquidAddress } from '../domain/liquid/address.js';
import { formatCents, formatReais } from '../domain/money.js';
import type { LocalFields } from '../domain/text/reference.js';
import { safeText } from '../domain/text/safe-text.js';
import { isHex32 } from '../domain/values.js';
import { colorStatus } from './status-color.js';
import { localTime } from './zone-time.js';

/** 0.0299 -> "2.99%", 0.03 -> "3.00%": exactly, always at least two decimals. */
export function percentText(fraction: number): string {
  const decimal = decimalFromNumber(fraction);
  if (!decimal) return String(fraction);
  const scale = Math.max(decimal.scale - 2, 2);
  const percent = { units: decimal.units * 10n ** BigInt(scale - (decimal.scale - 2)), scale };
  return `${decimalToString(percent)}%`;
}

/** A fraction (0.0299) in hundredths of a percent (299), when it is that exact; else null. */
export function basisPointsOf(fraction: number): number | null {
  const decimal = decimalFromNumber(fraction);
  if (!decimal || decimal.units < 0n || decimal.scale > 4) return null;
  return Number(decimal.units * 10n ** BigInt(4 - decimal.scale));
}

/**
 * How a net amount is shared with a split: the split address gets `basisPoints` hundredths of
 * a percent of it, rounded down to the cent (by integer arithmetic), and the destination the
 * rest, so the two always add up to the net. The service may round its own units otherwise,
 * by less than a cent.
 */
export function splitShares(netCents: bigint, basisPoints: number): { split: bigint; destination: bigint } {
  const split = (netCents * BigInt(basisPoints)) / 10_000n;
  return { split, destination: netCents - split };
}

/** "3.00% of net to <address>: R$ 1,05 (the rest, R$ 33,95, to the destination)" when the net is known. */
export function splitText(fraction: number, address: string, netAmount?: number): string {
  const head = `${percentText(fraction)} of net to ${address}`;
  const basisPoints = basisPointsOf(fraction);
  const net = netAmount === undefined ? null : decimalFromNumber(netAmount);
  const netCents = net ? decimalToCents(net) : null;
  if (basisPoints === null || netCents === null || netCents < 0n) return head;
  const { split, destination } = splitShares(netCents, basisPoints);
  return `${head}: ${formatCents(split)} (the rest, ${formatCents(destination)}, to the destination)`;
}

const EXPLORERS: Record<string, string> = {
  liquid: 'https://blockstream.info/liquid/tx/',
  liquidtestnet: 'https://blockstream.info/liquidtestnet/tx/',
};

/**
 * Where lbrl sent the request decides the mode, never a field of the answer: a live service
 * answering `"sandbox": true` is still real money.
 */
export interface RenderMode {
  /** true only when the request went to lbrl's embedded sandbox */
  sandbox: boolean;
  /** the explorer's `#blinded=…` fragment, when a known key unblinded the settlement's outputs */
  blinded?: string | null;
  /** the time zone of human times (TZ), else the system's */
  timeZone?: string | undefined;
  /** a standing sandbox's base URL (known by its token): its deposits link to its own explorer there */
  serviceUrl?: string | undefined;
  /** the merchant's reference and note, from lbrl's ledger (never from the answer) */
  local?: LocalFields | undefined;
}

export function explorerLink(deposit: DepositResponse, mode: RenderMode): string | undefined {
  const txid = (deposit as Partial<GetResponse>).settlement?.liquidTxid;
  if (!isHex32(txid) || mode.sandbox) return undefined;
  // a standing sandbox's transaction (`lbrl sandbox serve` as a profile) is on its own chain, which
  // it serves as an Esplora API: never a public explorer's page, where that txid means nothing
  if ((deposit as { sandbox?: unknown }).sandbox === true && mode.serviceUrl)
    return `${mode.serviceUrl}/esplora/tx/${txid}`;
  const net = decodeLiquidAddress(deposit.destinationAddress);
  const base = net.ok ? EXPLORERS[net.value.network] : undefined;
  return base ? `${base}${txid}` : undefined;
}

function money(reais: number): string {
  const decimal = decimalFromNumber(reais);
  return decimal ? formatReais(decimal) : String(reais);
}

/**
 * The human view of a deposit: aligned label/value lines. Every value the service gave passes
 * safeText, so no escape sequence of an answer reaches the terminal.
 */
export function renderDeposit(
  colors: ChalkInstance,
  deposit: DepositResponse,
  mode: RenderMode = { sandbox: false },
): string {
  const safe = safeText;
  const timeZone = mode.timeZone;
  const rows: Array<[string, string]> = [['Deposit', colors.bold(safe(deposit.id))]];
  if (mode.local?.ref !== undefined) rows.push(['Ref', safe(mode.local.ref)]);
  if (mode.local?.note !== undefined) rows.push(['Note', safe(mode.local.note)]);
  rows.push(
    ['Status', colorStatus(colors, deposit.status)],
    ['Amount', `${formatCents(deposit.amountInCents)} (${deposit.amountInCents} cents)`],
    ['Fee', money(deposit.feeAmount)],
    ['Net', money(deposit.netAmount)],
    ['To', safe(deposit.destinationAddress)],
  );
  if (deposit.splitAddress && deposit.splitPercent !== null && deposit.splitPercent !== undefined) {
    rows.push(['Split', splitText(deposit.splitPercent, safe(deposit.splitAddress), deposit.netAmount)]);
  }
  rows.push(['Created', safe(localTime(deposit.createdAt, timeZone))]);
  const got = deposit as Partial<GetResponse>;
  if (got.confirmedAt) rows.push(['Confirmed', safe(localTime(got.confirmedAt, timeZone))]);
  if (got.settlement) {
    const settlement = got.settlement;
    rows.push([
      'Settlement',
      `${safe(settlement.status ?? 'started')}${settlement.liquidTxid ? ` txid ${safe(settlement.liquidTxid)}` : ''}`,
    ]);
    const link = explorerLink(deposit, mode);
    if (link) rows.push(['Explorer', `${link}${mode.blinded ?? ''}`]);
    else if (mode.sandbox && settlement.liquidTxid)
      rows.push(['Explorer', 'none: the sandbox chain is not public (lbrl deposit verify checks it)']);
  }
  if (mode.sandbox) rows.push(['Mode', colors.magenta('sandbox (no real money)')]);
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => `${k.padEnd(width)}${v}`).join('\n');
}
