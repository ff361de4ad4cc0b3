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

/** A secret's text changed the ways a hand, an editor or another library can change it. */
const secretText = fc.oneof(
  { arbitrary: fc.constant((b64: string) => b64), weight: 3 },
  fc.constant((b64: string) => b64.replace(/=+$/, '')),
  fc.integer({ min: 1, max: 3 }).map((n) => (b64: string) => `${b64.replace(/=+$/, '')}${'='.repeat(n)}`),
  fc.integer({ min: 1, max: 3 }).map((n) => (b64: string) => `${b64}${'='.repeat(n)}`),
  fc.integer({ min: 1, max: 6 }).map((n) => (b64: string) => b64.replace(/=+$/, '').slice(0, -n)),
  fc.integer({ min: 0, max: 6 }).map((n) => (b64: string) => b64.slice(0, n)),
  fc.constantFrom('A', 'z', '9', '+', '/', '-', '_', ' ', '\n', '=', '!', 'é').chain((c) =>
    fc.constantFrom(
      (b64: string) => `${b64}${c}`,
      (b64: string) => `${b64.replace(/=+$/, '')}${c}`,
      (b64: string) => `${c}${b64}`,
      (b64: string) => `${b64.slice(0, 5)}${c}${b64.slice(5)}`,
    ),
  ),
  fc.integer({ min: 1, max: 3 }).map((bits) => (b64: string) => {
    const bare = b64.replace(/=+$/, '');
    return `${bare.slice(0, -1)}${BASE64[BASE64.indexOf(bare.at(-1)!) ^ bits]}${b64.slice(bare.length)}`;
  }),
  fc.constant((b64: string) => b64.replace(/\+/g, '-').replace(/\//g, '_')),
);

/** The reference's verdict, and whether it could take the secret at all. */
function referenceKey(secret: string): Webhook | undefined {
  try {
    return new Webhook(secret);
  } catch {
    return undefined;
  }
}

describe('secrets written loosely, judged as the reference judges them', () => {
  it('a secret unpadded, over-padded, cut, with a stray character or other low bits: accepted exactly when the reference accepts it', () => {
    const body = eventBody({
      type: 'deposit.created',
      at: NOW,
      deposit: { id: 'd', status: 'WAITING_PAYMENT' },
      previousStatus: null,
    });
    let taken = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 40 }),
        secretText,
        fc.constantFrom('whsec_', 'whsec_', '', 'whsec_whsec_', 'WHSEC_'),
        fc.boolean(),
        (keyBytes, change, prefix, signedWithLoose) => {
          const written = Buffer.from(keyBytes).toString('base64');
          const loose = `${prefix}${change(written)}`;
          // signed by the reference with the loose text when it takes it (the key it reads from
          // it), else with the secret as written
          const signer = (signedWithLoose && referenceKey(loose)) || new Webhook(`whsec_${written}`);
          const headers = {
            'webhook-id': 'evt_1',
            'webhook-timestamp': String(NOW_S),
            'webhook-signature': signer.sign('evt_1', new Date(NOW), body),
          };
          const reference = referenceAccepts(loose, body, headers);
          expect({ loose, lbrl: lbrlAccepts(loose, body, headers) }).toEqual({ loose, lbrl: reference });
          if (reference) taken += 1;
          else refused += 1;
        },
      ),
      { numRuns: 600 },
    );
    expect(taken).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
  });

  it('the examples: no padding, a lone last character, a stray =, other low bits, a space', () => {
    const body = eventBody({
      type: 'deposit.created',
      at: NOW,
      deposit: { id: 'd', status: 'WAITING_PAYMENT' },
      previousStatus: null,
    });
    const written = Buffer.alloc(32, 7).toString('base64'); // 32 bytes: one = of padding
    const whole = Buffer.alloc(33, 7).toString('base64'); // 33 bytes: 44 characters, no padding
    expect(written.endsWith('=') && !written.endsWith('==') && !whole.endsWith('=')).toBe(true);
    for (const [loose, accepted] of [
      [`whsec_${written.slice(0, -1)}`, true], // no padding
      [`whsec_${written.slice(0, -1)}==`, true], // padding that does not fit the length
      [`whsec_${whole}A`, true], // 4k + 1 characters: the last one is not read
      [`whsec_${whole}!`, true], // ... whatever it is
      [`whsec_${written.slice(0, -1)}!`, false], // 4k characters: all read
      [`whsec_${written}===`, false], // three of padding
      [`whsec_${written.slice(0, 5)} ${written.slice(5)}`, false], // a space inside
      [`whsec_${written.replace(/\//g, '_')}`, written.includes('/') === false],
      ['whsec_AB=', false], // under four characters
      ['whsec_', false],
    ] as const) {
      const signer = referenceKey(loose) ?? new Webhook(`whsec_${written}`);
      const headers = {
        'webhook-id': 'evt_1',
        'webhook-timestamp': String(NOW_S),
        'webhook-signature': signer.sign('evt_1', new Date(NOW), body),
      };
      expect({ loose, reference: referenceAccepts(loose, body, headers) }).toEqual({
        loose,
        reference: accepted,
      });
      expect({ loose, lbrl: lbrlAccepts(loose, body, headers) }).toEqual({ loose, lbrl: accepted });
    }
  });
});

describe('headers the reference cannot read', () => {
  it('a Fetch Headers object or a Map: the reference finds no header in them; lbrl refuses them, saying what to pass', () => {
    const secret = formatSecret(Buffer.alloc(32, 7));
    const body = eventBody({
      type: 'deposit.created',
      at: NOW,
      deposit: { id: 'd', status: 'WAITING_PAYMENT' },
      previousStatus: null,
    });
    const plain = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(NOW_S),
      'webhook-signature': new Webhook(secret).sign('evt_1', new Date(NOW), body),
    };
    expect(referenceAccepts(secret, body, plain)).toBe(true);
    expect(lbrlAccepts(secret, body, plain)).toBe(true);
    for (const given of [new Headers(plain), new Map(Object.entries(plain))]) {
      expect(() => new Webhook(secret).verify(body, given as never)).toThrow('Missing required headers');
      let refusal: unknown;
      try {
        verifyWebhook(body, given as never, secret, { now: () => NOW });
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(WebhookVerificationError);
      expect((refusal as WebhookVerificationError).reason).toBe('malformed_header');
      expect((refusal as Error).message).toBe(
        'webhook not verified: the headers are a Headers or Map object, which Standard Webhooks libraries do not read; pass a plain record: Object.fromEntries(headers)',
      );
      // as the message says, and both accept it
      const record = Object.fromEntries(given as Iterable<[string, string]>);
      expect(referenceAccepts(secret, body, record)).toBe(true);
      expect(lbrlAccepts(secret, body, record)).toBe(true);
    }
  });
});

describe('a good delivery changed in one of its five parts', () => {
  /** One change of the id, the time, the signature, the secret or the body, as values of any kind. */
  const change = fc.oneof(
    fc.constantFrom<(d: Delivery) => void>(
      (d) => void (d.headers['webhook-id'] = `${d.headers['webhook-id']}x`),
      (d) => void (d.headers['webhook-id'] = String(d.headers['webhook-id']).toUpperCase()),
      (d) => void (d.headers['webhook-id'] = [d.headers['webhook-id']]),
      (d) => void (d.headers['webhook-id'] = 0),
      (d) => void (d.headers['webhook-timestamp'] = Number(d.headers['webhook-timestamp'])),
      (d) => void (d.headers['webhook-timestamp'] = [String(d.headers['webhook-timestamp'])]),
      (d) => void (d.headers['webhook-timestamp'] = String(NOW_S - 301)),
      (d) => void (d.headers['webhook-timestamp'] = `${d.headers['webhook-timestamp']}.5`),
      (d) => void (d.headers['webhook-signature'] = `v2,x ${d.headers['webhook-signature']}`),
      (d) => void (d.headers['webhook-signature'] = String(d.headers['webhook-signature']).slice(0, -2)),
      (d) => void (d.headers['webhook-signature'] = [d.headers['webhook-signature']]),
      (d) => void (d.headers['webhook-signature'] = undefined),
      (d) => void (d.body = `${String(d.body)} `),
      (d) => void (d.body = Buffer.from(String(d.body))),
      (d) => void (d.body = String(d.body).replace('deposit', 'Deposit')),
      // bytes that are not a Buffer: the reference reads none
      (d) => void (d.body = new Uint8Array(Buffer.from(String(d.body)))),
      // a byte that is no UTF-8, where the signed text has U+FFFD: read as the reference reads it
      (d) => void (d.body = Buffer.concat([Buffer.from(String(d.body)), Buffer.from([0xff])])),
    ),
    secretText.map((loose) => (d: Delivery) => void (d.secret = `whsec_${loose(d.secret.slice(6))}`)),
  );

  it('accepted by lbrl exactly when the reference accepts it', () => {
    let taken = 0;
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 8, maxLength: 48 }),
        fc.string({ minLength: 1, maxLength: 10 }),
        fc.array(change, { minLength: 0, maxLength: 2 }),
        (keyBytes, id, changes) => {
          const secret = formatSecret(keyBytes);
          const body = eventBody({
            type: 'deposit.created',
            at: NOW,
            deposit: { id: 'd', status: 'WAITING_PAYMENT', note: 'São Paulo' },
            previousStatus: null,
          });
          const d: Delivery = {
            secret,
            body,
            headers: {
              'webhook-id': id,
              'webhook-timestamp': String(NOW_S),
              'webhook-signature': new Webhook(secret).sign(id, new Date(NOW), body),
            },
          };
          for (const c of changes) c(d);
          let reference = true;
          try {
            new Webhook(d.secret).verify(d.body as string, d.headers as never);
          } catch {
            reference = false;
          }
          let lbrl = true;
          try {
            verifyWebhook(d.body, d.headers as never, d.secret, { now: () => NOW });
          } catch (error) {
            if (!(error instanceof WebhookVerificationError)) throw error;
            lbrl = false;
          }
          expect({ ...d, lbrl }).toEqual({ ...d, lbrl: reference });
          if (reference) taken += 1;
        },
      ),
      { numRuns: 600 },
    );
    expect(taken).toBeGreaterThan(60);
  });
});

interface Delivery {
  secret: string;
  body: string | Uint8Array;
  headers: Record<string, unknown>;
}

describe('bodies as the reference reads them', () => {
  it('a Buffer with a byte that is no UTF-8, signed as the text it reads as: both accept; bytes that are no Buffer: both refuse', () => {
    const secret = formatSecret(Buffer.alloc(32, 7));
    const body = eventBody({
      type: 'deposit.created',
      at: NOW,
      deposit: { id: 'd', status: 'WAITING_PAYMENT', note: 'NOTE' },
      previousStatus: null,
    });
    const [before, after] = body.split('NOTE') as [string, string];
    const bytes = Buffer.concat([Buffer.from(before), Buffer.from([0x53, 0xe3, 0x6f]), Buffer.from(after)]);
    // what a Buffer's toString makes of it: the lone byte 0xe3 is U+FFFD
    const read = `${before}S\ufffdo${after}`;
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(NOW_S),
      'webhook-signature': new Webhook(secret).sign('evt_1', new Date(NOW), read),
    };
    const judged = (given: unknown) => {
      let reference = true;
      try {
        new Webhook(secret).verify(given as string, headers);
      } catch {
        reference = false;
      }
      let lbrl = true;
      try {
        verifyWebhook(given as string, headers, secret, { now: () => NOW });
      } catch (error) {
        expect(error).toBeInstanceOf(WebhookVerificationError);
        lbrl = false;
      }
      return { reference, lbrl };
    };
    expect(judged(bytes)).toEqual({ reference: true, lbrl: true });
    expect(verifyWebhook(bytes, headers, secret, { now: () => NOW }).data.deposit.note).toBe('S\ufffdo');
    expect(judged(new Uint8Array(bytes))).toEqual({ reference: false, lbrl: false });
    expect(judged(read)).toEqual({ reference: true, lbrl: true });
  });
});
