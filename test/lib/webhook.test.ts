/**
 * verifyWebhook against the Standard Webhooks reference library: what it signs we accept, what
 * we sign it accepts, and every way a delivery can be wrong is refused with its reason.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { eventBody, formatSecret, secretKey, webhookHeaders } from '../../src/domain/webhook.js';
import { verifyWebhook, WebhookEventError, WebhookVerificationError } from '../../src/index.js';

const SECRET = formatSecret(Buffer.alloc(32, 7));
const NOW = Date.parse('2026-11-24T10:00:00Z');
const BODY = eventBody({
  type: 'deposit.finalized',
  at: NOW,
  deposit: { id: '3f2a6c1e-8a7b-4c3d-9e0f-112233445566', status: 'FINALIZED', note: 'ção 💸' },
  previousStatus: 'TX_SENT',
});

function signedByLibrary(id: string, at: number, body: string, secret = SECRET) {
  const signature = new Webhook(secret).sign(id, new Date(at), body);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at / 1000)),
    'webhook-signature': signature,
  };
}

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).reason;
  }
  throw new Error('accepted');
}

describe('verifyWebhook', () => {
  const now = () => NOW;

  it('accepts a delivery signed by the standardwebhooks package, as text or bytes, and returns the event', () => {
    const headers = signedByLibrary('evt_abc', NOW, BODY);
    const event = verifyWebhook(BODY, headers, SECRET, { now });
    expect(event.type).toBe('deposit.finalized');
    expect(event.data.previousStatus).toBe('TX_SENT');
    expect(verifyWebhook(Buffer.from(BODY), headers, SECRET, { now }).data.deposit.status).toBe('FINALIZED');
    // names in any case
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(BODY, upper, SECRET, { now }).type).toBe('deposit.finalized');
    // a secret being rotated: several signatures, one of them good
    const other = signedByLibrary('evt_abc', NOW, BODY, formatSecret(Buffer.alloc(32, 9)))[
      'webhook-signature'
    ];
    const both = { ...headers, 'webhook-signature': `${other} ${headers['webhook-signature']}` };
    expect(verifyWebhook(BODY, both, SECRET, { now }).type).toBe('deposit.finalized');
  });

  it('what lbrl signs, the standardwebhooks package verifies as is', () => {
    const headers = webhookHeaders(secretKey(SECRET)!, 'evt_xyz', Date.now(), BODY);
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('refuses a body or id changed by a byte, another secret, a signature of another scheme', () => {
    const headers = signedByLibrary('evt_abc', NOW, BODY);
    expect(reason(() => verifyWebhook(`${BODY} `, headers, SECRET, { now }))).toBe('bad_signature');
    expect(reason(() => verifyWebhook(BODY.replace('TX_SENT', 'TX_SENX'), headers, SECRET, { now }))).toBe(
      'bad_signature',
    );
    expect(reason(() => verifyWebhook(BODY, { ...headers, 'webhook-id': 'evt_abd' }, SECRET, { now }))).toBe(
      'bad_signature',
    );
    expect(reason(() => verifyWebhook(BODY, headers, formatSecret(Buffer.alloc(32, 8)), { now }))).toBe(
      'bad_signature',
    );
    const v2 = headers['webhook-signature'].replace(/^v1,/, 'v2,');
    expect(reason(() => verifyWebhook(BODY, { ...headers, 'webhook-signature': v2 }, SECRET, { now }))).toBe(
      'bad_signature',
    );
    // the timestamp is signed: moved by a second, the signature no longer holds
    const moved = { ...headers, 'webhook-timestamp': String(Math.floor(NOW / 1000) + 1) };
    expect(reason(() => verifyWebhook(BODY, moved, SECRET, { now }))).toBe('bad_signature');
  });

  it('refuses timestamps more than 5 minutes old or ahead, and accepts them just inside', () => {
    const old = signedByLibrary('evt_abc', NOW - 301_000, BODY);
    expect(reason(() => verifyWebhook(BODY, old, SECRET, { now }))).toBe('timestamp_too_old');
    const ahead = signedByLibrary('evt_abc', NOW + 301_000, BODY);
    expect(reason(() => verifyWebhook(BODY, ahead, SECRET, { now }))).toBe('timestamp_too_new');
    expect(verifyWebhook(BODY, signedByLibrary('e', NOW - 299_000, BODY), SECRET, { now }).type).toBe(
      'deposit.finalized',
    );
    expect(verifyWebhook(BODY, old, SECRET, { now, toleranceSeconds: 600 }).type).toBe('deposit.finalized');
  });

  it('refuses missing and malformed headers, a bad secret, and a body that is not an event', () => {
    const headers = signedByLibrary('evt_abc', NOW, BODY);
    for (const name of Object.keys(headers)) {
      const { [name]: _, ...rest } = headers as Record<string, string>;
      expect(reason(() => verifyWebhook(BODY, rest, SECRET, { now }))).toBe('missing_header');
    }
    // read as the reference reads them: a timestamp by its leading number, a signature by its
    // v1 parts, an empty header as none
    for (const [name, value, why] of [
      ['webhook-timestamp', 'yesterday', 'malformed_header'],
      ['webhook-timestamp', '1.5', 'timestamp_too_old'],
      ['webhook-timestamp', '-5', 'timestamp_too_old'],
      ['webhook-signature', 'v1', 'bad_signature'],
      ['webhook-signature', 'garbage', 'bad_signature'],
      ['webhook-signature', 'v1,not base64!', 'bad_signature'],
      ['webhook-id', 'evt abc', 'bad_signature'],
      ['webhook-id', '', 'missing_header'],
    ] as const) {
      expect(reason(() => verifyWebhook(BODY, { ...headers, [name]: value }, SECRET, { now }))).toBe(why);
    }
    // the same header twice is read as the reference reads it: an id as its join (not the id
    // signed), a signature not at all
    expect(
      reason(() =>
        verifyWebhook(BODY, { ...headers, 'webhook-id': ['evt_abc', 'evt_abc'] }, SECRET, { now }),
      ),
    ).toBe('bad_signature');
    expect(
      reason(() =>
        verifyWebhook(
          BODY,
          { ...headers, 'webhook-signature': [headers['webhook-signature'], headers['webhook-signature']] },
          SECRET,
          { now },
        ),
      ),
    ).toBe('malformed_header');
    expect(reason(() => verifyWebhook(BODY, headers, 'whsec_', { now }))).toBe('bad_secret');
    expect(reason(() => verifyWebhook(BODY, headers, 'not a secret', { now }))).toBe('bad_secret');
    // signed, but no JSON: not a refused signature (test/lib/webhook-not-an-event.test.ts)
    const text = 'not json';
    expect(() => verifyWebhook(text, signedByLibrary('e', NOW, text), SECRET, { now })).toThrow(
      WebhookEventError,
    );
    expect(reason(() => verifyWebhook(Uint8Array.of(0xff, 0xfe), headers, SECRET, { now }))).toBe(
      'malformed_body',
    );
  });
});

describe('verifyWebhook, as receivers call it', () => {
  const now = () => NOW;

  it('exactly 5 minutes either way is inside, as the standardwebhooks package has it; a second more is not', () => {
    for (const at of [NOW - 300_000, NOW + 300_000]) {
      const headers = signedByLibrary('evt_edge', at, BODY);
      expect(verifyWebhook(BODY, headers, SECRET, { now }).type).toBe('deposit.finalized');
    }
    expect(
      reason(() => verifyWebhook(BODY, signedByLibrary('e', NOW - 301_000, BODY), SECRET, { now })),
    ).toBe('timestamp_too_old');
  });

  it('an id and a time as one-element arrays, a secret without its whsec_ prefix: accepted; a signature as an array is not (as the reference)', () => {
    const headers = signedByLibrary('evt_abc', NOW, BODY);
    const arrays = Object.fromEntries(
      Object.entries(headers).map(([k, v]) => [k, k === 'webhook-signature' ? v : [v]]),
    );
    expect(verifyWebhook(BODY, arrays, SECRET, { now }).type).toBe('deposit.finalized');
    const signatureArray = { ...headers, 'webhook-signature': [headers['webhook-signature']] };
    expect(reason(() => verifyWebhook(BODY, signatureArray, SECRET, { now }))).toBe('malformed_header');
    expect(verifyWebhook(BODY, headers, SECRET.slice('whsec_'.length), { now }).type).toBe(
      'deposit.finalized',
    );
  });

  it('the bytes are checked as they are: a body starting with a byte order mark is verified with it', () => {
    const body = `\ufeff${BODY}`;
    const headers = signedByLibrary('evt_bom', NOW, body);
    // signed with its mark: the signature holds, and the body is no JSON
    expect(() => verifyWebhook(Buffer.from(body), headers, SECRET, { now })).toThrow(WebhookEventError);
    // the mark is not taken off to pass a signature made without it
    expect(
      reason(() => verifyWebhook(Buffer.from(body), signedByLibrary('e', NOW, BODY), SECRET, { now })),
    ).toBe('bad_signature');
  });
});
