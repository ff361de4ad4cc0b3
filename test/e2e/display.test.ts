/**
 * `lbrl display` as a process, without a browser: what it prints, what it answers to requests
 * with and without its key, what its page may carry, and `deposit create --display`.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBin, spawnBin, waitForOutput } from '../helpers/bin.js';
import { LQ } from '../helpers/fixtures.js';
import { decodeTerminal } from '../helpers/qr.js';
import { tempDir } from '../helpers/temp.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

const MASTER = 'ab5824f4477b4ebb00a132adfd8eb0b7935cf24f6ac151add5d1913db374ce92';

/** Starts a display; resolves once its QR code is out, with what it printed so far. */
async function startDisplay(args: string[], env: Record<string, string>, until = /\n\n[\s\S]+\n$/) {
  const child = spawnBin(['display', ...args], env);
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d.toString();
  });
  const stdout = await waitForOutput(child, until);
  await new Promise((r) => setTimeout(r, 50));
  return { child, stdout, url: stdout.split('\n')[0]!, stderr: () => stderr };
}

/** A raw request, for targets fetch would normalise. */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(request));
    let got = '';
    socket.on('data', (d) => {
      got += d.toString();
    });
    socket.on('end', () => resolve(got));
    socket.on('error', reject);
  });
}

describe('lbrl display', () => {
  it('prints its URL first and its QR code; loopback; 403 and no data without the key; only the exact routes', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    expect((await runBin(['config', 'set', 'shop-name', 'Bar <b>"&\'</b>'], env)).code).toBe(0);
    const d = await startDisplay([], env);
    expect(d.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?k=[A-Za-z0-9_-]{22}$/);
    const qr = d.stdout.split('\n').slice(2).join('\n');
    expect(decodeTerminal(qr, 'dark')).toBe(d.url);
    expect(d.stderr()).toContain('only this machine can open it');
    expect(d.stderr()).not.toContain('warning');
    const { origin, port } = new URL(d.url);
    const key = new URL(d.url).searchParams.get('k')!;

    // the key is private: the state file and its directory are the user's alone
    const state = path.join(env.LBRL_CONFIG_DIR, 'display', 'default.json');
    expect(fs.statSync(state).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(state)).mode & 0o777).toBe(0o700);

    const denied = [
      '/',
      '/events',
      `/?k=${key.slice(0, -1)}`,
      `/?k=${key.toUpperCase()}`,
      `/?k=${key}x`,
      `/?k=${key}&k=${key}`,
      '/?K=' + key,
      `/nothing?k=`,
      '/../../etc/passwd',
    ];
    for (const target of denied) {
      const r = await fetch(`${origin}${target}`);
      const body = await r.text();
      expect({ target, status: r.status }).toEqual({ target, status: 403 });
      expect(body).not.toMatch(/Bar|R\$|<html/);
    }
    // DNS rebinding: a page of another site whose name resolves here sends that name; it reads nothing
    for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1.evil.example:${port}`, '']) {
      for (const target of [`/?k=${key}`, `/events?k=${key}`]) {
        const answer = await raw(
          Number(port),
          `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
        );
        expect({ host, target, status: answer.slice(0, 12) }).toEqual({
          host,
          target,
          status: 'HTTP/1.1 403',
        });
        expect(answer).not.toMatch(/Bar|R\$|<html|event:/);
      }
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      const answer = await raw(
        Number(port),
        `GET /?k=${key} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      expect({ host, status: answer.slice(0, 12) }).toEqual({ host, status: 'HTTP/1.1 200' });
    }
    const post = await fetch(`${origin}/show`, { method: 'POST', body: '{"id":"x"}' });
    expect(post.status).toBe(403);

    for (const target of [`/index.html?k=${key}`, `/events/?k=${key}`, `/%2e%2e/?k=${key}`, `//?k=${key}`]) {
      const answer = await raw(
        Number(port),
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      );
      expect({ target, status: answer.slice(0, 12) }).toEqual({ target, status: 'HTTP/1.1 404' });
    }
    expect((await fetch(`${origin}/?k=${key}`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${origin}/show?k=${key}`)).status).toBe(405);
    const malformed = await raw(Number(port), `GET /a b?k=${key} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
    const huge = await raw(
      Number(port),
      `GET /?k=${key} HTTP/1.1\r\nHost: 127.0.0.1\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);

    // the page: a strict policy with a fresh nonce each time; everything put in it escaped
    const a = await fetch(`${origin}/?k=${key}`);
    const b = await fetch(`${origin}/?k=${key}`);
    expect(a.status).toBe(200);
    const csp = a.headers.get('content-security-policy')!;
    expect(csp).toMatch(/^default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]{24}'; style-src 'nonce-/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    expect(b.headers.get('content-security-policy')).not.toBe(csp);
    expect(a.headers.get('cache-control')).toBe('no-store');
    expect(a.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await a.text();
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).toContain('<title>Bar &lt;b&gt;&quot;&amp;&#39;&lt;/b&gt;</title>');
    expect(html).not.toContain('<b>');
    expect(html).not.toMatch(/https?:\/\/|src=|href=|@import|url\(/);
    expect(html.match(/<script/g)).toHaveLength(3);
  });

  it('--host 0.0.0.0 warns that the shop network can reach it', async () => {
    const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
    const d = await startDisplay(['--host', '0.0.0.0', '--lang', 'en', '-q'], env, /\n/);
    expect(d.url).toMatch(/^http:\/\/[\d.]+:\d+\/\?k=/);
    expect(d.stderr()).toContain(
      'warning: the display listens on 0.0.0.0: anyone on this network with its URL',
    );
    const local = new URL(d.url);
    const r = await fetch(`http://127.0.0.1:${local.port}/?k=${local.searchParams.get('k')}`);
    expect(await r.text()).toContain('<html lang="en">');
  });

  const strangers: Array<[string, http.RequestListener]> = [
    [
      'any web server (it answers every request, 404 or 200)',
      (req, res) => {
        res.writeHead(req.url?.startsWith('/show') ? 404 : 200, { 'content-type': 'text/plain' });
        res.end('no such deposit in this profile\n');
      },
    ],
    [
      'a program that echoes each request back, with a proof made from whatever key it is sent',
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const key = new URL(req.url ?? '/', 'http://x').searchParams.get('k') ?? '';
          const body = Buffer.concat(chunks).toString();
          const challenge = /"challenge":"([^"]+)"/.exec(body)?.[1] ?? '';
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(req.headers))
            if (typeof value === 'string' && !/^(content-length|connection|host)$/.test(name))
              headers[name] = value;
          headers['lbrl-display'] = createHash('sha256')
            .update(`lbrl display\n${key || challenge}`)
            .digest('base64url');
          res.writeHead(200, headers);
          res.end(body);
        });
      },
    ],
  ];

  it.each(strangers)(
    'a dead display whose port another program took is not taken for it: create --display sends nothing (%s)',
    async (_who, stranger) => {
      const env = { HOME: tempDir(), LBRL_CONFIG_DIR: tempDir() };
      const received: string[] = [];
      const other = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => received.push(`${req.url} ${Buffer.concat(chunks).toString()}`));
        stranger(req, res);
      });
      await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
      try {
        const port = (other.address() as net.AddressInfo).port;
        const dir = path.join(env.LBRL_CONFIG_DIR, 'display');
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        // the record a display killed with -9 leaves, its pid now another live process's
        const record = {
          pid: process.pid,
          host: '127.0.0.1',
          urlHost: '127.0.0.1',
          port,
          key: 'a'.repeat(22),
          startedAt: new Date().toISOString(),
          secret: 'b'.repeat(43),
        };
        fs.writeFileSync(path.join(dir, 'default.json'), JSON.stringify(record), { mode: 0o600 });
        const created = await runBin(
          ['deposit', 'create', '--amount', '3', '--to', LQ, '--yes', '--display'],
          env,
        );
        expect(created.code).toBe(2);
        expect(created.stderr).toContain(
          'no customer display is running for profile default (nothing was sent)',
        );
        expect(created.stderr).toContain('lbrl display');
        expect((await runBin(['deposit', 'list', '--json'], env)).stdout.trim()).toBe('[]');
        // and a display started now is not refused as "already running"
        const d = await startDisplay(['-q'], env, /\n/);
        expect(d.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?k=/);
        expect(d.stderr()).not.toContain('already running');
        // what the stranger got: challenges, never the key
        expect(received.length).toBeGreaterThan(0);
        for (const request of received) {
          expect(request).not.toContain(record.key);
          expect(request).toMatch(/^\/hello \{"challenge":"[A-Za-z0-9_-]+"\}$/);
        }
      } finally {
        other.close();
      }
    },
  );

  it('never carries the token or a blinding key; create --display shows the charge; one display per profile', async () => {
    const serveDir = tempDir();
    expect(
      (
        await runBin(['config', 'set', 'sandbox-autopay', 'off'], {
          HOME: tempDir(),
          LBRL_CONFIG_DIR: serveDir,
        })
      ).code,
    ).toBe(0);
    const serve = spawnBin(['sandbox', 'serve'], { HOME: tempDir(), LBRL_CONFIG_DIR: serveDir });
    children.push(serve);
    const out = await waitForOutput(serve, /LBRL_TOKEN=\S+\n/);
    const env = {
      HOME: tempDir(),
      LBRL_CONFIG_DIR: tempDir(),
      LBRL_BASE_URL: /LBRL_BASE_URL=(\S+)/.exec(out)![1]!,
      LBRL_TOKEN: /LBRL_TOKEN=(\S+)/.exec(out)![1]!,
    };
    expect((await runBin(['config', 'set-blinding-key'], env, `${MASTER}\n`)).code).toBe(0);

    const noDisplay = await runBin(
      ['deposit', 'create', '--amount', '3', '--to', LQ, '--yes', '--display'],
      env,
    );
    expect(noDisplay.code).toBe(2);
    expect(noDisplay.stderr).toContain(
      'no customer display is running for profile default (nothing was sent)',
    );
    expect((await runBin(['deposit', 'list', '--json'], env)).stdout.trim()).toBe('[]');

    const d = await startDisplay([], env);
    const second = await runBin(['display'], env);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(
      /a display of profile default is already running \(process \d+, port \d+\)/,
    );

    const created = await runBin(
      ['deposit', 'create', '--amount', '3', '--to', LQ, '--yes', '--display', '--json'],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const deposit = JSON.parse(created.stdout) as { id: string; qrCodeText: string };

    const events = await fetch(`${d.url.replace('/?k=', '/events?k=')}`);
    const reader = events.body!.getReader();
    let stream = '';
    while (!stream.includes('"phase":"waiting"'))
      stream += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const page = await (await fetch(d.url)).text();
    for (const text of [stream, page]) {
      expect(text).not.toContain(env.LBRL_TOKEN);
      expect(text).not.toContain(MASTER);
      expect(text).not.toContain(deposit.id);
    }
    expect(stream).toContain(JSON.stringify(deposit.qrCodeText));
    expect(stream).toContain('"amount":"R$ 3,00"');

    const human = await runBin(['deposit', 'create', '--amount', '4', '--to', LQ, '--yes', '--display'], env);
    expect(human.code).toBe(0);
    expect(human.stderr).toMatch(/^shown on the customer display \(port \d+\)$/m);
  });
});
