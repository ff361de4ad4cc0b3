/**
 * A delivery signed with the secret whose body is not an lbrl event (the standardwebhooks package
 * accepts `{}`, or anything signed): verifyWebhook never returns it as an event, and says so with
 * its own error class, so a receiver tells "signed, but not an lbrl event" (a sender that holds the
 * secret: a newer lbrl, a test ping) from "the signature is wrong" (a stranger). Only the body's
 * own fields count: a polluted Object.prototype makes no event of `{}`.
 */
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { formatSecret } from '../../src/domain/webhook.js';
import { verifyWebhook, WebhookEventError, WebhookVerificationError } from '../../src/index.js';

const SECRET = formatSecret(Buffer.alloc(32, 7));
// the reference library checks the time on the real clock: signed now, to the second
const NOW = Math.floor(Date.now() / 1000) * 1000;
const now = () => NOW;
const DEPOSIT = { id: '3f2a6c1e-8a7b-4c3d-9e0f-112233445566', status: 'FINALIZED' };
const EVENT = {
  type: 'deposit.finalized',
  timestamp: '2026-11-24T10:00:00.000Z',
  data: { deposit: DEPOSIT, previousStatus: 'TX_SENT', inferred: false },
};

function signed(body: string) {
  return {
    'webhook-id': 'evt_x',
    'webhook-timestamp': String(NOW / 1000),
    'webhook-signature': new Webhook(SECRET).sign('evt_x', new Date(NOW), body),
  };
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('accepted as an event');
}

const NOT_EVENTS: Array<[string, string, string]> = [
  ['{}', '{}', "its type (absent) is none of lbrl's"],
  ['an array', '[]', 'the body is [], not an object'],
  ['null', 'null', 'the body is null, not an object'],
  ['a string', '"deposit.finalized"', 'the body is "deposit.finalized", not an object'],
  ['not JSON', 'ok', 'the body is not JSON'],
  [
    'an unknown type',
    JSON.stringify({ ...EVENT, type: 'deposit.refunded' }),
    'its type "deposit.refunded" is none of lbrl\'s',
  ],
  [
    'a type with an escape',
    JSON.stringify({ ...EVENT, type: '\u001b[2Jx' }),
    'its type "\\\\u001b[2Jx" is none',
  ],
  ['no timestamp', JSON.stringify({ ...EVENT, timestamp: undefined }), 'its timestamp (absent) is no time'],
  [
    'no data',
    JSON.stringify({ type: 'deposit.finalized', timestamp: EVENT.timestamp }),
    'its data (absent) is not an object',
  ],
  ['data without its deposit', JSON.stringify({ ...EVENT, data: {} }), 'its data.deposit is not an object'],
  [
    'a deposit without its id',
    JSON.stringify({ ...EVENT, data: { ...EVENT.data, deposit: { status: 'FINALIZED' } } }),
    'its data.deposit.id is not a string',
  ],
  [
    'a deposit whose status is a number',
    JSON.stringify({ ...EVENT, data: { ...EVENT.data, deposit: { ...DEPOSIT, status: 5 } } }),
    'its data.deposit.status is not a string',
  ],
  [
    'a previous status of another kind',
    JSON.stringify({ ...EVENT, data: { ...EVENT.data, previousStatus: 1 } }),
    'its data.previousStatus is neither',
  ],
];

describe('signed, but not an lbrl event', () => {
  it.each(NOT_EVENTS)(
    '%s: a WebhookEventError (not_an_event), one line, never an event',
    (_name, body, why) => {
      const headers = signed(body);
      // the reference library finds the signature good (it returns what it parsed, or throws on no JSON)
      if (body !== 'ok') expect(new Webhook(SECRET).verify(body, headers)).toEqual(JSON.parse(body));
      for (const given of [body, Buffer.from(body)]) {
        const error = thrown(() => verifyWebhook(given, headers, SECRET, { now }));
        expect(error).toBeInstanceOf(WebhookEventError);
        expect(error).not.toBeInstanceOf(WebhookVerificationError);
        const { reason, message, name } = error as WebhookEventError;
        expect([reason, name]).toEqual(['not_an_event', 'WebhookEventError']);
        expect(message).toMatch(/^webhook signed with the secret, but not an lbrl event: /);
        expect(message).toContain(why);
        expect(message).not.toMatch(/[\n\r\u001b]/);
      }
    },
  );

  it('the same bodies with a wrong signature: the signature is what is said wrong', () => {
    for (const [, body] of NOT_EVENTS) {
      const headers = { ...signed(body), 'webhook-signature': signed(`${body} `)['webhook-signature'] };
      const error = thrown(() => verifyWebhook(body, headers, SECRET, { now }));
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect((error as WebhookVerificationError).reason).toBe('bad_signature');
    }
  });

  it("lbrl's own event is one", () => {
    const body = JSON.stringify(EVENT);
    expect(verifyWebhook(body, signed(body), SECRET, { now })).toEqual(EVENT);
  });

  describe('with Object.prototype polluted', () => {
    afterEach(() => {
      for (const key of ['type', 'timestamp', 'data'])
        delete (Object.prototype as Record<string, unknown>)[key];
    });

    it('`{}` stays no event: only its own fields are read', () => {
      Object.assign(Object.prototype, { type: EVENT.type, timestamp: EVENT.timestamp, data: EVENT.data });
      const error = thrown(() => verifyWebhook('{}', signed('{}'), SECRET, { now }));
      expect(error).toBeInstanceOf(WebhookEventError);
    });
  });
});
