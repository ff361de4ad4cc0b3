import { buildDynamicBrCode } from '../../src/domain/brcode.js';
import {
  type CreatedDepositModel,
  createdDepositShape,
  type DepositModel,
  depositShape,
} from '../../src/domain/deposit.js';
import { checkDeposit, describeViolations } from '../../src/domain/deposit-rules.js';

export const LQ =
  'lq1qqvxk052kf3qtkxmrakx50a9gc3smqad2ync54hzntjt980kfej9kkfe0247rp5h4yzmdftsahhw64uy8pzfe7cpg4fgykm7cv';
export const EX = 'ex1qhuq5u7udzwskhaz45fy80kdaxjytqd99ju5yfn';
export const VJL = 'VJLCUu2hpcjPaTGMnAQ18s2uk3tJBFrM4Gtrt27tBKhdz5aJgkgQQjEFyot72jzycwzSPckzCXXVzwG5';
export const TEX = 'tex1qu32z09ra6k3paen83ug0y2csa23xukja3fyeyx';
export const ID = '3f2b8c1e-9a4d-4c6b-8e21-5d7f0a9b1c2d';
export const TOKEN = 'tok_secret_ABCDEFGHIJKLMNOP';
// a 1x1 PNG
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

export function brCode(cents: number): string {
  return buildDynamicBrCode({
    url: 'pix.example.invalid/abc',
    amountText: `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
    merchantName: 'TEST',
    merchantCity: 'SAO PAULO',
  });
}

/** What a well-behaved service answers to a create. */
export function createAnswer(body: {
  amountInCents: number;
  lbrlAddress: string;
  lbrlSplitAddress?: string;
  splitFee?: string;
}) {
  const fee = Math.floor(body.amountInCents / 100);
  const bp = body.splitFee ? Math.round(Number(body.splitFee.replace('%', '')) * 100) : null;
  return {
    id: ID,
    status: 'WAITING_PAYMENT',
    amount: body.amountInCents / 100,
    amountInCents: body.amountInCents,
    feeAmount: fee / 100,
    netAmount: (body.amountInCents - fee) / 100,
    qrCode: PNG_BASE64,
    qrCodeText: brCode(body.amountInCents),
    destinationAddress: body.lbrlAddress,
    splitAddress: body.lbrlSplitAddress ?? null,
    splitPercent: bp === null ? null : bp / 10000,
    createdAt: '2026-11-22T10:00:00.000Z',
  };
}

export function getAnswer(overrides: Record<string, unknown> = {}) {
  const { qrCode: _q, ...rest } = createAnswer({ amountInCents: 150000, lbrlAddress: LQ });
  return { ...rest, settlement: null, confirmedAt: null, ...overrides };
}

/** A CSV for deposit create --from: rows R$ 1, 2, ... to LQ, every second one split to VJL at 1,5%. */
export const batchCsv = (rows: number) =>
  `amount,to,splitTo,splitFee\n${Array.from({ length: rows }, (_, i) => `${i + 1},${LQ},${i % 2 ? VJL : ''},${i % 2 ? '"1,5"' : ''}`).join('\n')}\n`;

/**
 * A sandbox answer as a client reads it, after it passed every rule an answer must keep
 * (domain/deposit-rules.ts, the one rule set): what the sandbox answers is what the service would.
 */
export function keepsTheRules(kind: 'create', body: unknown): CreatedDepositModel;
export function keepsTheRules(kind: 'get', body: unknown): DepositModel;
export function keepsTheRules(kind: 'create' | 'get', body: unknown): CreatedDepositModel | DepositModel {
  const broken = checkDeposit(body, { kind });
  if (broken.length > 0) throw new Error(`the answer breaks the rules: ${describeViolations(broken)}`);
  return (kind === 'create' ? createdDepositShape : depositShape).parse(body);
}
