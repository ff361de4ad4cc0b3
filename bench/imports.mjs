// What each dependency costs to load, the way lbrl loads it: each one alone in a file bundled with
// lbrl's build options, run against an empty bundled ES module (alternating, medians).
//   node bench/imports.mjs [--quick]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleLikeLbrl, median, ROOT, round, tempEnv, timeRun } from './lib.mjs';

const runs = process.argv.includes('--quick') ? 7 : 21;

/**
 * name: the least a command does with it that makes the module load and run its set-up (kept on
 * globalThis so that esbuild cannot drop it: several of these packages say they have no side effects).
 */
const MODULES = {
  'commander (the program)': "import { Command } from 'commander'; new Command('x').option('--y');",
  'undici Agent + request': [
    "import Agent from 'undici/lib/dispatcher/agent.js';",
    "import request from 'undici/lib/api/api-request.js';",
    'new Agent(); globalThis.kept = request;',
  ].join('\n'),
  'zod/mini (one object schema, one parse)':
    "import * as z from 'zod/mini'; z.object({ a: z.string() }).parse({ a: 'x' });",
  chalk: "import chalk from 'chalk'; chalk.red('x');",
  'address codecs (bech32, bs58check, blech32)':
    "import { bech32 } from 'bech32'; import bs58check from 'bs58check'; import { decode } from 'blech32'; globalThis.kept = [bech32, bs58check, decode];",
  'qrcode-terminal': "import qr from 'qrcode-terminal'; globalThis.kept = qr;",
  'qrcode (PNG)': "import QRCode from 'qrcode'; globalThis.kept = QRCode;",
  'ora (spinner)': "import ora from 'ora'; globalThis.kept = ora;",
  '@inquirer/prompts':
    "import { input, confirm } from '@inquirer/prompts'; globalThis.kept = [input, confirm];",
  'conf (config writer, ajv)': "import Conf from 'conf'; globalThis.kept = Conf;",
};

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lbrl-bench-imports-'));
// the bundles must resolve packages from the project
const src = fs.mkdtempSync(path.join(ROOT, 'bench', '.imports-'));
async function bundle(name, code) {
  const entry = path.join(src, `${name}.mjs`);
  fs.writeFileSync(entry, `${code}\n`);
  const outfile = path.join(dir, `${name}.mjs`);
  return bundleLikeLbrl(entry, outfile);
}

try {
  const { env } = tempEnv();
  const empty = await bundle('empty', '');
  const rows = [];
  for (const [i, [name, code]] of Object.entries(MODULES).entries()) {
    const file = await bundle(`m${i}`, code);
    const base = [];
    const withIt = [];
    for (let k = 0; k < runs + 3; k++) {
      const b = timeRun([empty], env);
      const m = timeRun([file], env);
      if (k >= 3) {
        base.push(b);
        withIt.push(m);
      }
    }
    rows.push({ name, emptyMs: round(median(base)), ms: round(median(withIt) - median(base)) });
  }
  console.log(`lbrl dependency load costs, ${new Date().toISOString()}, Node ${process.version}`);
  console.log('');
  console.log('| module | ms over an empty ES module | bundled KB |');
  console.log('|---|---|---|');
  for (const [i, r] of rows.entries()) {
    const kb = Math.round(fs.statSync(path.join(dir, `m${i}.mjs`)).size / 1024);
    console.log(`| ${r.name} | ${r.ms} | ${kb} |`);
  }
  console.log('');
  console.log(`(an empty bundled ES module: ${rows[0]?.emptyMs} ms, medians of ${runs} paired runs)`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(src, { recursive: true, force: true });
}
