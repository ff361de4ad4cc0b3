/**
 * verifyWebhook accepts exactly what the reference library (npm `standardwebhooks`) accepts:
 * fast-check makes deliveries signed by the reference and then changed the ways a header can be
 * (another encoding of the same signature bytes: low bits of the last base64 character, no
 * padding, junk after it; several signatures and the spaces between them; versions; timestamps at
 * and past the tolerance's edges, with leading zeros, signs, junk; ids of any text; names in any
 * case), and both judge each one at the same clock. lbrl never throws anything but a
 * WebhookVerificationError, and never accepts what the reference refuses, nor the reverse.
 */
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventBody, formatSecret } from '../../src/domain/webhook.js';
import { verifyWebhook, WebhookVerificationError } from '../../src/index.js';

const NOW = Date.parse('2026-11-24T10:00:00.000Z');
const NOW_S = Math.floor(NOW / 1000);
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

beforeAll(() => {
  // the reference reads Date.now(): both judge at the same clock
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});
afterAll(() => vi.useRealTimers());

function referenceAccepts(secret: string, body: string, headers: Record<string, string>): boolean {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

function lbrlAccepts(secret: string, body: string, headers: Record<string, string>): boolean {
  try {
    verifyWebhook(body, headers, secret, { now: () => NOW });
    return true;
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    return false;
  }
}

/** Another text of a base64 signature: the same bytes or not, as a sloppy decoder would read them. */
const reencoding = fc.oneof(
  { arbitrary: fc.constant((b64: string) => b64), weight: 6 },
  // the last character's unused low bits changed: a lenient decoder reads the same 32 bytes
  fc.integer({ min: 1, max: 3 }).map((bits) => (b64: string) => {
    const last = b64.at(-2)!;
    return `${b64.slice(0, -2)}${BASE64[BASE64.indexOf(last) ^ bits]}=`;
  }),
  fc.constant((b64: string) => b64.replace(/=+$/, '')),
  fc.string({ maxLength: 4 }).map((junk) => (b64: string) => `${b64}${junk}`),
  fc.constant((b64: string) => `${b64}=`),
  fc.constant((b64: string) => b64.replace(/\+/g, '-').replace(/\//g, '_')),
  fc.constant((b64: string) => Buffer.from(b64, 'base64').toString('hex')),
  fc.constant((b64: string) => b64.toLowerCase()),
);

/** A signature header part: a version, a comma, a signature text (and maybe more fields). */
const part = (good: string, other: string) =>
  fc.record({
    version: fc.constantFrom('v1', 'v1', 'v1', 'V1', 'v2', 'v1a', '', ' v1'),
    value: fc.constantFrom(good, good, other),
    encode: reencoding,
    tail: fc.constantFrom('', '', '', '', ',', ',junk', ',v1'),
  });

const timestampText = fc.record({
  shift: fc.oneof(fc.constantFrom(-301, -300, -299, 0, 299, 300, 301), fc.integer({ min: -1000, max: 1000 })),
  form: fc.constantFrom(
    'plain',
    'plain',
    'plain',
    'plain',
    'zeros',
    'plus',
    'junk',
    'space',
    'decimal',
    'minus-zero',
    'empty',
  ),
});

function timestampOf(seconds: number, form: string): string {
  switch (form) {
    case 'zeros':
      return `000${seconds}`;
    case 'plus':
      return `+${seconds}`;
    case 'junk':
      return `${seconds}abc`;
    case 'space':
      return ` ${seconds}`;
    case 'decimal':
      return `${seconds}.9`;
    case 'minus-zero':
      return `-0${seconds}`;
    case 'empty':
      return '';
    default:
      return String(seconds);
  }
}

describe('verifyWebhook against the standardwebhooks package', () => {
  it('accepts exactly the deliveries the reference accepts', () => {
    let accepted = 0;
    let runs = 0;
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 100 }),
        fc.oneof(fc.constantFrom('evt_abc', 'msg_2Kx', ''), fc.string({ maxLength: 12 })),
        fc.constantFrom('FINALIZED', 'ção 💸', 'x"y'),
        timestampText,
        fc.record({
          signedShift: fc.constantFrom(0, 0, 0, 0, 0, 1, -1),
          parts: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
          separator: fc.constantFrom(' ', ' ', '  ', '\t', ', '),
          lead: fc.constantFrom('', '', ' '),
        }),
        fc.constantFrom('lower', 'upper', 'mixed'),
        (keyBytes, id, note, when, shape, names) => {
          const secret = formatSecret(keyBytes);
          const body = eventBody({
            type: 'deposit.finalized',
            at: NOW,
            deposit: { id: '3f2a6c1e-8a7b-4c3d-9e0f-112233445566', status: 'FINALIZED', note },
            previousStatus: 'TX_SENT',
          });
          const seconds = NOW_S + when.shift;
          // signed by the reference at the delivery's time (or a second off: a timestamp moved)
          const good = new Webhook(secret)
            .sign(id, new Date((seconds + shape.signedShift) * 1000), body)
            .slice('v1,'.length);
          const other = new Webhook(formatSecret(keyBytes.map((b) => b ^ 1)))
            .sign(id, new Date(seconds * 1000), body)
            .slice(3);
          const parts = fc.sample(part(good, other), {
            numRuns: shape.parts.length,
            seed: shape.parts[0] ?? 0,
          });
          const signatureHeader =
            shape.lead + parts.map((p) => `${p.version},${p.encode(p.value)}${p.tail}`).join(shape.separator);
          const name = (n: string) =>
            names === 'upper' ? n.toUpperCase() : names === 'mixed' ? n.replace(/^w/, 'W') : n;
          const headers = {
            [name('webhook-id')]: id,
            [name('webhook-timestamp')]: timestampOf(seconds, when.form),
            [name('webhook-signature')]: signatureHeader,
          };
          const reference = referenceAccepts(secret, body, headers);
          expect(lbrlAccepts(secret, body, headers)).toBe(reference);
          runs += 1;
          if (reference) accepted += 1;
        },
      ),
      { numRuns: 1500 },
    );
    // both sides of the line were drawn: many deliveries accepted, many refused
    expect(accepted).toBeGreaterThan(runs / 20);
    expect(accepted).toBeLessThan(runs / 2);
  }, 120_000);

  it('keys of any length and headers given as arrays are judged as the reference judges them', () => {
    const body = eventBody({
      type: 'deposit.created',
      at: NOW,
      deposit: { id: 'd', status: 'WAITING_PAYMENT' },
      previousStatus: null,
    });
    const judged = (secret: string, headers: Record<string, unknown>) => {
      const both = [
        referenceAccepts(secret, body, headers as never),
        lbrlAccepts(secret, body, headers as never),
      ];
      expect(both[1]).toBe(both[0]);
      return both[0];
    };
    // a key of 1, 8, 15, 65 or 100 bytes: the reference verifies with it, and so does lbrl
    for (const length of [1, 8, 15, 16, 64, 65, 100]) {
      const secret = formatSecret(Buffer.alloc(length, 9));
      const signed = new Webhook(secret).sign('evt_1', new Date(NOW), body);
      expect(
        judged(secret, {
          'webhook-id': 'evt_1',
          'webhook-timestamp': String(NOW_S),
          'webhook-signature': signed,
        }),
      ).toBe(true);
    }
    const secret = formatSecret(Buffer.alloc(32, 7));
    const signed = new Webhook(secret).sign('evt_1', new Date(NOW), body);
    const twoIds = new Webhook(secret).sign('evt_1,evt_2', new Date(NOW), body);
    // the signature as an array: the reference cannot split it, so neither accepts it
    expect(
      judged(secret, {
        'webhook-id': 'evt_1',
        'webhook-timestamp': String(NOW_S),
        'webhook-signature': [signed],
      }),
    ).toBe(false);
    // an id or a time as an array of texts: read as their join, by both
    expect(
      judged(secret, {
        'webhook-id': ['evt_1'],
        'webhook-timestamp': [String(NOW_S)],
        'webhook-signature': signed,
      }),
    ).toBe(true);
    expect(
      judged(secret, {
        'webhook-id': ['evt_1', 'evt_2'],
        'webhook-timestamp': String(NOW_S),
        'webhook-signature': twoIds,
      }),
    ).toBe(true);
  });

  it('the examples: another encoding of the same bytes is refused by both; the reference’s own form is accepted', () => {
    const secret = formatSecret(Buffer.alloc(32, 7));
    const body = eventBody({
      type: 'deposit.created',
      at: NOW,
      deposit: { id: 'd', status: 'WAITING_PAYMENT' },
      previousStatus: null,
    });
    const signed = new Webhook(secret).sign('evt_1', new Date(NOW), body);
    const b64 = signed.slice(3);
    const last = b64.at(-2)!;
    const flipped = `${b64.slice(0, -2)}${BASE64[BASE64.indexOf(last) ^ 1]}=`;
    const headers = (signature: string, timestamp = String(NOW_S)) => ({
      'webhook-id': 'evt_1',
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    });
    // the same 32 bytes, written otherwise: no reference receiver accepts them, and neither does lbrl
    for (const signature of [`v1,${flipped}`, `v1,${b64.replace(/=$/, '')}`, `v1,${b64}junk`, `v1,${b64}=`]) {
      expect(Buffer.from(signature.slice(3), 'base64').equals(Buffer.from(b64, 'base64'))).toBe(true);
      expect(referenceAccepts(secret, body, headers(signature))).toBe(false);
      expect(lbrlAccepts(secret, body, headers(signature))).toBe(false);
    }
    // what the reference accepts, lbrl accepts: a trailing field, a leading zero, junk after the seconds
    for (const [signature, timestamp] of [
      [`${signed},extra`, String(NOW_S)],
      [`v2,abc ${signed}`, String(NOW_S)],
      [signed, `0${NOW_S}`],
      [signed, `${NOW_S}s`],
    ] as const) {
      expect(referenceAccepts(secret, body, headers(signature, timestamp))).toBe(true);
      expect(lbrlAccepts(secret, body, headers(signature, timestamp))).toBe(true);
    }
  });
});
