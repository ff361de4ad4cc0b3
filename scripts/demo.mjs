// The main job, hands-off, against the embedded sandbox: a deposit is created, its QR
// drawn, the payment simulated (autopay) and the status followed to FINALIZED.
// It uses a fresh data directory and ignores any LBRL_* settings, so it never
// reaches a live service.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-demo-'));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LBRL_')));
env.LBRL_CONFIG_DIR = dir;
const address =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';
const args = [
  'bin/lbrl.js',
  'deposit',
  'create',
  '--amount',
  '1500',
  '--to',
  address,
  '--watch',
  '--yes',
  '--no-input',
];
console.error(`$ lbrl ${args.slice(1).join(' ')}`);
const r = spawnSync(process.execPath, args, { env, stdio: 'inherit' });
fs.rmSync(dir, { recursive: true, force: true });
process.exit(r.status ?? 1);
