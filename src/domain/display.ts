/**
 * The customer's screen (`lbrl display`), as rules: what it shows of a deposit at a given time,
 * the shop's name and language as settings, and a copy-paste string fit to be shown. Pure.
 */
import { brCodeAmountCents, readBrCode } from './brcode.js';
import type { Parsed } from './money.js';
import { formatCents } from './money.js';
import { isPaid } from './values.js';

export const LANGS = ['pt', 'en'] as const;
export type Lang = (typeof LANGS)[number];

export function parseLang(input: string): Parsed<Lang> {
  return (LANGS as readonly string[]).includes(input)
    ? { ok: true, value: input as Lang }
    : { ok: false, expected: 'pt (Portuguese, the default) or en (English)' };
}

export const SHOP_NAME_MAX = 40;

/**
 * A shop's name as the customer's screen shows it: 1 to 40 characters of printable text (letters
 * of any script, digits, punctuation, single spaces), none that reorders or hides text.
 */
export function readShopName(input: string): Parsed<string> {
  const expected = `a shop name of 1 to ${SHOP_NAME_MAX} printable characters (no control or invisible characters)`;
  const text = input.normalize('NFC');
  if (text.trim() !== text || text.length === 0 || [...text].length > SHOP_NAME_MAX)
    return { ok: false, expected };
  if (
    !/^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]+$/u.test(text) ||
    /[\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/.test(text)
  )
    return { ok: false, expected };
  if (/\s{2,}/.test(text) || /[^\S ]/.test(text)) return { ok: false, expected };
  return { ok: true, value: text };
}

/** The shop's name shown when the profile has none. */
export const DEFAULT_SHOP_NAME = 'lbrl';

/** What a --verify display says of a paid deposit's settlement on chain. */
export type ChainCheck = 'off' | 'pending' | 'verified' | 'failed';

/** What the page draws: one of five screens, with only what a customer may see. */
export type Screen =
  | { phase: 'idle'; shop: string }
  | {
      phase: 'waiting';
      shop: string;
      amount: string;
      qrCodeText: string;
      /** the QR code as an SVG document, drawn here from qrCodeText */
      qrSvg: string;
      /** epoch ms: created, and when the charge expires */
      createdAt: number;
      expiresAt: number;
    }
  | { phase: 'paid'; shop: string; amount: string; chain: ChainCheck }
  | { phase: 'failed'; shop: string; amount: string }
  | { phase: 'expired'; shop: string; amount: string };

/** What the display knows of the deposit it follows. */
export interface Focus {
  amountInCents: number;
  /** epoch ms of its creation (the history's record) */
  createdAt: number;
  /** the checked copy-paste string, when known */
  qrCodeText?: string | undefined;
  status: string;
  /** epoch ms at which the status shown was reached (or first seen) */
  statusAt: number;
  /** epoch ms of a recorded local expiry, if any */
  expiredAt?: number | undefined;
  chain: ChainCheck;
  /** epoch ms at which the chain check concluded, if it did */
  chainAt?: number | undefined;
  /** epoch ms at which an answer of the service about it broke a rule: not to be paid */
  untrustedAt?: number | undefined;
}

export interface ScreenRules {
  shop: string;
  expireAfterMs: number;
  /** how long a result (paid, failed, expired) stays before the screen goes idle */
  holdMs: number;
}

/**
 * The phase a deposit puts the screen in at `now`, without the QR drawing; undefined when it
 * gives the screen nothing to show (idle).
 */
export function phaseOf(focus: Focus, now: number, rules: ScreenRules): Screen['phase'] {
  const held = (since: number) => now - since < rules.holdMs;
  if (isPaid(focus.status)) {
    const since = Math.max(focus.statusAt, focus.chainAt ?? 0);
    // while the chain is still being checked, the result is not over
    return focus.chain === 'pending' || held(since) ? 'paid' : 'idle';
  }
  if (focus.status === 'FAILED') return held(focus.statusAt) ? 'failed' : 'idle';
  // the service said something of this charge that cannot be trusted: it is not offered any more
  if (focus.untrustedAt !== undefined) return held(focus.untrustedAt) ? 'failed' : 'idle';
  if (focus.status !== 'WAITING_PAYMENT') return 'idle';
  const expiresAt = focus.createdAt + rules.expireAfterMs;
  const expiredAt = focus.expiredAt ?? (now >= expiresAt ? expiresAt : undefined);
  if (expiredAt !== undefined) return held(expiredAt) ? 'expired' : 'idle';
  return 'waiting';
}

/** Whether the copy-paste string may be shown for this amount: a well-formed BR Code, its amount (if any) equal. */
export function showableBrCode(text: string | undefined, amountInCents: number): text is string {
  if (text === undefined) return false;
  const brCode = readBrCode(text);
  if (!brCode.ok) return false;
  const cents = brCodeAmountCents(brCode.value);
  return !(brCode.value.amount !== undefined && cents !== BigInt(amountInCents));
}

/** The screen for a focus at `now` (qrSvg drawn by the caller from the same qrCodeText). */
export function screenOf(
  focus: Focus | undefined,
  now: number,
  rules: ScreenRules,
  qrSvg: (text: string) => string | undefined,
): Screen {
  const shop = rules.shop;
  if (!focus) return { phase: 'idle', shop };
  const phase = phaseOf(focus, now, rules);
  const amount = formatCents(focus.amountInCents);
  switch (phase) {
    case 'waiting': {
      const svg = showableBrCode(focus.qrCodeText, focus.amountInCents) ? qrSvg(focus.qrCodeText) : undefined;
      // no checked code to show yet: nothing to pay, so nothing but the shop's name
      if (svg === undefined || focus.qrCodeText === undefined) return { phase: 'idle', shop };
      return {
        phase,
        shop,
        amount,
        qrCodeText: focus.qrCodeText,
        qrSvg: svg,
        createdAt: focus.createdAt,
        expiresAt: focus.createdAt + rules.expireAfterMs,
      };
    }
    case 'paid':
      return { phase, shop, amount, chain: focus.chain };
    case 'failed':
    case 'expired':
      return { phase, shop, amount };
    default:
      return { phase: 'idle', shop };
  }
}
