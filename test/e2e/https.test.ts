import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/bin.js';
import { startSelfSigned } from '../helpers/faulty.js';
import { getAnswer, ID, TOKEN } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/temp.js';

const CERT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/tls/cert.pem');
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open) await s.close();
});

// The bundle leaves undici's HTTP/2 client out (the build's --alias of node:http2): lbrl speaks
// HTTP/1.1 over TLS, and this is the built program doing so, as a user runs it.
describe('the built lbrl over HTTPS', () => {
  const env = (url: string) => ({
    HOME: tempDir(),
    LBRL_CONFIG_DIR: tempDir(),
    LBRL_BASE_URL: url,
    LBRL_TOKEN: TOKEN,
  });

  it('gets a deposit from a server whose certificate the system trusts', async () => {
    const server = await startSelfSigned(getAnswer());
    open.push(server);
    const r = await runBin(['deposit', 'get', ID, '--json'], {
      ...env(server.url),
      NODE_EXTRA_CA_CERTS: CERT,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(getAnswer());
    expect(server.hits).toBe(1);
  });

  it('refuses one it does not trust: exit 6, nothing sent', async () => {
    const server = await startSelfSigned(getAnswer());
    open.push(server);
    const r = await runBin(['deposit', 'get', ID, '--json'], env(server.url));
    expect(r.code).toBe(6);
    expect(JSON.parse(r.stderr).error.message).toMatch(
      /TLS certificate of 127\.0\.0\.1:\d+ could not be verified/,
    );
    expect(server.hits).toBe(0);
  });
});
