/** The sandbox started by the CLI itself, in-process on a loopback port. */

import { listen } from './listen.js';
import { createHandler } from './server.js';
import { newSandboxToken, SandboxStore } from './store.js';

export interface SandboxStart {
  dir: string;
  /** the profile's sandbox-autopay: seconds, or "off" */
  autopay: string;
  now: () => number;
  host?: string;
  port?: number;
  token?: string;
  /** one line per request (method, path, status, time in ms); the standing server's log */
  log?: (line: string) => void;
  /**
   * Draws a QR code as a PNG (the caller's: drawing belongs to the program's output, not to the
   * sandbox, which only serves the picture in its create answers).
   */
  drawPng: (text: string) => Promise<Buffer>;
}

function autopaySeconds(setting: string): number | null {
  return setting === 'off' ? null : Number(setting);
}

export async function startSandbox(start: SandboxStart, store = new SandboxStore(start.dir)) {
  const token = start.token ?? newSandboxToken();
  const running = await listen(
    createHandler({
      store,
      token,
      autopaySeconds: autopaySeconds(start.autopay),
      now: start.now,
      qrPng: async (text) => (await start.drawPng(text)).toString('base64'),
      ...(start.log ? { log: start.log } : {}),
    }),
    start.host ?? '127.0.0.1',
    start.port ?? 0,
    start.log ? { log: start.log } : {},
  );
  return { ...running, token, store };
}
