import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Prompter } from '../../src/context.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { createAnswer, EX, LQ, TOKEN } from '../helpers/fixtures.js';
import { json, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let env: Record<string, string>;
beforeEach(async () => {
  server = await startServer((req, res) => json(res, 201, createAnswer(JSON.parse(req.body))));
  env = liveEnv(server.url, TOKEN, { NO_COLOR: '1' });
});
afterEach(() => server.close());

/** Answers as a person would, checking each through the prompt's own validation. */
function person(answers: string[], confirmAnswer = true) {
  const asked: string[] = [];
  const rejected: string[] = [];
  const prompter: Prompter = {
    async input(o) {
      asked.push(o.message);
      for (;;) {
        const a = answers.shift();
        if (a === undefined) throw new Error(`no answer left for ${o.message}`);
        const v = a === '' && o.default !== undefined ? o.default : a;
        const ok = o.validate(v);
        if (ok === true) return v;
        rejected.push(`${v}: ${ok}`);
      }
    },
    async confirm(o) {
      asked.push(o.message);
      return confirmAnswer;
    },
    async password(o) {
      asked.push(o.message);
      const a = answers.shift();
      if (a === undefined) throw new Error(`no answer left for ${o.message}`);
      return a;
    },
  };
  return { prompter, asked, rejected };
}

const tty = { stdinTTY: true, stdoutTTY: true, stderrTTY: true };

describe('interactive create', () => {
  it('asks for the missing amount and destination, validates as typed, shows a summary and confirms', async () => {
    const p = person(['1.500,00', '15,5', 'not-an-address', LQ]);
    const r = await runCli(['deposit', 'create', '--no-qr'], { env, ...tty, prompter: p.prompter });
    expect(r.code).toBe(0);
    expect(p.asked).toEqual([
      'Amount in reais (e.g. 1500 or 15,50)',
      'Destination Liquid address',
      'Create this charge?',
    ]);
    expect(p.rejected[0]).toContain('1.500,00: expected an amount in reais');
    expect(p.rejected[1]).toContain('not-an-address: expected a Liquid address on liquid');
    expect(r.stderr).toContain('  R$ 15,50 (1550 cents)');
    expect(r.stderr).toContain(
      `Amount   R$ 15,50 (1550 cents)\nTo       ${LQ}\nSplit    none\nService  ${server.url}`,
    );
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ amountInCents: 1550, lbrlAddress: LQ });
  });

  it("offers the profile's default address", async () => {
    await runCli(['config', 'set', 'default-address', EX], { env });
    const p = person(['10', '']);
    const r = await runCli(['deposit', 'create', '--no-qr', '--yes'], { env, ...tty, prompter: p.prompter });
    expect(r.code).toBe(0);
    expect(p.asked).toEqual(['Amount in reais (e.g. 1500 or 15,50)', 'Destination Liquid address']);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ amountInCents: 1000, lbrlAddress: EX });
  });

  it('asks for the split fee when only the split address was given', async () => {
    const p = person(['2,99']);
    const r = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ, '--split-to', EX, '--yes'], {
      env,
      ...tty,
      prompter: p.prompter,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(server.requests[0]!.body)).toMatchObject({ splitFee: '2.99%', lbrlSplitAddress: EX });
  });

  it('a declined confirmation sends nothing', async () => {
    const p = person([], false);
    const r = await runCli(['deposit', 'create', '--amount', '1', '--to', LQ], {
      env,
      ...tty,
      prompter: p.prompter,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: cancelled; nothing was sent');
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['CI is set', { CI: 'true' }, []],
    ['--no-input', {}, ['--no-input']],
  ])('never prompts when %s: a missing value names the flag', async (_name, extraEnv, flags) => {
    const p = person(['1']);
    const r = await runCli(['deposit', 'create', ...flags], {
      env: { ...env, ...extraEnv },
      ...tty,
      prompter: p.prompter,
    });
    expect(r.code).toBe(2);
    expect(p.asked).toEqual([]);
    expect(r.stderr).toBe('error: missing amount: pass --amount <reais> or --amount-cents <n>\n');
  });

  it('never prompts without a terminal', async () => {
    const p = person(['1']);
    const r = await runCli(['deposit', 'create', '--to', LQ], { env, prompter: p.prompter });
    expect(r.code).toBe(2);
    expect(p.asked).toEqual([]);
  });
});

describe('auth login at a terminal', () => {
  it('asks for the token through the same prompter, and saves it', async () => {
    const dir = tempDir();
    const p = person(['tok_from_the_prompt_5678']);
    const r = await runCli(['auth', 'login', '--base-url', 'https://pay.example.com', '--no-verify'], {
      env: { LBRL_CONFIG_DIR: dir, NO_COLOR: '1' },
      ...tty,
      prompter: p.prompter,
    });
    expect(r.code).toBe(0);
    expect(p.asked).toEqual(['Access token for https://pay.example.com']);
    expect(r.stdout + r.stderr).not.toContain('tok_from_the_prompt_5678');
    const fs = await import('node:fs');
    expect(JSON.parse(fs.readFileSync(`${dir}/config.json`, 'utf8')).profiles.default.token).toBe(
      'tok_from_the_prompt_5678',
    );
  });
});
