/**
 * `lbrl listen` to several receivers, each with its own --events: the README's example run as
 * written (on two receivers of the test's own in place of its ports), a dead receiver that holds
 * up no other and gets what it missed when it comes back, the flag's refusals, and credentials in
 * a receiver's URL kept out of every line. In process against the embedded sandbox; each delivery
 * checked with the standardwebhooks package as it arrives.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkingReceiver, listenWorld } from '../helpers/listen.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STORY = [
  'deposit.created',
  'deposit.pix_confirmed',
  'deposit.settlement_created',
  'deposit.tx_sent',
  'deposit.finalized',
];

const closers: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c.close();
});

/** docs/events.md's command for several receivers, as its words. */
function readmeCommand(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'docs/events.md'), 'utf8');
  const section = readme.slice(readme.indexOf('- Several receivers:'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('docs/events.md: no sh block after "Several receivers"');
  return block[1]!.replace(/\\\n/g, ' ').trim().split(/\s+/);
}

describe('listen to several receivers', () => {
  it("the README's example, as written: the first receiver gets only its types, the second every event, each in order", async () => {
    const w = listenWorld();
    const secret = await w.secret();
    const paid = await checkingReceiver(w, secret, closers);
    const all = await checkingReceiver(w, secret, closers);
    const words = readmeCommand();
    expect(words.slice(0, 2)).toEqual(['lbrl', 'listen']);
    const args = words
      .slice(2)
      .map((word) =>
        word.startsWith('http://127.0.0.1:4242/')
          ? paid.url
          : word.startsWith('http://127.0.0.1:4343/')
            ? all.url
            : word,
      );
    expect(args.filter((a) => a === paid.url || a === all.url)).toHaveLength(2);
    const id = await w.trigger('paid');
    const r = await w.listen(
      args,
      () => all.types(id).includes('deposit.finalized') && paid.types(id).length > 0,
    );
    expect(r.code, r.stderr).toBe(130);
    expect(paid.types(id)).toEqual(['deposit.finalized']);
    expect(all.types(id)).toEqual(STORY);
    expect([...paid.problems, ...all.problems]).toEqual([]);
    expect(r.stderr).toContain(
      `to ${paid.url} (deposit.finalized,deposit.failed), ${all.url} (every event).`,
    );
    // each answer line says whose it is
    expect(r.stderr).toMatch(
      new RegExp(`deposit\\.finalized  ${id}  --> 200 \\(\\d+ ms\\)  \\[evt_[\\w-]+\\]  ${paid.url}$`, 'm'),
    );
  });

  it('a receiver that is down holds up no other; back up, it gets what it missed, in order, once', async () => {
    const w = listenWorld();
    const secret = await w.secret();
    let down = true;
    const flaky = await checkingReceiver(w, secret, closers, () => (down ? 503 : 200));
    const steady = await checkingReceiver(w, secret, closers);
    const id = await w.trigger('paid');
    const args = ['--forward-to', flaky.url, '--forward-to', steady.url];
    await w.listen(args, () => steady.types(id).includes('deposit.finalized'));
    expect(steady.types(id)).toEqual(STORY);
    expect(flaky.types(id)).toEqual([]);
    expect(flaky.deliveries.length).toBeGreaterThan(0);
    down = false;
    const before = steady.deliveries.length;
    await w.listen(args, () => flaky.types(id).includes('deposit.finalized'));
    expect(flaky.types(id)).toEqual(STORY);
    // the steady one had everything: nothing sent to it again
    expect(steady.deliveries.length).toBe(before);
    expect([...flaky.problems, ...steady.problems]).toEqual([]);
    const outboxes = fs
      .readdirSync(path.join(w.env.LBRL_CONFIG_DIR, 'webhooks'))
      .filter((f) => f.endsWith('.ndjson'));
    expect(outboxes).toHaveLength(2);
    expect(outboxes.every((f) => /^default~[0-9a-f]{12}\.ndjson$/.test(f))).toBe(true);
  });

  it.each([
    [
      ['--forward-to', 'http://127.0.0.1:1/a', '--events', 'deposit.created', '--events', 'deposit.failed'],
      'error: --events is given twice after --forward-to http://127.0.0.1:1/a: give each receiver one (a comma-separated list)',
    ],
    [
      ['--events', 'deposit.created', '--events', 'deposit.failed', '--forward-to', 'http://127.0.0.1:1/a'],
      'error: --events is given twice before any --forward-to: give it once',
    ],
    [
      ['--forward-to', 'http://127.0.0.1:1/a', '--forward-to', 'http://127.0.0.1:1/a'],
      'error: --forward-to names the same receiver twice: give each URL once',
    ],
  ])('%j is refused: one line, exit 2, nothing written', async (args, line) => {
    const w = listenWorld();
    const r = await w.run(['listen', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(line);
    expect(fs.existsSync(path.join(w.env.LBRL_CONFIG_DIR, 'webhooks'))).toBe(false);
  });

  it('--replay finds an event in any receiver outbox and sends it to each --forward-to', async () => {
    const w = listenWorld();
    const secret = await w.secret();
    const a = await checkingReceiver(w, secret, closers);
    const b = await checkingReceiver(w, secret, closers);
    const id = await w.trigger('abandoned');
    await w.listen(
      ['--forward-to', a.url, '--forward-to', b.url],
      () => b.types(id).length > 0 && a.types(id).length > 0,
    );
    const event = b.taken()[0]!;
    const r = await w.run(['listen', '--forward-to', a.url, '--forward-to', b.url, '--replay', event.id]);
    expect(r.code, r.stderr).toBe(0);
    expect(a.deliveries.at(-1)).toMatchObject({ id: event.id, body: event.body });
    expect(b.deliveries.at(-1)).toMatchObject({ id: event.id, body: event.body });
    expect([...a.problems, ...b.problems]).toEqual([]);
  });
});

describe('a token in a receiver URL is never printed', () => {
  const TOKEN = 'tok_9f8e7d6c5b4a39281706';

  it('not in the listening line, the answer lines, a --replay error, nor --json and --verbose', async () => {
    const w = listenWorld();
    const secret = await w.secret();
    const rx = await checkingReceiver(w, secret, closers);
    const url = `${rx.url}?token=${TOKEN}&shop=1`;
    const other = await checkingReceiver(w, secret, closers, () => 500);
    const otherUrl = `${other.url}?key=${encodeURIComponent(`${TOKEN}/+x`)}`;
    const id = await w.trigger('abandoned');
    const r = await w.listen(
      ['--verbose', '--forward-to', url, '--forward-to', otherUrl],
      () => rx.types(id).length > 0,
    );
    expect(r.stderr).toContain(`to ${rx.url}?token=[redacted]&shop=[redacted] (every event)`);
    expect(rx.deliveries[0]!.body).toContain(id);
    const event = rx.taken()[0]!;
    const replay = await w.run(['--json', 'listen', '--forward-to', otherUrl, '--replay', event.id]);
    expect(replay.code).toBe(1);
    expect(JSON.parse(replay.stderr.trim().split('\n').at(-1)!).error.message).toBe(
      `the receiver at ${other.url}?key=[redacted] answered 500, not 2xx`,
    );
    for (const text of w.outputs) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(encodeURIComponent(TOKEN));
    }
  });
});
