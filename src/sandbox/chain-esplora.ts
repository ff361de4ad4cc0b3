/**
 * The sandbox's Esplora API over its own chain: the routes verify uses, answered as
 * Blockstream's Esplora answers them (JSON, plain-text hex and height, plain-text 404s).
 * Mount it under a prefix of the sandbox server, e.g.:
 *
 *   if (url.pathname.startsWith('/esplora/')) return handleEsplora(req, res, chainContext, '/esplora');
 */
import type http from 'node:http';
import { decodeLiquidAddress } from '../domain/liquid/address.js';
import { addressScript } from '../domain/liquid/script.js';
import { isFeeOutput, parseTransaction, type TxOutput } from '../domain/liquid/tx.js';
import { isHex32 } from '../domain/values.js';
import { blockHeightFor, DEFAULT_BLOCK_MS, explorerAddress, SANDBOX_ASSET, tipHeightAt } from './chain.js';

export interface ChainTx {
  hex: string;
  /** sandbox clock, ms: when the settlement was sent (TX_SENT) */
  sentAt: number;
  /** the addresses paid, so the explorer can show their unconfidential form */
  addresses: string[];
}

export interface ChainContext {
  now: () => number;
  /** the sandbox's settlement transaction with this txid, if one was sent by now */
  findTx: (txid: string) => ChainTx | undefined | Promise<ChainTx | undefined>;
  /** the transactions sent by now paying a script (hex), newest first, for the address routes */
  txsPaying?: (
    script: string,
  ) => Array<ChainTx & { txid: string }> | Promise<Array<ChainTx & { txid: string }>>;
  blockMs?: number;
}

function text(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function json(res: http.ServerResponse, body: unknown): void {
  const serialised = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(serialised) });
  res.end(serialised);
}

function statusJson(ctx: ChainContext, tx: ChainTx) {
  const blockMs = ctx.blockMs ?? DEFAULT_BLOCK_MS;
  const height = blockHeightFor(tx.sentAt, blockMs);
  if (tipHeightAt(ctx.now(), blockMs) < height) return { confirmed: false };
  return {
    confirmed: true,
    block_height: height,
    block_hash: Buffer.from(`${height}`.padStart(32, '0')).toString('hex'),
    block_time: Math.floor((height * blockMs) / 1000),
  };
}

const TYPES: Record<string, string> = {
  p2pkh: 'p2pkh',
  p2sh: 'p2sh',
  p2wpkh: 'v0_p2wpkh',
  p2wsh: 'v0_p2wsh',
  p2tr: 'v1_p2tr',
  witness: 'unknown',
};

function vout(output: TxOutput, addresses: Map<string, string>) {
  const script = Buffer.from(output.script).toString('hex');
  const address = addresses.get(script);
  const kind = address ? decodeLiquidAddress(address) : undefined;
  const out: Record<string, unknown> = {
    scriptpubkey: script,
    scriptpubkey_type: isFeeOutput(output) ? 'fee' : kind?.ok ? TYPES[kind.value.kind] : 'unknown',
  };
  if (address) out.scriptpubkey_address = address;
  if (output.value.kind === 'explicit') out.value = Number(output.value.amount);
  else if (output.value.kind === 'confidential')
    out.valuecommitment = Buffer.from(output.value.commitment).toString('hex');
  if (output.asset.kind === 'explicit') out.asset = output.asset.id;
  else if (output.asset.kind === 'confidential')
    out.assetcommitment = Buffer.from(output.asset.commitment).toString('hex');
  return out;
}

/** Answer one GET under `prefix` (the part of the path before the Esplora route). */
export async function handleEsplora(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  ctx: ChainContext,
  prefix = '',
): Promise<void> {
  try {
    await answer(req, res, ctx, prefix);
  } catch {
    if (!res.headersSent) text(res, 500, 'Internal error');
    else res.destroy();
  }
}

async function answer(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  ctx: ChainContext,
  prefix: string,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
  const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
  if (req.method !== 'GET') return text(res, 405, 'Method not allowed');
  if (path === '/blocks/tip/height') return text(res, 200, String(tipHeightAt(ctx.now(), ctx.blockMs)));
  // ids are read in their one form (domain/values.ts): any other path segment is not found
  const asset = /^\/asset\/([^/]+)$/.exec(path);
  if (asset && isHex32(asset[1])) {
    return asset[1] === SANDBOX_ASSET.asset_id ? json(res, SANDBOX_ASSET) : text(res, 404, 'Asset not found');
  }
  const history = /^\/address\/([0-9A-Za-z]{20,200})\/txs(?:\/chain\/([^/]+))?$/.exec(path);
  if (history && (history[2] === undefined || isHex32(history[2])))
    return addressHistory(res, ctx, history[1]!, history[2]);
  const match = /^\/tx\/([^/]+)(\/hex|\/status)?$/.exec(path);
  if (!match || !isHex32(match[1])) return text(res, 404, 'Not found');
  const tx = await ctx.findTx(match[1]!);
  if (!tx || tx.sentAt > ctx.now()) return text(res, 404, 'Transaction not found');
  if (match[2] === '/hex') return text(res, 200, tx.hex);
  if (match[2] === '/status') return json(res, statusJson(ctx, tx));
  json(res, txJson(ctx, tx));
}

/** Esplora pages an address's confirmed history 25 at a time; unconfirmed ones come first, all of them. */
const PAGE = 25;

async function addressHistory(
  res: http.ServerResponse,
  ctx: ChainContext,
  address: string,
  lastSeen: string | undefined,
): Promise<void> {
  const script = addressScript(address);
  if (!script.ok) return text(res, 400, 'Invalid Bitcoin address');
  const all = (await ctx.txsPaying?.(Buffer.from(script.value.script).toString('hex'))) ?? [];
  const withStatus = all.map((tx) => ({ tx, status: statusJson(ctx, tx) }));
  const confirmed = withStatus.filter((t) => t.status.confirmed);
  if (lastSeen === undefined) {
    const mempool = withStatus.filter((t) => !t.status.confirmed);
    return json(
      res,
      [...mempool, ...confirmed.slice(0, PAGE)].map((t) => txJson(ctx, t.tx)),
    );
  }
  const at = confirmed.findIndex((t) => t.tx.txid === lastSeen);
  if (at === -1) return json(res, []);
  json(
    res,
    confirmed.slice(at + 1, at + 1 + PAGE).map((t) => txJson(ctx, t.tx)),
  );
}

function txJson(ctx: ChainContext, tx: ChainTx) {
  const parsed = parseTransaction(tx.hex);
  const addresses = new Map<string, string>();
  for (const address of tx.addresses) {
    const shown = explorerAddress(address);
    const script = shown ? addressScript(shown) : undefined;
    if (shown && script?.ok) addresses.set(Buffer.from(script.value.script).toString('hex'), shown);
  }
  return {
    txid: parsed.txid,
    version: parsed.version,
    locktime: parsed.locktime,
    vin: [{ is_coinbase: false }],
    vout: parsed.outputs.map((output) => vout(output, addresses)),
    status: statusJson(ctx, tx),
  };
}
