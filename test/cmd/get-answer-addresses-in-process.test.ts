/**
 * An address in a get answer about a deposit lbrl has no record of (it did not create it, or its
 * history does not hold it) cannot be compared with what lbrl sent: it is decoded, and one that is
 * no address of the profile's network (a checksum that fails, another network's) is refused as a
 * lie naming the field, exit 1, as a create answered with another address is. Nothing is printed
 * on stdout. An address lbrl recorded is compared exactly, and the address codecs are not needed.
 */
import { describe, expect, it } from 'vitest';
import type { ApiResult } from '../../src/api/client.js';
import type { GetResponse } from '../../src/api/models.js';
import { runGet } from '../../src/commands/deposit-get.js';
import { getChecked } from '../../src/deposits/answers.js';
import type { DepositApi } from '../../src/deposits/ports.js';
import type { Network } from '../../src/domain/liquid/networks.js';
import { LbrlError } from '../../src/errors.js';
import type { HistoryEntry } from '../../src/store/history-records.js';
import { getAnswer, ID, LQ, TEX, VJL } from '../helpers/fixtures.js';
import { plainGetOptions } from '../helpers/get-in-process.js';
import { plainTerminal } from '../helpers/plain-terminal.js';

/** the last character of an address changed: its checksum fails */
function brokenChecksum(address: string): string {
  const last = address.at(-1);
  return address.slice(0, -1) + (last === 'q' ? 'p' : 'q');
}

function answering(answers: Record<string, unknown>[], network: Network | undefined): DepositApi {
  let turn = 0;
  return {
    createDeposit: async () => {
      throw new Error('a get creates nothing');
    },
    getDeposit: async () => {
      const answer = answers[Math.min(turn++, answers.length - 1)];
      const text = JSON.stringify(answer);
      return { value: answer, raw: JSON.parse(text), text } as ApiResult<GetResponse>;
    },
    ...(network ? { network } : {}),
  };
}

async function get(answer: Record<string, unknown>, recorded?: HistoryEntry, network: Network = 'liquid') {
  const term = plainTerminal({ json: false, quiet: false });
  try {
    await runGet(plainGetOptions(term, answering([answer], network), { recorded: () => recorded }));
    return { stdout: term.stdout, stderr: term.stderr, error: undefined };
  } catch (error) {
    if (!(error instanceof LbrlError)) throw error;
    return { stdout: term.stdout, stderr: term.stderr, error };
  }
}

describe('deposit get: an address lbrl did not send is checked', () => {
  it.each([
    ['destinationAddress', { destinationAddress: brokenChecksum(LQ) }, 'checksum'],
    ['splitAddress', { splitAddress: brokenChecksum(VJL), splitPercent: 0.015 }, 'checksum'],
    ['destinationAddress', { destinationAddress: TEX }, 'liquidtestnet'],
    ['splitAddress', { splitAddress: TEX, splitPercent: 0.015 }, 'liquidtestnet'],
  ])('a wrong %s (%j) is refused, exit 1, nothing shown', async (field, overrides, reason) => {
    const r = await get(getAnswer(overrides));
    expect(r.stdout).toBe('');
    expect(r.error?.exitCode).toBe(1);
    expect(r.error?.message).toContain(`cannot be trusted: ${field}: expected a Liquid address on liquid (`);
    expect(r.error?.message).toContain(reason);
    expect(r.error?.message).toContain(String((overrides as Record<string, string>)[field]));
  });

  it('a real address of the profile network is shown, exit 0', async () => {
    const r = await get(getAnswer({ splitAddress: VJL, splitPercent: 0.015 }));
    expect(r.error).toBeUndefined();
    expect(r.stdout).toContain(LQ);
  });

  it('an address the history recorded is compared exactly, whatever the network setting', async () => {
    const answer = getAnswer();
    const recorded = {
      id: ID,
      at: '2026-11-22T10:00:00.000Z',
      amountInCents: 150000,
      destinationAddress: LQ,
      splitAddress: null,
      splitFee: null,
      status: 'WAITING_PAYMENT',
    } as unknown as HistoryEntry;
    const r = await get(answer, recorded, 'elementsregtest');
    expect(r.error).toBeUndefined();
    expect(r.stdout).toContain(LQ);
  });

  it('a follow (watch, list --refresh, listen) refuses it on its first answer and on a later one', async () => {
    const api = answering([getAnswer({ destinationAddress: brokenChecksum(LQ) })], 'liquid');
    await expect(getChecked(api, ID, { recorded: undefined })).rejects.toThrow(
      /destinationAddress: expected a Liquid address on liquid/,
    );
    const later = answering([getAnswer(), getAnswer({ splitAddress: TEX, splitPercent: 0.015 })], 'liquid');
    await getChecked(later, ID, { recorded: undefined });
    await expect(getChecked(later, ID)).rejects.toThrow(/splitAddress/);
  });

  it('a client that names no network still refuses an address whose checksum fails', async () => {
    const api = answering([getAnswer({ destinationAddress: brokenChecksum(LQ) })], undefined);
    await expect(getChecked(api, ID, { recorded: undefined })).rejects.toThrow(
      /destinationAddress: expected a Liquid address \(/,
    );
  });
});
