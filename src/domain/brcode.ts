/**
 * PIX BR Code (EMV QR Code MPM, Banco Central do Brasil): parse, check and build the
 * copy-paste string.
 */
import { type Decimal, decimalFromText, decimalToCents } from './decimal.js';

export const PIX_GUI = 'br.gov.bcb.pix';

/** CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final XOR. */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

export interface TlvField {
  id: string;
  value: string;
}

export function parseTlv(text: string): TlvField[] | string {
  const fields: TlvField[] = [];
  let pos = 0;
  while (pos < text.length) {
    const head = text.slice(pos, pos + 4);
    if (!/^\d{4}$/.test(head)) return `field at position ${pos} has no 2-digit id and 2-digit length`;
    const id = head.slice(0, 2);
    const len = Number(head.slice(2));
    const value = text.slice(pos + 4, pos + 4 + len);
    if (value.length !== len) return `field ${id} is cut short`;
    fields.push({ id, value });
    pos += 4 + len;
  }
  return fields;
}

export interface BrCode {
  /** `01` key (static) or `25` URL (dynamic) */
  kind: 'static' | 'dynamic';
  key?: string;
  url?: string;
  /** field 54, when present */
  amount?: Decimal;
  amountText?: string;
  merchantName: string;
  merchantCity: string;
  txid?: string;
}

export type BrCodeResult = { ok: true; value: BrCode } | { ok: false; reason: string };

function bad(reason: string): BrCodeResult {
  return { ok: false, reason };
}

export function readBrCode(text: string): BrCodeResult {
  if (!/^[\x20-\x7e\u00a0-\uffff]+$/.test(text)) return bad('it is empty or has control characters');
  const fields = parseTlv(text);
  if (typeof fields === 'string') return bad(fields);
  const first = fields[0];
  if (first?.id !== '00' || first.value !== '01') return bad('it does not start with payload format 000201');
  const last = fields[fields.length - 1];
  if (last?.id !== '63' || last.value.length !== 4) return bad('it does not end with a 4-digit CRC field 63');
  const expected = crc16(text.slice(0, text.length - 4));
  if (last.value.toUpperCase() !== expected)
    return bad(`its CRC is ${last.value}, but its content gives ${expected}`);
  const ids = new Set<string>();
  for (const field of fields) {
    if (ids.has(field.id)) return bad(`field ${field.id} appears twice`);
    ids.add(field.id);
  }
  const get = (id: string) => fields.find((f) => f.id === id)?.value;

  let account: TlvField[] | undefined;
  for (const field of fields) {
    const fieldId = Number(field.id);
    if (fieldId < 26 || fieldId > 51) continue;
    const sub = parseTlv(field.value);
    if (typeof sub === 'string') return bad(`merchant account field ${field.id}: ${sub}`);
    if (sub.find((s) => s.id === '00')?.value.toLowerCase() === PIX_GUI) {
      account = sub;
      break;
    }
  }
  if (!account) return bad(`it has no merchant account with GUI ${PIX_GUI}`);
  const key = account.find((s) => s.id === '01')?.value;
  const url = account.find((s) => s.id === '25')?.value;
  if (!key && !url) return bad('its PIX account has neither a key (01) nor a URL (25)');

  if (get('52') === undefined) return bad('it has no merchant category code (52)');
  if (get('53') !== '986') return bad(`its currency (53) is ${get('53') ?? 'missing'}, not 986 (BRL)`);
  if (get('58') !== 'BR') return bad(`its country (58) is ${get('58') ?? 'missing'}, not BR`);
  const merchantName = get('59');
  if (!merchantName || merchantName.length > 25)
    return bad('its merchant name (59) is missing or longer than 25');
  const merchantCity = get('60');
  if (!merchantCity || merchantCity.length > 15)
    return bad('its merchant city (60) is missing or longer than 15');

  const result: BrCode = { kind: url ? 'dynamic' : 'static', merchantName, merchantCity };
  if (key) result.key = key;
  if (url) result.url = url;
  const amountText = get('54');
  if (amountText !== undefined) {
    const amount = /^\d{1,10}(\.\d{1,2})?$/.test(amountText) ? decimalFromText(amountText) : null;
    if (!amount) return bad(`its amount (54) ${JSON.stringify(amountText)} is not a decimal amount`);
    result.amount = amount;
    result.amountText = amountText;
  }
  const additional = get('62');
  if (additional !== undefined) {
    const sub = parseTlv(additional);
    if (typeof sub === 'string') return bad(`additional data (62): ${sub}`);
    const txid = sub.find((s) => s.id === '05')?.value;
    if (txid !== undefined) result.txid = txid;
  }
  return { ok: true, value: result };
}

/** The amount of field 54 in cents, when present and exact. */
export function brCodeAmountCents(code: BrCode): bigint | null {
  return code.amount ? decimalToCents(code.amount) : null;
}

function tlv(id: string, value: string): string {
  if (value.length > 99) throw new Error(`BR Code field ${id} is longer than 99`);
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

export interface BrCodeInput {
  url: string;
  amountText?: string;
  merchantName: string;
  merchantCity: string;
}

/** A dynamic BR Code (pay once) for a URL, with its CRC. */
export function buildDynamicBrCode(input: BrCodeInput): string {
  const body =
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('26', tlv('00', PIX_GUI) + tlv('25', input.url)) +
    tlv('52', '0000') +
    tlv('53', '986') +
    (input.amountText ? tlv('54', input.amountText) : '') +
    tlv('58', 'BR') +
    tlv('59', input.merchantName) +
    tlv('60', input.merchantCity) +
    tlv('62', tlv('05', '***')) +
    '6304';
  return body + crc16(body);
}
