/**
 * Where a running display of a profile can be found: a small private file in the config
 * directory (`display/<profile>.json`, 0600 in a 0700 directory), holding its port and key. It
 * lets `deposit create --display` reach it, and a display started again keep its address and key,
 * so that a page left open on a tablet finds it again by itself.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ensurePrivateDir, lstatOwnFile } from '../store/files.js';

export interface DisplayRecord {
  pid: number;
  /** the address it listens on, and the one its URL names */
  host: string;
  urlHost: string;
  port: number;
  key: string;
  startedAt: string;
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
      !KEY.test(record.key)
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

/**
 * What a display answers on /show, in its `lbrl-display` header: derived from its key, so that
 * another program now on a dead display's port (which answers too) is not taken for it.
 */
export function displayProof(key: string): string {
  return createHash('sha256').update(`lbrl display\n${key}`).digest('base64url');
}

export type ShowOutcome = 'shown' | 'unknown' | 'unreachable';

/** Asks the display (on loopback) to show a deposit now. */
export function showOnDisplay(record: DisplayRecord, id: string, timeoutMs = 2000): Promise<ShowOutcome> {
  const body = JSON.stringify({ id });
  const host =
    record.host === '0.0.0.0' || record.host === '::' ? '127.0.0.1' : record.host.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const req = http.request(
      {
        host,
        port: record.port,
        method: 'POST',
        path: `/show?k=${encodeURIComponent(record.key)}`,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        if (res.headers['lbrl-display'] !== displayProof(record.key)) return resolve('unreachable');
        resolve(res.statusCode === 200 ? 'shown' : res.statusCode === 404 ? 'unknown' : 'unreachable');
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve('unreachable'));
    req.end(body);
  });
}
