/**
 * A failure no command caught (an exception thrown in a callback, a rejected promise nobody
 * awaited) is said like any error: one line on stderr, the token kept out, no stack trace, exit 1.
 * Node's own report prints the message and the stack as they are. The failure is planted with
 * NODE_OPTIONS=--import, while `listen` waits.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { tempDir } from '../helpers/cli.js';

const TOKEN = 'tok_live_crash_0123456789abcdef';

function planted(code: string): string {
  const file = path.join(tempDir(), 'plant.mjs');
  fs.writeFileSync(file, code);
  return file;
}

describe('a failure no command caught', () => {
  it.each([
    [
      'an exception thrown in a timer',
      "setTimeout(() => { throw new Error('boom: ' + process.env.LBRL_TOKEN); }, 100);",
    ],
    [
      'a rejected promise nobody awaits',
      "setTimeout(() => { Promise.reject(new TypeError('bad: Bearer ' + process.env.LBRL_TOKEN)); }, 100);",
    ],
  ])('%s: one line, redacted, no stack, exit 1', async (_name, code) => {
    const env = {
      LBRL_CONFIG_DIR: tempDir(),
      LBRL_TOKEN: TOKEN,
      LBRL_BASE_URL: 'https://pay.example.com',
      NODE_OPTIONS: `--import=${planted(code)}`,
    };
    const r = await runBin(['listen', '--forward-to', 'http://127.0.0.1:9/hook', '-q'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain(TOKEN.slice(0, 8));
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stderr).toMatch(/^error: unexpected failure: (boom|bad): .*\[redacted\]\n$/);
    const json = await runBin(['listen', '--forward-to', 'http://127.0.0.1:9/hook', '--json'], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { type: 'service', exitCode: 1 } });
    expect(json.stderr).not.toContain(TOKEN.slice(0, 8));
  });
});
