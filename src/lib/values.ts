/**
 * The value parsers of the command line, for a program: the same rules and the same messages,
 * but a refused value throws (type `usage`, exit code 2) instead of returning a result.
 */

import { brCodeAmountCents, readBrCode } from '../domain/brcode.js';
import { checkLiquidAddress, type LiquidAddress } from '../domain/liquid/address.js';
import { isNetwork, NETWORKS, type Network } from '../domain/liquid/networks.js';
import { parseReais, readCents } from '../domain/money.js';
import { readSplitFee, type SplitFee } from '../domain/split.js';
import { invalidValue, usageError } from '../errors.js';

export type { LiquidAddress, Network, SplitFee };

function text(name: string, value: unknown, expected: string): string {
  if (typeof value !== 'string')
    throw usageError(`${name} must be a string (${expected}), not ${typeof value}`);
  return value;
}

/** Reais as people write them (`1500`, `15.5`, `15,50`) to integer cents, by string arithmetic. */
export function parseAmount(reais: string): number {
  const input = text('amount', reais, 'reais such as "15.50"');
  const parsed = parseReais(input);
  if (!parsed.ok) throw invalidValue('amount', input, parsed.expected);
  return parsed.value;
}

/** Integer cents, from a whole number or its digits; 1 to 600000. */
export function parseCents(cents: number | string): number {
  const input = typeof cents === 'number' && Number.isSafeInteger(cents) ? String(cents) : cents;
  if (typeof input === 'number') throw invalidValue('amountCents', String(input), 'a whole number of cents');
  const parsed = readCents(text('amountCents', input, 'a whole number of cents'));
  if (!parsed.ok) throw invalidValue('amountCents', input, parsed.expected);
  return parsed.value;
}

/** Checks a network name: liquid, liquidtestnet or elementsregtest. */
export function parseNetwork(value: unknown): Network {
  const name = text('network', value, NETWORKS.join(', '));
  if (!isNetwork(name)) throw invalidValue('network', name, NETWORKS.join(', '));
  return name;
}

/** A Liquid address checked for the network (checksum, type, network), as lbrl would send it. */
export function parseAddress(address: string, network: Network = 'liquid'): LiquidAddress {
  const input = text('address', address, 'a Liquid address');
  const net = parseNetwork(network);
  const checked = checkLiquidAddress(input, net);
  if (!checked.ok) throw invalidValue('address', input, `a Liquid address on ${net}: ${checked.reason}`);
  return checked.value;
}

/** A split fee (`2.99%`, `2.99`, `2,99`): above 0, at most 100, two decimals at most. */
export function parseSplitFee(fee: string): SplitFee {
  const input = text('splitFee', fee, 'a percentage such as "2.99%"');
  const parsed = readSplitFee(input);
  if (!parsed.ok) throw invalidValue('splitFee', input, parsed.expected);
  return parsed.value;
}

/** A PIX BR Code (copy-paste string), its CRC and fields checked. */
export interface PixCode {
  /** static: a key (field 01); dynamic: a URL (field 25) behind which the amount lives */
  kind: 'static' | 'dynamic';
  key?: string;
  url?: string;
  /** field 54 as written, when present */
  amountText?: string;
  /** field 54 in cents, when present and exact */
  amountInCents?: number;
  merchantName: string;
  merchantCity: string;
  txid?: string;
}

export function parseBrCode(code: string): PixCode {
  const input = text('BR Code', code, 'a PIX copy-paste string');
  const brCode = readBrCode(input);
  if (!brCode.ok) throw invalidValue('BR Code', input, `a PIX BR Code: ${brCode.reason}`);
  const { amount: _exact, ...fields } = brCode.value;
  const cents = brCodeAmountCents(brCode.value);
  return cents === null ? fields : { ...fields, amountInCents: Number(cents) };
}

/** `R$ 1.500,00` from integer cents: the command line's own formatting, re-exported as it is. */
export { formatCents } from '../domain/money.js';
