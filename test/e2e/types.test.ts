/**
 * The published declarations, as a TypeScript program sees them: a consumer importing 'lbrl'
 * (resolved through package.json "exports" to dist/lib/index.d.ts, which `npm run build` writes)
 * compiles with strict checks and the declarations themselves checked (skipLibCheck off), and
 * misuse fails to compile where it should.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const CONSUMER = `
import {
  createClient,
  type CreatedDeposit,
  type Deposit,
  type ErrorType,
  EXIT_CODES,
  isLbrlError,
  LbrlError,
  parseAddress,
  parseAmount,
  parseBrCode,
  parseSplitFee,
} from 'lbrl';

export async function charge(signal: AbortSignal): Promise<{ status: number; body: string }> {
  const lbrl = createClient({ baseUrl: 'https://api.example.com', token: 't', network: 'liquid', timeoutMs: 10_000 });
  try {
    const created: CreatedDeposit = await lbrl.create(
      { amount: '15,50', to: parseAddress('lq1...').address, splitTo: 'x', splitFee: parseSplitFee('2%').wire },
      { idempotencyKey: 'order-1' },
    );
    const cents: number = created.amountInCents + parseAmount('1');
    const got: Deposit = await lbrl.get(created.id, { known: created, signal });
    let last: Deposit = got;
    for await (const d of lbrl.watch(created.id, { intervalMs: 3000, timeoutMs: 600_000, signal })) last = d;
    const txid: string | null | undefined = last.settlement?.liquidTxid;
    const inCode: number | undefined = parseBrCode(created.qrCodeText).amountInCents;
    return { status: 200, body: \`\${cents} \${txid} \${inCode} \${last.status === 'FINALIZED'}\` };
  } catch (error) {
    if (isLbrlError(error)) {
      const type: ErrorType = error.type;
      const code: number = error.exitCode;
      if (error.type === 'mismatch' || error.type === 'contract') return { status: 502, body: error.message };
      return { status: type === 'usage' ? 400 : 500, body: String(code + EXIT_CODES[type]) };
    }
    if (error instanceof LbrlError) throw new Error('unreachable');
    throw error;
  } finally {
    await lbrl.close();
  }
}

export async function misuse(): Promise<void> {
  const lbrl = createClient({ baseUrl: 'https://api.example.com', token: 't' });
  // @ts-expect-error: an amount in reais is a string, never a float
  await lbrl.create({ amount: 15.5, to: 'lq1' });
  // @ts-expect-error: the destination is required
  await lbrl.create({ amount: '15' });
  // @ts-expect-error: an amount is required
  await lbrl.create({ to: 'lq1' });
  // @ts-expect-error: cents are a number, not a string
  await lbrl.create({ amountCents: '1550', to: 'lq1' });
  // @ts-expect-error: one amount, not both
  await lbrl.create({ amount: '15.50', amountCents: 1550, to: 'lq1' });
  // @ts-expect-error: the destination is a string
  await lbrl.create({ amount: '15', to: 123 });
  // @ts-expect-error: the destination is one string, not a list
  await lbrl.create({ amount: '15', to: ['lq1'] });
  // either amount on its own compiles
  await lbrl.create({ amountCents: 1550, to: 'lq1' });
  await lbrl.create({ amount: '15,50', to: 'lq1', splitTo: 'lq1', splitFee: '2%' });
  // @ts-expect-error: not a network
  createClient({ baseUrl: 'https://x', token: 't', network: 'bitcoin' });
  const status = (await lbrl.get('id')).status;
  // @ts-expect-error: not a status
  if (status === 'PAID') return;
  try {
    await lbrl.get('id');
  } catch (error) {
    // @ts-expect-error: not an error type
    if (isLbrlError(error) && error.type === 'no_such_type') return;
  }
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: ['node'],
    typeRoots: [path.join(ROOT, 'node_modules/@types')],
  },
  files: ['consumer.ts', 'bad.ts'],
};

let dir: string;

beforeAll(() => {
  if (!fs.existsSync(path.join(ROOT, 'dist/lib/index.d.ts')))
    throw new Error('dist/lib/index.d.ts is missing: run npm run build');
  dir = tempDir('lbrl-consumer-');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules/lbrl'), 'dir');
});

const BAD = `
import { createClient } from 'lbrl';
// @ts-expect-error: the package exports only its root
import { DepositClient } from 'lbrl/dist/lib/api/client.js';
export { DepositClient };
export const c = createClient({ baseUrl: 'https://x', token: 't' }).create({ amount: 15.5, to: 'lq1' });
`;

/** One compilation (tsc is slow on a busy machine): the consumer and a file with one misuse unmarked. */
async function tsc(): Promise<string> {
  fs.writeFileSync(path.join(dir, 'consumer.ts'), CONSUMER);
  fs.writeFileSync(path.join(dir, 'bad.ts'), BAD);
  try {
    await promisify(execFile)(process.execPath, [
      path.join(ROOT, 'node_modules/typescript/bin/tsc'),
      '-p',
      dir,
    ]);
    return '';
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}

describe('the type declarations', () => {
  it('a consumer compiles against them, each marked misuse is an error, and so is the unmarked one', async () => {
    const errors = (await tsc()).trim().split('\n');
    // consumer.ts: clean (each @ts-expect-error met an error); bad.ts: only the float amount, which
    // also shows that the check can fail; the internal module, marked, is not importable
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /(^|\/)bad\.ts\(6,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/,
    );
  }, 90_000);
});
