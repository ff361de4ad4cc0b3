/**
 * lbrl listen attacked from the outside: targets that only look like loopback, passwords in the
 * target, receivers that misbehave, an outbox torn by a crash, the ledger's expiry. Every delivery
 * is checked with the standardwebhooks package, as a receiver would.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { httpAnswer, startFaulty } from '../helpers/faulty.js';
import { createAnswer, LQ, TOKEN } from '../helpers/fixtures.js';
import {
  checkingReceiver as checkWith,
  type ListenWorld,
  listenWorld,
  signedProblem,
} from '../helpers/listen.js';
import { json, startServer } from '../helpers/server.js';

const closers: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c.close();
});

const world = listenWorld;
const checkingReceiver = (w: ListenWorld, secret: string, answer?: Parameters<typeof checkWith>[3]) =>
  checkWith(w, secret, closers, answer);

describe('listen --forward-to: what is refused, and how', () => {
  it.each([
    'http://localhost.evil.com/hooks',
    'http://127.0.0.1.nip.io/hooks',
    'http://[::ffff:127.0.0.1]/hooks',
    'http://[::ffff:7f00:1]/hooks',
    'http://10.0.0.1/hooks',
    'http://localhost./hooks',
    'https://example.com/hooks#part',
    'https://example.com/hooks#',
    'javascript://127.0.0.1/x',
  ])('refuses %s (exit 2), nothing written', async (url) => {
    const w = world();
    const r = await w.run(['listen', '--forward-to', url]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: invalid --forward-to /);
    expect(fs.existsSync(path.join(w.env.LBRL_CONFIG_DIR, 'webhooks'))).toBe(false);
  });

  it.each([
    'https://shop:hunter2-pass@example.com/hooks',
    'http://shop:hunter2-pass@127.0.0.1:4242/hooks',
    'https://shop:hunter2@pass@example.com/hooks',
    'https://:hunter2-pass@example.com/hooks',
    'https://hunter2-pass@example.com/hooks',
  ])('a password in the target (%s) is refused without being shown', async (url) => {
    const w = world();
    const r = await w.run(['listen', '--forward-to', url, '--verbose']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('invalid --forward-to');
    expect(r.stderr).toContain('[redacted]@');
    expect(r.stdout + r.stderr).not.toMatch(/hunter2|pass@/);
    const json = await w.run(['listen', '--forward-to', url, '--json']);
    expect(json.code).toBe(2);
    expect(json.stdout + json.stderr).not.toMatch(/hunter2|pass@/);
  });
});

describe('the outbox after a crash', () => {
  it('a last line torn by a crash: the next run neither loses what it writes after it nor sends a delivered event again', async () => {
    const w = world();
    const secret = await w.secret();
    let healthy = false;
    const rx = await checkingReceiver(w, secret, () => (healthy ? 200 : 503));
    const id = await w.trigger('abandoned');
    const first = await w.listen(['--forward-to', rx.url], () => rx.deliveries.length >= 1);
    expect(first.code).toBe(130);
    expect(rx.taken()).toHaveLength(0);
    // a write cut short by kill -9: half a record, no line end
    const file = path.join(w.env.LBRL_CONFIG_DIR, 'webhooks', 'default.ndjson');
    fs.appendFileSync(file, '{"v":1,"type":"seen","deposit":"0c9d');
    healthy = true;
    // ended once lbrl wrote the delivery done: a receiver counts a delivery before its 200 reaches
    // lbrl, and a Ctrl-C then aborts the answer's read (at least once: sent again at the next start)
    const recordedDone = () => fs.readFileSync(file, 'utf8').includes('"type":"done"');
    const second = await w.listen(['--forward-to', rx.url], () => rx.types(id).length >= 1 && recordedDone());
    expect(second.code).toBe(130);
    expect(second.stderr).toContain('skipped 1 damaged line(s)');
    expect(rx.types(id)).toEqual(['deposit.created']);
    // every line but the torn one is a whole record, the delivery's among them
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines.filter((l) => !l.endsWith('}'))).toEqual(['{"v":1,"type":"seen","deposit":"0c9d']);
    expect(lines.some((l) => l.includes('"type":"done"'))).toBe(true);
    const before = rx.deliveries.length;
    const third = await w.listen(['--forward-to', rx.url], () => w.clock.now > Date.now() + 60_000);
    expect(third.code).toBe(130);
    expect(third.stderr).not.toContain('undelivered');
    expect(rx.deliveries.length).toBe(before);
    expect(rx.problems).toEqual([]);
  });

  it('a record a torn write ran into is still read', async () => {
    const w = world();
    const secret = await w.secret();
    let healthy = false;
    const rx = await checkingReceiver(w, secret, () => (healthy ? 200 : 503));
    const id = await w.trigger('abandoned');
    await w.listen(['--forward-to', rx.url], () => rx.deliveries.length >= 1);
    const file = path.join(w.env.LBRL_CONFIG_DIR, 'webhooks', 'default.ndjson');
    // a file written by a version that did not end a torn line: the event's record glued to it
    const text = fs.readFileSync(file, 'utf8');
    const event = text.split('\n').find((l) => l.includes('"type":"event"'))!;
    const rest = text
      .split('\n')
      .filter((l) => l !== event)
      .join('\n');
    fs.writeFileSync(file, `${rest.trimEnd()}\n{"v":1,"type":"don${event}\n`);
    healthy = true;
    await w.listen(['--forward-to', rx.url], () => rx.types(id).length >= 1);
    expect(rx.types(id)).toEqual(['deposit.created']);
    expect(rx.problems).toEqual([]);
  });
});

describe('deposit.expired, from the ledger', () => {
  it.each([[['deposit', 'list', '--refresh']], [['deposit', 'watch', '--pending']]])(
    'an abandoned charge expired by %j: exactly one deposit.expired; paid after all, its status events follow',
    async (expire) => {
      const w = world();
      const secret = await w.secret();
      const rx = await checkingReceiver(w, secret);
      expect((await w.run(['config', 'set', 'expire-after', '1m'])).code).toBe(0);
      const id = await w.trigger('abandoned');
      await w.listen(['--forward-to', rx.url], () => rx.types(id).length >= 1);
      expect(rx.types(id)).toEqual(['deposit.created']);

      w.clock.now += 2 * 60_000;
      const expiring = await w.run(expire);
      expect(expiring.code, expiring.stderr).toBe(0);
      const history = fs.readFileSync(path.join(w.env.LBRL_CONFIG_DIR, 'history.ndjson'), 'utf8');
      expect(history.split('\n').filter((l) => l.startsWith('{"v":1,"type":"expired"'))).toHaveLength(1);

      await w.listen(['--forward-to', rx.url], () => rx.types(id).includes('deposit.expired'));
      expect(rx.types(id)).toEqual(['deposit.created', 'deposit.expired']);
      const expired = rx.taken().find((d) => d.type === 'deposit.expired')!;
      const body = JSON.parse(expired.body) as {
        data: { deposit: Record<string, unknown>; previousStatus: string };
      };
      expect(body.data.deposit).toMatchObject({ id, status: 'WAITING_PAYMENT' });
      expect(body.data.deposit.expiredAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(body.data.previousStatus).toBe('WAITING_PAYMENT');

      // a restart, and the history read again and again: never a second deposit.expired
      const before = rx.deliveries.length;
      const start = w.clock.now;
      await w.listen(['--forward-to', rx.url], () => w.clock.now - start > 30_000);
      expect(rx.deliveries.length).toBe(before);

      // paid after all: its status events, after the expired one, each once
      const paid = await w.run(['sandbox', 'pay', id]);
      expect(paid.code, paid.stderr).toBe(0);
      await w.listen(['--forward-to', rx.url], () => rx.types(id).includes('deposit.finalized'));
      const t = rx.types(id);
      expect(t.slice(0, 2)).toEqual(['deposit.created', 'deposit.expired']);
      expect(t.at(-1)).toBe('deposit.finalized');
      expect(new Set(t).size).toBe(t.length);
      expect(t.filter((x) => x === 'deposit.expired')).toHaveLength(1);
      expect(new Set(rx.deliveries.map((d) => d.id)).size).toBe(rx.deliveries.length);
      expect(rx.problems).toEqual([]);
    },
  );
});

/** A raw request as the receiver got it: its headers (lower-case names) and its body's bytes as text. */
function parseRaw(raw: string) {
  const end = raw.indexOf('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of raw.slice(0, end).split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return {
    head: raw.slice(0, end),
    headers,
    body: Buffer.from(raw.slice(end + 4), 'latin1').toString('utf8'),
  };
}

describe('receivers that misbehave', () => {
  it('redirects, 410, a reset, silence, escapes and the secret in the answer: retried with one id and fresh signatures until a 2xx; nothing followed, nothing echoed', async () => {
    const w = world();
    const secret = await w.secret();
    const wh = new Webhook(secret);
    const elsewhere = await checkingReceiver(w, secret);
    const problems: string[] = [];
    const seen: Array<{ id: string; timestamp: number; contentType: string; body: string }> = [];
    const rx = await startFaulty((socket, raw, n) => {
      const r = parseRaw(raw);
      const problem = signedProblem(wh, r.body, r.headers as Record<string, string>, w.clock.now);
      if (problem) problems.push(`attempt ${n}: ${problem}`);
      seen.push({
        id: r.headers['webhook-id']!,
        timestamp: Number(r.headers['webhook-timestamp']),
        contentType: r.headers['content-type']!,
        body: r.body,
      });
      const steps: Array<() => void> = [
        () => socket.end(httpAnswer(302, '', { location: `${elsewhere.url}?from=302` })),
        () => socket.end(httpAnswer(301, '', { location: `${elsewhere.url}?from=301` })),
        () => socket.end(httpAnswer(307, '', { location: `${elsewhere.url}?from=307` })),
        () => socket.end(httpAnswer(410, 'gone')),
        () => socket.resetAndDestroy(),
        () => {}, // accepted, never answered
        () =>
          socket.end(
            `HTTP/1.1 500 \u001b]0;owned\u0007\u001b[2J\r\ncontent-length: ${secret.length + 9}\r\n\r\n\u001b[31m${secret}\u001b[0m`,
          ),
        () => socket.end(`HTTP/1.0 200 OK\r\ncontent-type: text/plain\r\n\r\n${secret}\u001b[2J`),
      ];
      (steps[n - 1] ?? (() => socket.end(httpAnswer(200, ''))))();
    });
    closers.push(rx);
    const id = await w.trigger('abandoned');
    const r = await w.listen(['--forward-to', `${rx.url}/hooks`], () => seen.length >= 8, {
      client: { timeoutMs: 300 },
    });
    expect(r.code).toBe(130);
    expect(problems).toEqual([]);
    expect(seen).toHaveLength(8);
    // one event, one id, its body byte for byte, a fresh timestamp on each attempt
    expect(new Set(seen.map((s) => s.id)).size).toBe(1);
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);
    expect(seen.every((s) => s.contentType === 'application/json')).toBe(true);
    // (signed when sent: the first retry comes 0.5 to 1 s later, so two attempts may share a second)
    for (let i = 1; i < seen.length; i++)
      expect(seen[i]!.timestamp).toBeGreaterThanOrEqual(seen[i - 1]!.timestamp);
    expect(seen.at(-1)!.timestamp).toBeGreaterThan(seen[0]!.timestamp);
    // no redirect followed: the other host heard nothing
    expect(elsewhere.deliveries).toHaveLength(0);
    // one line per answer, the redirects and the 410 not taken, nothing of the answers echoed
    const lines = r.stderr.split('\n').filter((l) => l.includes('--> '));
    expect(lines.map((l) => /--> (\d+|ERR [a-z ]+) /.exec(l)?.[1])).toEqual([
      '302',
      '301',
      '307',
      '410',
      'ERR connection reset',
      'ERR timed out',
      '500',
      '200',
    ]);
    expect(lines.slice(0, 7).every((l) => /; retrying in \d+ (ms|s) {2}\[evt_/.test(l))).toBe(true);
    expect(lines.every((l) => l.includes(`deposit.created  ${id}  --> `))).toBe(true);
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(r.stderr).not.toContain('owned');
    // (the first output is --print-secret's)
    expect(w.outputs.slice(2).join('')).not.toContain(secret.slice(6, 20));
    // the outbox: delivered once
    const outbox = fs.readFileSync(path.join(w.env.LBRL_CONFIG_DIR, 'webhooks', 'default.ndjson'), 'utf8');
    expect(outbox.split('\n').filter((l) => l.includes('"type":"done"'))).toHaveLength(1);
    expect(outbox).toContain('"http":200');
  });
});

describe('the bytes signed are the bytes sent', () => {
  it('a deposit with text beyond ASCII (accents, emoji, U+2028, a lone surrogate) verifies with standardwebhooks as it arrived', async () => {
    const note = 'Padaria S\u00e3o Jo\u00e3o \u2615 \ud834\udd1e \u2028 fim \ud800 \u202e';
    const w = world();
    // dated on lbrl's clock, as a service dates the deposit a create makes
    const createdAt = new Date(w.clock.now).toISOString();
    const service = await startServer((req, res) => {
      if (req.method === 'POST')
        return json(res, 201, { ...createAnswer({ amountInCents: 1500, lbrlAddress: LQ }), createdAt, note });
      const { qrCode: _q, ...fields } = createAnswer({ amountInCents: 1500, lbrlAddress: LQ });
      return json(res, 200, {
        ...fields,
        createdAt,
        settlement: null,
        confirmedAt: null,
        status: 'WAITING_PAYMENT',
        note,
      });
    });
    closers.push(service);
    const env = { ...w.env, LBRL_BASE_URL: service.url, LBRL_TOKEN: TOKEN };
    const created = await w.run(['deposit', 'create', '--amount', '15', '--to', LQ, '--no-qr'], { env });
    expect(created.code, created.stderr).toBe(0);
    const secret = (await w.run(['listen', '--print-secret'], { env })).stdout.trim();
    const rx = await checkingReceiver(w, secret);
    const r = await w.listen(['--forward-to', rx.url], () => rx.taken().length >= 1, { env });
    expect(r.code, r.stderr).toBe(130);
    expect(rx.problems).toEqual([]);
    const d = rx.taken()[0]!;
    expect(d.type).toBe('deposit.created');
    // the body parses back to what the service said, and its length is its bytes
    const body = JSON.parse(d.body) as { data: { deposit: { note?: string } } };
    expect(body.data.deposit.note).toBe(note);
    expect(Number(d.headers['content-length'])).toBe(Buffer.byteLength(d.body));
    // and lbrl's own verifyWebhook agrees, on the text and on the bytes
    const { verifyWebhook } = await import('../../src/lib/webhook.js');
    const now = () => w.clock.now;
    expect(verifyWebhook(d.body, d.headers, secret, { now }).type).toBe('deposit.created');
    expect(verifyWebhook(Buffer.from(d.body), d.headers, secret, { now }).type).toBe('deposit.created');
  });
});

// a service that lies about one deposit: test/cmd/listen-in-process.test.ts

describe('sandbox trigger and --replay, from the outside', () => {
  it.each(['paid-fast', 'PAID', '', 'paid; rm -rf /', '\u001b[31mpaid'])(
    'trigger %j: one line naming the scenarios (exit 2), no deposit made',
    async (scenario) => {
      const w = world();
      const r = await w.run(['sandbox', 'trigger', scenario]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('paid, failed, paid-slowly, wrong-settlement, abandoned');
      expect(r.stderr).not.toContain('\u001b');
      expect(fs.existsSync(path.join(w.env.LBRL_CONFIG_DIR, 'history.ndjson'))).toBe(false);
    },
  );

  it('paid-slowly: held in TX_SENT for 5 minutes of the clock, then finalized, without waiting for real', async () => {
    const w = world();
    const rx = await checkingReceiver(w, await w.secret());
    const slow = await w.trigger('paid-slowly');
    const start = w.clock.now;
    const r = await w.listen(['--forward-to', rx.url, '--interval', '10'], () =>
      rx.types(slow).includes('deposit.finalized'),
    );
    expect(r.code).toBe(130);
    const t = rx.types(slow);
    expect(t[0]).toBe('deposit.created');
    expect(t.slice(-2)).toEqual(['deposit.tx_sent', 'deposit.finalized']);
    const sent = (type: string) =>
      Date.parse(JSON.parse(rx.taken().find((d) => d.type === type)!.body).timestamp);
    expect(sent('deposit.finalized') - sent('deposit.tx_sent')).toBeGreaterThanOrEqual(4.5 * 60_000);
    expect(w.clock.now - start).toBeLessThan(8 * 60_000);
    expect(rx.problems).toEqual([]);
  });

  it('--replay while another listen holds the lock, of a delivered event: sent again, signed now; to a receiver refusing or gone: exit 1 or 6', async () => {
    const w = world();
    const secret = await w.secret();
    const rx = await checkingReceiver(w, secret);
    const id = await w.trigger('abandoned');
    await w.listen(['--forward-to', rx.url], () => rx.types(id).length >= 1);
    const sent = rx.taken()[0]!;
    // a running listen holds the profile (this very process: its lock names a live pid)
    const dir = path.join(w.env.LBRL_CONFIG_DIR, 'webhooks');
    const { Outbox } = await import('../../src/store/outbox.js');
    const release = await new Outbox(w.env.LBRL_CONFIG_DIR, 'default').lock();
    try {
      w.clock.now += 3600_000;
      const again = await w.run(['listen', '--forward-to', rx.url, '--replay', sent.id]);
      expect(again.code, again.stderr).toBe(0);
      const replayed = rx.deliveries.at(-1)!;
      expect(replayed.id).toBe(sent.id);
      expect(replayed.body).toBe(sent.body);
      expect(Number(replayed.timestamp)).toBe(Math.floor(w.clock.now / 1000));
      expect(rx.problems).toEqual([]);
      const refusing = await checkingReceiver(w, secret, () => 503);
      const no = await w.run(['listen', '--forward-to', refusing.url, '--replay', sent.id]);
      expect(no.code).toBe(1);
      expect(no.stderr).toMatch(/--> 503 \(\d+ ms\)/);
      expect(no.stderr).toMatch(/^error: the receiver at .* answered 503, not 2xx$/m);
      await refusing.close();
      const gone = await w.run(['listen', '--forward-to', refusing.url, '--replay', sent.id]);
      expect(gone.code).toBe(6);
      expect(gone.stderr).toContain('could not be reached: connection refused');
      // the lock is still the other listen's
      expect(fs.existsSync(path.join(dir, 'default.lock'))).toBe(true);
    } finally {
      release();
    }
  });
});

describe('abandoned charges pile up', () => {
  it('charges the ledger expired are asked about now and then: a live payment is still sent within seconds, and a late payment of an expired one is seen', async () => {
    const w = world();
    const rx = await checkingReceiver(w, await w.secret());
    expect((await w.run(['config', 'set', 'expire-after', '1m'])).code).toBe(0);
    const abandoned: string[] = [];
    for (let i = 0; i < 25; i++) abandoned.push(await w.trigger('abandoned'));
    w.clock.now += 2 * 60_000;
    expect((await w.run(['deposit', 'list', '--refresh'])).code).toBe(0);
    await w.listen(['--forward-to', rx.url, '--interval', '1'], () =>
      abandoned.every((id) => rx.types(id).includes('deposit.expired')),
    );

    // a live charge, paid: its events come at the pace of one interval, not of twenty-five requests
    const paid = await w.trigger('paid');
    const start = w.clock.now;
    await w.listen(['--forward-to', rx.url, '--interval', '1'], () =>
      rx.types(paid).includes('deposit.finalized'),
    );
    const at = (type: string) =>
      Date.parse(
        JSON.parse(rx.taken().find((d) => d.deposit === paid && d.type === type)!.body).timestamp as string,
      );
    expect(at('deposit.finalized') - start).toBeLessThan(12_000);

    // one expired charge paid after all: seen without anyone refreshing the list
    const late = abandoned[7]!;
    expect((await w.run(['sandbox', 'pay', late])).code).toBe(0);
    const since = w.clock.now;
    // polled every 5 s (the spacing of the expired charges' looks): the same minutes of the clock
    // in a fifth of the passes
    await w.listen(['--forward-to', rx.url, '--interval', '5'], () =>
      rx.types(late).includes('deposit.finalized'),
    );
    expect(rx.types(late).at(-1)).toBe('deposit.finalized');
    expect(w.clock.now - since).toBeLessThan(15 * 60_000);
    expect(rx.problems).toEqual([]);
    // 25 charges and three listens in one sandbox: the slowest test of this file
  }, 60_000);
});

describe('the secret, where the config file is damaged', () => {
  it.each([
    ['a value left unquoted', (t: string) => t.replace(/": "(whsec_[^"]+)"/, '": $1')],
    ['a quote lost before it', (t: string) => t.replace(/"webhook-secret": "/, '"webhook-secret" "')],
    ['cut after it', (t: string) => t.slice(0, t.indexOf('whsec_') + 30)],
    ['a stray byte inside it', (t: string) => t.replace(/whsec_(.{10})/, 'whsec_$1\u0001')],
  ])('%s: no piece of the secret (or the token) in the refusal', async (_what, damage) => {
    const w = world();
    const token = 'tok_live_0123456789ABCDEFGHIJ';
    const file = path.join(w.env.LBRL_CONFIG_DIR, 'config.json');
    const secret = (await w.run(['listen', '--print-secret'])).stdout.trim();
    expect(secret).toMatch(/^whsec_/);
    // the token beside it, as auth login keeps it
    const config = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      profiles: { default: Record<string, string> };
    };
    config.profiles.default = { 'base-url': 'https://pay.example.com', token, ...config.profiles.default };
    fs.writeFileSync(file, damage(JSON.stringify(config, null, '\t')));
    for (const args of [
      ['listen', '--print-secret'],
      ['config', 'list'],
      ['auth', 'status', '--json'],
    ]) {
      const r = await w.run(args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`the config file ${file} is damaged (not valid JSON`);
      const key = secret.slice(6);
      for (let i = 0; i + 4 <= key.length; i++) expect(r.stderr).not.toContain(key.slice(i, i + 4));
      for (let i = 4; i + 4 <= token.length; i++) expect(r.stderr).not.toContain(token.slice(i, i + 4));
    }
  });
});
