/**
 * Where a running display of a profile can be found: a small private file in the config
 * directory (`display/<profile>.json`, 0600 in a 0700 directory), holding its port and key. It
 * lets `deposit create --display` reach it, and a display started again keep its address and key,
 * so that a page left open on a tablet finds it again by itself.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { isIP } from 'node:net';
import path from 'node:path';
import { ensurePrivateDir, lstatOwnFile, openOwnFile } from '../store/files.js';

export interface DisplayRecord {
  pid: number;
  /** the address it listens on, and the one its URL names */
  host: string;
  urlHost: string;
  port: number;
  key: string;
  startedAt: string;
  /**
   * A secret of this run of the display, never sent over the network: the display proves it is
   * itself by an HMAC of a fresh challenge with it (absent in records of older displays).
   */
  secret?: string;
  /** the service whose charges it follows (the history's target key) */
  target?: string;
}

export function displayFile(configDir: string, profile: string): string {
  return path.join(configDir, 'display', `${profile}.json`);
}

const KEY = /^[A-Za-z0-9_-]{16,64}$/;

/** The record, when there is one and it is whole; anything else is no record. */
export function readDisplayRecord(file: string): DisplayRecord | undefined {
  try {
    if (!lstatOwnFile(file, 'display state')) return undefined;
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<DisplayRecord>;
    if (
      typeof record.pid !== 'number' ||
      typeof record.host !== 'string' ||
      typeof record.urlHost !== 'string' ||
      !/^[0-9A-Za-z.:[\]-]{1,255}$/.test(record.urlHost) ||
      typeof record.port !== 'number' ||
      !Number.isInteger(record.port) ||
      record.port < 1 ||
      record.port > 65535 ||
      typeof record.key !== 'string' ||
      !KEY.test(record.key) ||
      (record.secret !== undefined && (typeof record.secret !== 'string' || !KEY.test(record.secret))) ||
      (record.target !== undefined && typeof record.target !== 'string')
    )
      return undefined;
    return record as DisplayRecord;
  } catch {
    return undefined;
  }
}

/** Written whole (a temporary file, then a rename), private to the user. */
export function writeDisplayRecord(file: string, record: DisplayRecord): void {
  ensurePrivateDir(path.dirname(file));
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

/** Whether a process of that id runs (a signal 0 is sent: nothing happens to it). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The page's address (with its key). */
export function displayUrl(record: Pick<DisplayRecord, 'urlHost' | 'port' | 'key'>): string {
  const host =
    record.urlHost.includes(':') && !record.urlHost.startsWith('[') ? `[${record.urlHost}]` : record.urlHost;
  return `http://${host}:${record.port}/?k=${record.key}`;
}

/** A new secret for a display's proof of identity: 256 bits, URL-safe. */
export function newDisplaySecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The display's answer to a challenge: an HMAC of it (and the port it answers on) with its secret.
 * Only the display and the user's own files know the secret: a program that took a dead display's
 * port sees the challenge and nothing it can answer it with.
 */
export function displayProof(secret: string, challenge: string, port: number): string {
  return createHmac('sha256', secret).update(`lbrl display\n${port}\n${challenge}`).digest('base64url');
}

/** Whether a host is an unspecified address (every interface): 0.0.0.0, ::, ::0, 0, 0:0:0:0:0:0:0:0. */
export function isUnspecifiedHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  // the forms the resolver reads as 0.0.0.0 too: 0, 0.0, 00.0.0.0, 0x0
  if (/^(0x)?0+(\.(0x)?0+){0,3}$/i.test(bare)) return true;
  if (isIP(bare) === 4) return bare.split('.').every((part) => Number(part) === 0);
  if (isIP(bare) === 6) return /^[0:]+$/.test(bare);
  return false;
}

/** Where this machine reaches the display: loopback for one that listens on every interface. */
function reachHost(record: Pick<DisplayRecord, 'host'>): string {
  if (isUnspecifiedHost(record.host)) return '127.0.0.1';
  return record.host.replace(/^\[|\]$/g, '');
}

export type ShowOutcome = 'shown' | 'unknown' | 'unreachable';

function post(
  record: DisplayRecord,
  target: string,
  body: string,
  timeoutMs: number,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string } | undefined> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: reachHost(record),
        port: record.port,
        method: 'POST',
        path: target,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: timeoutMs,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= 4096) chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', () => resolve(undefined));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end(body);
  });
}

/**
 * Whether the program on the record's port is this display: it is sent a fresh challenge and
 * nothing else (no key, no deposit), and must answer with the HMAC of it by the record's secret.
 */
export async function displayAnswers(record: DisplayRecord, timeoutMs = 2000): Promise<boolean> {
  if (record.secret === undefined) return false;
  const challenge = randomBytes(18).toString('base64url');
  const answer = await post(record, '/hello', JSON.stringify({ challenge }), timeoutMs);
  const proof = answer?.headers['lbrl-display'];
  if (answer?.status !== 200 || typeof proof !== 'string') return false;
  const expected = Buffer.from(displayProof(record.secret, challenge, record.port));
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Asks the display (on loopback) to show a deposit now: only once it proved it is the display
 * does it get the key and the deposit. A deposit of another service than the display's names it.
 */
export async function showOnDisplay(
  record: DisplayRecord,
  id: string,
  target?: string,
  timeoutMs = 2000,
): Promise<ShowOutcome> {
  if (!(await displayAnswers(record, timeoutMs))) return 'unreachable';
  const body = JSON.stringify(target === undefined ? { id } : { id, target });
  const answer = await post(record, `/show?k=${encodeURIComponent(record.key)}`, body, timeoutMs);
  return answer?.status === 200 ? 'shown' : answer?.status === 404 ? 'unknown' : 'unreachable';
}

/** Where a profile's withdrawn charges are listed: one JSON line each, appended. */
export function withdrawnFile(configDir: string, profile: string): string {
  return path.join(configDir, 'display', `${profile}.withdrawn`);
}

/** Charges no display may offer: by id, and every one created before a `display clear`. */
export interface Withdrawn {
  ids: Set<string>;
  /** `display clear`: every charge created at or before this time (ms) */
  before: number | undefined;
  /**
   * The process of a `create --watch` that follows each charge: one that is gone while its charge
   * still waits (a closed terminal, kill -9) had no moment to withdraw it, so its end withdraws it.
   */
  followers: Map<string, number>;
}

/**
 * Withdraws a charge from the customer's screen (`{"id"}`), or everything created until now
 * (`{"before"}`), for the running display and any started later: one line appended.
 */
export function withdrawFromDisplay(
  configDir: string,
  profile: string,
  what: { id: string } | { before: string } | { id: string; follower: number },
  warn: (line: string) => void = () => {},
): void {
  const file = withdrawnFile(configDir, profile);
  ensurePrivateDir(path.dirname(file));
  const opened = openOwnFile(file, 'append', 'display state', warn)!;
  try {
    fs.writeSync(opened.fd, `${JSON.stringify({ v: 1, ...what })}\n`);
  } finally {
    fs.closeSync(opened.fd);
  }
}

/** The withdrawn charges as the file lists them; a line that is not one of lbrl's is skipped. */
export function readWithdrawn(file: string, warn: (line: string) => void = () => {}): Withdrawn {
  const withdrawn: Withdrawn = { ids: new Set(), before: undefined, followers: new Map() };
  const opened = openOwnFile(file, 'read', 'display state', warn);
  if (!opened) return withdrawn;
  let text: string;
  try {
    text = fs.readFileSync(opened.fd, 'utf8');
  } finally {
    fs.closeSync(opened.fd);
  }
  for (const line of text.split('\n')) {
    try {
      const entry = JSON.parse(line) as { id?: unknown; before?: unknown; follower?: unknown };
      const follower = entry.follower;
      if (typeof entry.id === 'string' && Number.isInteger(follower) && (follower as number) > 0)
        withdrawn.followers.set(entry.id.toLowerCase(), follower as number);
      else if (typeof entry.id === 'string') withdrawn.ids.add(entry.id.toLowerCase());
      const before = typeof entry.before === 'string' ? Date.parse(entry.before) : Number.NaN;
      if (Number.isFinite(before)) withdrawn.before = Math.max(withdrawn.before ?? before, before);
    } catch {
      // a torn or foreign line withdraws nothing
    }
  }
  return withdrawn;
}
