/**
 * auth login at a terminal asks through the prompter. What deposit create asks, and when it never
 * asks (CI, --no-input, no terminal), is in process: test/cmd/create-in-process.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Prompter } from '../../src/context.js';
import { runCli, tempDir } from '../helpers/cli.js';

/** A person who types these answers to the secret prompts, and is asked nothing else. */
function person(answers: string[]) {
  const asked: string[] = [];
  const prompter: Prompter = {
    async input(o) {
      throw new Error(`asked ${o.message}`);
    },
    async confirm(o) {
      throw new Error(`asked ${o.message}`);
    },
    async password(o) {
      asked.push(o.message);
      const a = answers.shift();
      if (a === undefined) throw new Error(`no answer left for ${o.message}`);
      return a;
    },
  };
  return { prompter, asked };
}

const tty = { stdinTTY: true, stdoutTTY: true, stderrTTY: true };

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
