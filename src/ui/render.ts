import type { ChalkInstance } from 'chalk';
import type { Deposit, GetResponse } from '../api/models.js';
import { decodeLiquidAddress } from '../domain/address.js';
import { decimalFromNumber, decimalToString } from '../domain/decimal.js';
import { formatCents, formatReais } from '../domain/money.js';

export function colorStatus(c: ChalkInstance, status: string): string {
  switch (status) {
    case 'FINALIZED':
      return c.green(status);
    case 'FAILED':
      return c.red(status);
    case 'WAITING_PAYMENT':
      return c.yellow(status);
    default:
      return c.cyan(status);
  }
}

/** 0.0299 -> "2.99%", exactly */
export function percentText(fraction: number): string {
  const d = decimalFromNumber(fraction);
  if (!d) return String(fraction);
  const scale = d.scale - 2;
  const percent =
    scale >= 0 ? { units: d.units, scale } : { units: d.units * 10n ** BigInt(-scale), scale: 0 };
  return `${decimalToString(percent)}%`;
}

const EXPLORERS: Record<string, string> = {
  liquid: 'https://blockstream.info/liquid/tx/',
  liquidtestnet: 'https://blockstream.info/liquidtestnet/tx/',
};

/** The embedded or standing sandbox marks its deposits: no real money, no chain. */
function isSandbox(deposit: Deposit): boolean {
  return (deposit as { sandbox?: unknown }).sandbox === true;
}

export function explorerLink(deposit: Deposit): string | undefined {
  const txid = (deposit as Partial<GetResponse>).settlement?.liquidTxid;
  if (!txid || !/^[0-9a-f]{64}$/i.test(txid) || isSandbox(deposit)) return undefined;
  const net = decodeLiquidAddress(deposit.destinationAddress);
  const base = net.ok ? EXPLORERS[net.value.network] : undefined;
  return base ? `${base}${txid.toLowerCase()}` : undefined;
}

function money(n: number): string {
  const d = decimalFromNumber(n);
  return d ? formatReais(d) : String(n);
}

/**
 * The human view of a deposit: aligned label/value lines. `blinded` is the explorer's
 * `#blinded=…` fragment, when the settlement's outputs were unblinded with a known key.
 */
export function renderDeposit(c: ChalkInstance, d: Deposit, blinded?: string | null): string {
  const rows: Array<[string, string]> = [
    ['Deposit', c.bold(d.id)],
    ['Status', colorStatus(c, d.status)],
    ['Amount', `${formatCents(d.amountInCents)} (${d.amountInCents} cents)`],
    ['Fee', money(d.feeAmount)],
    ['Net', money(d.netAmount)],
    ['To', d.destinationAddress],
  ];
  if (d.splitAddress && d.splitPercent !== null && d.splitPercent !== undefined) {
    rows.push(['Split', `${percentText(d.splitPercent)} of net to ${d.splitAddress}`]);
  }
  rows.push(['Created', d.createdAt]);
  const g = d as Partial<GetResponse>;
  if (g.confirmedAt) rows.push(['Confirmed', g.confirmedAt]);
  if (g.settlement) {
    const s = g.settlement;
    rows.push(['Settlement', `${s.status ?? 'started'}${s.liquidTxid ? ` txid ${s.liquidTxid}` : ''}`]);
    const link = explorerLink(d);
    if (link) rows.push(['Explorer', `${link}${blinded ?? ''}`]);
    else if (isSandbox(d) && s.liquidTxid)
      rows.push(['Explorer', 'none: the sandbox chain is not public (lbrl deposit verify checks it)']);
  }
  if (isSandbox(d)) rows.push(['Mode', c.cyan('sandbox (no real money)')]);
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => `${k.padEnd(width)}${v}`).join('\n');
}
