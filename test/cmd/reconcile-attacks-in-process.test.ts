/**
 * deposit reconcile against a lying explorer, on narrow options (runReconcile, with runVerify and
 * runSetBlindingKey where the story needs them): it matches by the verify rules (one output, one
 * deposit; at least the due, to the unit; a split and its destination adding up to the net; one
 * output whichever way its address is written), and what verify counted stays counted. One shop:
 * the history on plain records that every run reads and appends to, an explorer without a socket
 * serving real Elements transactions paying explicit outputs of the sandbox's asset, a scripted
 * service answering each deposit FINALIZED (its answers read as the client reads them), a printer
 * on plain strings. No factory, no server. What a user sees is asserted: stdout, stderr as the one
 * handler prints the error, the exit code. Two processes racing on one history file stay with
 * the built binary: test/cmd/reconcile-attacks.test.ts.
 */
import { bech32 } from 'bech32';
import { encode as blech32Encode } from 'blech32';
import { describe, expect, it } from 'vitest';
import { type BlindingKeyCommandOptions, runSetBlindingKey } from '../../src/commands/config.js';
import { loadZkp } from '../../src/domain/liquid/unblind.js';
import { LbrlError } from '../../src/errors.js';
import { SANDBOX_ASSET_ID } from '../../src/sandbox/chain.js';
import type { Profile } from '../../src/store/config.js';
import { plainVerifySources } from '../helpers/fake-explorer.js';
import { createAnswer } from '../helpers/fixtures.js';
import { plainTerminal, seenRun } from '../helpers/plain-terminal.js';
import { recordsHistory } from '../helpers/records-history.js';
import { scriptedDepositApi } from '../helpers/scripted-deposit-api.js';
import {
  AFTER,
  type ChainTx,
  CREATED,
  DEST,
  id,
  payTx,
  type SettledDeposit,
  SPLIT,
  scriptedChain,
  settledRecords,
  units,
} from '../helpers/settled-deposits.js';
import { type Shown, shown } from '../helpers/shown.js';
import { reconcileShown, verifyShown } from '../helpers/verify-world.js';

const zkp = await loadZkp();
const TARGET = 'https://pay.example.com';
const NOW = CREATED + 3600_000;

/** A profile pinned to SBRL on an explorer, whose history holds these finalized deposits. */
function shop(deposits: SettledDeposit[], txs: ChainTx[]) {
  const history = recordsHistory(settledRecords(deposits, TARGET));
  const profile: Profile = {
    network: 'elementsregtest',
    'esplora-url': 'https://explorer.example/api',
    'asset-id': SANDBOX_ASSET_ID,
    'default-address': DEST,
  };
  const chain = scriptedChain(txs);
  const sources = () =>
    plainVerifySources({
      settings: Object.fromEntries(
        Object.entries(profile).filter((e): e is [string, string] => typeof e[1] === 'string'),
      ),
      keys: profile['blinding-keys'] ?? [],
      chain,
      history,
    });
  // the service answers each deposit as finalized, settled by the txid the history holds; ids in
  // any case, answered as asked; a deposit it does not know is its 404
  const service = () =>
    scriptedDepositApi({
      get: (asked) => {
        const d = deposits.find((x) => asked.toLowerCase() === id(x.n));
        if (!d) throw new LbrlError(`deposit ${asked} not found`, 'not_found');
        const { qrCode: _q, ...answer } = createAnswer({ amountInCents: d.cents, lbrlAddress: DEST });
        return {
          ...answer,
          id: asked,
          status: 'FINALIZED',
          createdAt: new Date(d.at ?? CREATED).toISOString(),
          settlement: { status: 'FINALIZED', liquidTxid: d.txid },
          confirmedAt: new Date(CREATED + 600_000).toISOString(),
        };
      },
      recorded: (x) => history.recorded(x, TARGET),
      now: () => NOW,
    });

  async function verify(idTexts: string[]): Promise<Shown> {
    return verifyShown(idTexts, { api: service(), sources: sources(), history, target: TARGET, now: NOW });
  }

  async function reconcile(o: { json?: boolean } = {}): Promise<Shown> {
    const json = o.json ?? false;
    return reconcileShown({
      profile: 'default',
      target: TARGET,
      history,
      sources: sources(),
      now: NOW,
      json,
    });
  }

  /** `config set-blinding-key --address <address>` with the key on stdin */
  async function setBlindingKey(address: string, key: string): Promise<Shown> {
    const term = plainTerminal({ stdin: key });
    return shown(
      term,
      await seenRun(term, () =>
        runSetBlindingKey({
          flags: { address },
          printer: term.printer,
          profileName: 'default',
          ctx: term.ctx as unknown as BlindingKeyCommandOptions['ctx'],
          input: undefined,
          color: false,
          profile: () => profile,
          profileForRepair: () => profile,
          updateProfile: async (change) => change(profile),
        }),
      ),
    );
  }

  return { verify, reconcile, setBlindingKey, history };
}

// a precision only claimed, a unit short, an old payment and a split a unit short:
// test/cmd/reconcile-in-process.test.ts
describe('deposit reconcile matches by the verify rules', () => {
  it('an output verify counted for one deposit is never matched to another, whichever is older', async () => {
    const tx = payTx([[DEST, units(1485)]], 'one');
    // both name the one output; the older was never verified, the newer was
    const { verify, reconcile } = shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid, at: CREATED + 60_000 },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    const first = await verify([id(2)]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const r = await reconcile({ json: true });
    expect(r.code).toBe(1);
    const found = JSON.parse(r.stdout);
    expect(found.matched).toEqual([expect.objectContaining({ depositId: id(2), txid: tx.txid, vout: 0 })]);
    expect(found.missing).toEqual([expect.objectContaining({ depositId: id(1), txid: tx.txid })]);
    // and verify says the same of the other
    const other = await verify([id(1)]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(id(2));
  });

  it('one output paying two deposits verify judged together is matched to both', async () => {
    const tx = payTx([[DEST, units(2 * 1485)]], 'both');
    const { verify, reconcile } = shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    expect((await verify([id(1), id(2)])).code).toBe(0);
    const r = await reconcile({ json: true });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(
      JSON.parse(r.stdout)
        .matched.map((m: { depositId: string; vout: number }) => [m.depositId, m.vout])
        .sort(),
    ).toEqual([
      [id(1), 0],
      [id(2), 0],
    ]);
  });

  it('the same deposit named in another case is one deposit, in one run and across runs', async () => {
    const tx = payTx([[DEST, units(1485)]], 'case');
    const { verify } = shop([{ n: 1, cents: 1500, txid: tx.txid }], [{ ...tx, time: AFTER, to: [DEST] }]);
    const both = await verify([id(1), id(1).toUpperCase()]);
    expect(both.stderr).toBe('');
    expect(both.code).toBe(0);
    const again = await verify([id(1).toUpperCase()]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
  });

  it('one output is one receipt, whichever way its address is written: never two deposits paid', async () => {
    const tx = payTx([[DEST, units(1485)]], 'twice');
    const { reconcile } = shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid, to: DEST.toUpperCase(), at: CREATED + 60_000 },
      ],
      [{ ...tx, time: AFTER, to: [DEST, DEST.toUpperCase()] }],
    );
    const r = await reconcile({ json: true });
    expect(r.code).toBe(1);
    const found = JSON.parse(r.stdout);
    // as verify of both in one run judges them: the one output falls short of the two, so
    // neither is paid by it, and it is one receipt matching neither
    expect(found.matched).toEqual([]);
    expect(found.missing.map((m: { depositId: string }) => m.depositId).sort()).toEqual([id(1), id(2)]);
    expect(found.unmatched).toEqual([expect.objectContaining({ txid: tx.txid, vout: 0 })]);
  });

  it.each([
    // 100%: the split takes the whole net, the destination is owed nothing
    ['100%', 1, [[SPLIT, units(1485)]], 0],
    // 0.01% of R$ 14.85 is 0.1485 cents: paid exactly, or rounded to nothing
    [
      '0.01%',
      0.0001,
      [
        [SPLIT, 148_500n],
        [DEST, units(1485) - 148_500n],
      ],
      0,
    ],
    ['0.01%', 0.0001, [[DEST, units(1485)]], 0],
    ['0.01%', 0.0001, [[DEST, units(1484)]], 1],
  ] as const)('a %s split at the edge: exit %i as verify judges it', async (_, split, pays, code) => {
    const tx = payTx(
      pays.map(([a, u]) => [a, u]),
      `edge${split}${pays.length}${code}`,
    );
    const { reconcile } = shop(
      [{ n: 1, cents: 1500, txid: tx.txid, split }],
      [{ ...tx, time: AFTER, to: [DEST, SPLIT] }],
    );
    const r = await reconcile({ json: true });
    expect(r.code).toBe(code);
    const found = JSON.parse(r.stdout);
    expect(found.unmatched).toEqual(code === 0 ? [] : [expect.objectContaining({ txid: tx.txid })]);
  });
});

describe('deposit reconcile counts each output and each deposit once', () => {
  /** the matched deposits and the outputs they name, sorted */
  const matchedOf = (stdout: string) =>
    (JSON.parse(stdout).matched as Array<{ depositId: string; vout: number }>)
      .map((m) => [m.depositId, m.vout])
      .sort();

  it('two deposits (never verified) settled by one summed output: both matched to it, nothing left over', async () => {
    const tx = payTx([[DEST, units(1485 + 2970)]], 'summed');
    const { reconcile } = shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 3000, txid: tx.txid },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    const r = await reconcile({ json: true });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(matchedOf(r.stdout)).toEqual([
      [id(1), 0],
      [id(2), 0],
    ]);
    expect([result.missing, result.unmatched, result.unproven]).toEqual([[], [], []]);
    // said to a person: one receipt, matched
    const human = await reconcile();
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/: 1 receipt\(s\) matched to deposits\n/);
    expect(human.stdout).toContain('everything matches');
  });

  it('three deposits of one transaction: one paid alone, two summed into another output', async () => {
    const tx = payTx(
      [
        [DEST, units(990)],
        [DEST, units(1485 + 1485)],
      ],
      'three',
    );
    const { reconcile } = shop(
      [
        { n: 1, cents: 1000, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid },
        { n: 3, cents: 1500, txid: tx.txid },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    const r = await reconcile({ json: true });
    expect(r.code).toBe(0);
    expect(matchedOf(r.stdout)).toEqual([
      [id(1), 0],
      [id(2), 1],
      [id(3), 1],
    ]);
  });

  it('two deposits with a 10% split, settled by one transaction: one output summing the splits, one the rest', async () => {
    // each: net R$ 14.85, split R$ 1.485 (148500000 units), destination R$ 13.365
    const tx = payTx(
      [
        [SPLIT, 2n * 148_500_000n],
        [DEST, 2n * 1_336_500_000n],
      ],
      'summed-splits',
    );
    const { reconcile } = shop(
      [
        { n: 1, cents: 1500, txid: tx.txid, split: 0.1 },
        { n: 2, cents: 1500, txid: tx.txid, split: 0.1 },
      ],
      [{ ...tx, time: AFTER, to: [DEST, SPLIT] }],
    );
    const r = await reconcile({ json: true });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(
      result.matched
        .map((m: { depositId: string; role: string; vout: number }) => [m.depositId, m.role, m.vout])
        .sort(),
    ).toEqual([
      [id(1), 'destination', 1],
      [id(1), 'split', 0],
      [id(2), 'destination', 1],
      [id(2), 'split', 0],
    ]);
    expect([result.missing, result.unmatched]).toEqual([[], []]);
  });

  it('a summed output one unit short of the deposits together matches neither: both missing, the output unmatched', async () => {
    const tx = payTx([[DEST, units(2 * 1485) - 1n]], 'summed-short');
    const { reconcile } = shop(
      [
        { n: 1, cents: 1500, txid: tx.txid },
        { n: 2, cents: 1500, txid: tx.txid },
      ],
      [{ ...tx, time: AFTER, to: [DEST] }],
    );
    const r = await reconcile({ json: true });
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout);
    expect(result.matched).toEqual([]);
    expect(result.missing.map((m: { depositId: string }) => m.depositId).sort()).toEqual([id(1), id(2)]);
    expect(result.unmatched).toHaveLength(1);
  });

  describe('a confidential output no key opens', () => {
    const KEY = '11'.repeat(32);
    const pub = () => zkp.ecc.pointFromScalar(Uint8Array.from(Buffer.from(KEY, 'hex')), true)!;
    /** DEST's script, confidential: blinded to KEY's public key */
    const CONF = () =>
      blech32Encode(
        'el',
        Uint8Array.from([0, ...bech32.toWords(Uint8Array.from([...pub(), ...Buffer.alloc(20, 0x22)]))]),
        'blech32',
      );

    it("paying a deposit's settlement: reported once, as not proven (exit 7), never missing and unmatched", async () => {
      const to = CONF();
      const tx = payTx([[to, units(1485)]], 'blind');
      const { reconcile } = shop(
        [{ n: 1, cents: 1500, txid: tx.txid, to }],
        [{ ...tx, time: AFTER, to: [to] }],
      );
      const r = await reconcile({ json: true });
      expect(r.code).toBe(7);
      const result = JSON.parse(r.stdout);
      expect([result.matched, result.missing, result.unmatched]).toEqual([[], [], []]);
      expect(result.unproven).toEqual([
        expect.objectContaining({
          depositId: id(1),
          role: 'destination',
          txid: tx.txid,
          vout: 0,
          cents: 1485,
        }),
      ]);
      expect(JSON.parse(r.stderr).error.type).toBe('unproven');
      const human = await reconcile();
      expect(human.code).toBe(7);
      expect(human.stdout).toContain('Paid by an output whose amount could not be read (not proven):');
      expect(human.stdout).not.toContain('Finalized, but not found on chain');
      expect(human.stdout).not.toContain('Received, matching no deposit');
      expect(human.stdout).not.toContain('everything matches');
    });

    it('settling two deposits summed: each deposit once, the output once', async () => {
      const to = CONF();
      const tx = payTx([[to, units(2 * 1485)]], 'blind-summed');
      const { reconcile } = shop(
        [
          { n: 1, cents: 1500, txid: tx.txid, to },
          { n: 2, cents: 1500, txid: tx.txid, to },
        ],
        [{ ...tx, time: AFTER, to: [to] }],
      );
      const r = await reconcile({ json: true });
      expect(r.code).toBe(7);
      const result = JSON.parse(r.stdout);
      expect([result.matched, result.missing, result.unmatched]).toEqual([[], [], []]);
      expect(
        result.unproven.map((u: { depositId: string; vout: number }) => [u.depositId, u.vout]).sort(),
      ).toEqual([
        [id(1), 0],
        [id(2), 0],
      ]);
    });

    it('with the key, the same output is matched', async () => {
      const to = CONF();
      const tx = payTx([[to, units(1485)]], 'blind-key');
      const { reconcile, setBlindingKey } = shop(
        [{ n: 1, cents: 1500, txid: tx.txid, to }],
        [{ ...tx, time: AFTER, to: [to] }],
      );
      const set = await setBlindingKey(to, KEY);
      expect(set.code).toBe(0);
      // the key is never shown
      expect(set.stdout + set.stderr).not.toContain(KEY);
      const r = await reconcile({ json: true });
      expect(r.code).toBe(0);
      expect(matchedOf(r.stdout)).toEqual([[id(1), 0]]);
    });
  });
});
