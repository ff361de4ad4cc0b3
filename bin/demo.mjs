// `npm run demo`: a R$ 1.500,00 charge in a throw-away sandbox, followed to its end. The sandbox
// lives in a temporary config directory that is removed however the demo ends (its end, an
// error, Ctrl-C or SIGTERM), so running it leaves nothing behind.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADDRESS =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-demo-'));
const env = { ...process.env, LBRL_CONFIG_DIR: dir };
for (const name of ['LBRL_BASE_URL', 'LBRL_TOKEN', 'LBRL_PROFILE']) delete env[name];
const child = spawn(
  process.execPath,
  [
    path.join(root, 'bin/lbrl.js'),
    'deposit',
    'create',
    '--amount',
    '1500',
    '--to',
    ADDRESS,
    '--watch',
    '--yes',
    '--no-input',
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit', env },
);
// Ctrl-C reaches the demo's process group, lbrl included; SIGTERM is handed on: lbrl ends its
// watch and says so, then the directory goes
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  fs.rmSync(dir, { recursive: true, force: true });
  process.exitCode = code ?? (signal === 'SIGINT' ? 130 : 1);
});
