import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeCacheEnv } from '../helpers/bin.js';

// The README's first command is `npm ci && npm run demo`. This runs the demo script as package.json
// writes it, less its leading `npm run build` (the tier has just built dist/), with a user's
// environment: it must reach FINALIZED, exit 0 and leave nothing behind in the temporary directory.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const demo = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts.demo as string;

describe('npm run demo, the README first command', () => {
  it('builds first, then follows a sandbox charge to FINALIZED with exit 0', async () => {
    expect(demo.startsWith('npm run build && ')).toBe(true);
    const command = demo.slice('npm run build && '.length);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-demo-home-'));
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-demo-tmp-'));
    try {
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          'bash',
          ['-c', command],
          {
            cwd: ROOT,
            timeout: 30_000,
            env: { PATH: process.env.PATH ?? '', HOME: home, TMPDIR: tmp, ...codeCacheEnv() },
          },
          (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
        );
      });
      expect(result.stderr + result.stdout).toMatch(/FINALIZED/);
      expect(result.code).toBe(0);
      expect(fs.readdirSync(tmp)).toEqual([]);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 40_000);
});
