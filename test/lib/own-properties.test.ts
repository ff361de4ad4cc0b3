/**
 * Only own properties are read of an object from outside: a value inherited through the
 * prototype chain (an options object built from a parsed request body carrying "__proto__", or
 * a polluted Object.prototype) was never given by the caller, and never becomes a split address,
 * a fee, a header or a setting. The library against a local server that records what it was
 * sent; the batch rows, the config file and the webhook check on their own.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ownCopy } from '../../src/domain/own.js';
import { parseCsv, parseNdjson } from '../../src/domain/text/rows.js';
import { eventBody, formatSecret, secretKey, webhookHeaders } from '../../src/domain/webhook.js';
import { createClient, type LbrlClient, verifyWebhook, WebhookVerificationError } from '../../src/index.js';
import { ConfigStore } from '../../src/store/config.js';
import { createAnswer, LQ, TEX, TOKEN } from '../helpers/fixtures.js';
import { forTest, json, startServer } from '../helpers/server.js';

const clients: LbrlClient[] = [];
const polluted: string[] = [];
afterEach(async () => {
  for (const key of polluted.splice(0)) delete (Object.prototype as Record<string, unknown>)[key];
  for (const c of clients.splice(0)) await c.close();
});

/** Object.prototype with these properties, until the test ends. */
function pollute(values: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(values)) {
    polluted.push(key);
    Object.defineProperty(Object.prototype, key, { value, configurable: true, writable: true });
  }
}

/** A service that answers each create honestly, and keeps the bodies it was sent. */
async function honestService() {
  const bodies: Array<Record<string, unknown>> = [];
  const server = await forTest(
    startServer((req, res) => {
      // the service reads what was sent, not what this process's Object.prototype holds
      const body = ownCopy(JSON.parse(req.body)) as Record<string, unknown>;
      bodies.push(body);
      // a new id for each create: a service that answers two creates with one id is refused
      json(res, 201, { ...createAnswer(body as never), id: randomUUID() });
    }),
  );
  const lbrl = createClient({ baseUrl: server.url, token: TOKEN, network: 'liquid' });
  clients.push(lbrl);
  return { lbrl, bodies };
}

describe('create reads only the fields the caller gave', () => {
  it('a parsed body whose "__proto__" carries splitTo and splitFee, merged into the options: no split is sent', async () => {
    const { lbrl, bodies } = await honestService();
    const body = JSON.parse(
      `{"amount":"15.00","to":"${LQ}","__proto__":{"splitTo":"${LQ}","splitFee":"99"}}`,
    );
    // the usual merge of defaults and a request body: Object.assign sets the prototype from "__proto__"
    const input = Object.assign({}, body);
    expect((input as { splitTo?: string }).splitTo).toBe(LQ);
    const created = await lbrl.create(input);
    expect(bodies).toEqual([{ amountInCents: 1500, lbrlAddress: LQ }]);
    expect(created.splitAddress ?? null).toBeNull();
  });

  it('a polluted Object.prototype gives no split, no amount, no destination, no setting', async () => {
    const { lbrl, bodies } = await honestService();
    pollute({
      splitTo: LQ,
      splitFee: '99',
      amountCents: 600000,
      idempotencyKey: 'fixed',
      lbrlSplitAddress: LQ,
    });
    const created = await lbrl.create({ amount: '15.00', to: LQ });
    expect(bodies).toEqual([{ amountInCents: 1500, lbrlAddress: LQ }].map(ownCopy));
    // the answer is read by its own fields too: an inherited splitAddress is nothing the service said
    pollute({ splitAddress: LQ, splitPercent: 0.99 });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    const again = await lbrl.create({ amountCents: 2000, to: LQ });
    expect(bodies[1]).toEqual(ownCopy({ amountInCents: 2000, lbrlAddress: LQ }));
    expect(Object.hasOwn(again, 'splitAddress') ? again.splitAddress : null).toBeNull();
  });

  it('a missing destination is still missing when Object.prototype holds one: refused, nothing sent', async () => {
    const { lbrl, bodies } = await honestService();
    pollute({ to: LQ });
    await expect(lbrl.create({ amount: '15.00' } as never)).rejects.toMatchObject({ type: 'usage' });
    expect(bodies).toEqual([]);
  });

  it('settings inherited are none: a token or base URL from the prototype is refused as missing', () => {
    pollute({ baseUrl: 'https://evil.example', token: 'x'.repeat(40) });
    expect(() => createClient({} as never)).toThrow(/baseUrl must be a string/);
  });
});

describe('the rows of a batch, the config file, the webhook check', () => {
  it('a batch row lacking splitTo lacks it whatever Object.prototype holds', () => {
    pollute({ splitTo: LQ, splitFee: '99' });
    const ndjson = parseNdjson(`{"amount":"15.00","to":"${TEX}"}\n`);
    const csv = parseCsv(`amount;to\n15,00;${TEX}\n`);
    for (const parsed of [ndjson, csv]) {
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) return;
      expect(parsed.rows[0]!.fields.splitTo).toBeUndefined();
      expect(parsed.rows[0]!.fields.splitFee).toBeUndefined();
    }
    // and a row's own "__proto__" is an unknown field, said as such
    const proto = parseNdjson(`{"amount":"15.00","to":"${TEX}","__proto__":{"splitTo":"${TEX}"}}\n`);
    expect(proto.ok).toBe(false);
    if (!proto.ok) expect(proto.errors.join('\n')).toContain('unknown field "__proto__"');
  });

  it('a profile named constructor or toString is a profile like any other', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-own-'));
    try {
      const store = new ConfigStore(dir);
      for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
        expect(store.rawProfile(name)).toEqual({});
        await store.updateProfile(name, (profile) => {
          profile.network = 'liquidtestnet';
        });
        expect(new ConfigStore(dir).profile(name)).toEqual({ network: 'liquidtestnet' });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('webhook headers inherited are no headers: a signature on Object.prototype is never read', () => {
    const secret = formatSecret(Buffer.alloc(32, 3));
    const now = Date.parse('2026-11-24T10:00:00Z');
    const body = eventBody({
      type: 'deposit.created',
      at: now,
      deposit: { id: 'd', status: 'WAITING_PAYMENT' },
      previousStatus: null,
    });
    const signed = webhookHeaders(secretKey(secret)!, 'evt_1', now, body);
    pollute({ 'webhook-signature': signed['webhook-signature'] });
    let reason: string | undefined;
    try {
      verifyWebhook(
        body,
        { 'webhook-id': 'evt_1', 'webhook-timestamp': signed['webhook-timestamp'] },
        secret,
        {
          now: () => now,
        },
      );
    } catch (error) {
      expect(error).toBeInstanceOf(WebhookVerificationError);
      reason = (error as WebhookVerificationError).reason;
    }
    expect(reason).toBe('missing_header');
  });
});
