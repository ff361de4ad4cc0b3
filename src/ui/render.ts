import type { ChalkInstance } from 'chalk';
import type { Deposit, GetResponse } from '../api/models.js';
import { decodeLiquidAddress } from '../domain/address.js';
import { decimalFromNumber, decimalToString } from '../domain/decimal.js';
import { formatCents, formatReais } from '../domain/money.js';
import { safeText } from '../domain/safe-text.js';

export function colorStatus(c: ChalkInstance, statusText: string): string {
  const status = safeText(statusText);
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

/**
 * Where lbrl sent the request decides the mode, never a field of the answer: a live service
 * answering `"sandbox": true` is still real money.
 */
export interface RenderMode {
  /** true only when the request went to lbrl's embedded sandbox */
  sandbox: boolean;
  /** the explorer's `#blinded=…` fragment, when a known key unblinded the settlement's outputs */
  blinded?: string | null;
}

export function explorerLink(deposit: Deposit, mode: RenderMode): string | undefined {
  const txid = (deposit as Partial<GetResponse>).settlement?.liquidTxid;
  if (!txid || !/^[0-9a-f]{64}$/.test(txid) || mode.sandbox) return undefined;
  const net = decodeLiquidAddress(deposit.destinationAddress);
  const base = net.ok ? EXPLORERS[net.value.network] : undefined;
  return base ? `${base}${txid.toLowerCase()}` : undefined;
}

function money(n: number): string {
  const d = decimalFromNumber(n);
  return d ? formatReais(d) : String(n);
}

/**
 * The human view of a deposit: aligned label/value lines. Every value the service gave passes
 * safeText, so no escape sequence of an answer reaches the terminal. `mode.blinded` is the
 * explorer's `#blinded=…` fragment, when the settlement's outputs were unblinded with a known key.
 */
export function renderDeposit(c: ChalkInstance, d: Deposit, mode: RenderMode = { sandbox: false }): string {
  const t = safeText;
  const rows: Array<[string, string]> = [
    ['Deposit', c.bold(t(d.id))],
    ['Status', colorStatus(c, d.status)],
    ['Amount', `${formatCents(d.amountInCents)} (${d.amountInCents} cents)`],
    ['Fee', money(d.feeAmount)],
    ['Net', money(d.netAmount)],
    ['To', t(d.destinationAddress)],
  ];
  if (d.splitAddress && d.splitPercent !== null && d.splitPercent !== undefined) {
    rows.push(['Split', `${percentText(d.splitPercent)} of net to ${t(d.splitAddress)}`]);
  }
  rows.push(['Created', t(d.createdAt)]);
  const g = d as Partial<GetResponse>;
  if (g.confirmedAt) rows.push(['Confirmed', t(g.confirmedAt)]);
  if (g.settlement) {
    const s = g.settlement;
    rows.push(['Settlement', `${t(s.status ?? 'started')}${s.liquidTxid ? ` txid ${t(s.liquidTxid)}` : ''}`]);
    const link = explorerLink(d, mode);
    if (link) rows.push(['Explorer', `${link}${mode.blinded ?? ''}`]);
    else if (mode.sandbox && s.liquidTxid)
      rows.push(['Explorer', 'none: the sandbox chain is not public (lbrl deposit verify checks it)']);
  }
  if (mode.sandbox) rows.push(['Mode', c.cyan('sandbox (no real money)')]);
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => `${k.padEnd(width)}${v}`).join('\n');
}
