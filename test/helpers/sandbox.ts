import { request } from 'undici';
import { listen, type RunningServer } from '../../src/sandbox/listen.js';
import { createHandler } from '../../src/sandbox/server.js';
import { SandboxStore } from '../../src/sandbox/store.js';
import { qrPng } from '../../src/ui/qrpng.js';
import { tempDir } from './temp.js';

export const SANDBOX_TOKEN = 'sbx_test_token_0123456789';

export interface Clock {
  now: number;
}

/** A sandbox on a loopback port with a clock the test moves. */
export async function startTestSandbox(
  o: {
    dir?: string;
    autopaySeconds?: number | null;
    clock?: Clock;
    /** how long a request waits for a deposit another request claimed to be written (real time) */
    claimWaitMs?: number;
  } = {},
) {
  const clock = o.clock ?? { now: Date.parse('2026-11-22T10:00:00Z') };
  const dir = o.dir ?? tempDir('lbrl-sandbox-');
  const store = new SandboxStore(dir);
  const running: RunningServer = await listen(
    createHandler({
      store,
      token: SANDBOX_TOKEN,
      autopaySeconds: o.autopaySeconds ?? null,
      now: () => clock.now,
      qrPng: async (text: string) => (await qrPng(text)).toString('base64'),
      ...(o.claimWaitMs === undefined ? {} : { claimWaitMs: o.claimWaitMs }),
    }),
    '127.0.0.1',
    0,
  );
  const call = async (
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await request(`${running.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${SANDBOX_TOKEN}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      headers: res.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  };
  return { ...running, clock, dir, store, call };
}
