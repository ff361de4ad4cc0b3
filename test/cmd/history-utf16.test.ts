/**
 * A history saved as UTF-16 (Windows PowerShell's `>`: a byte order mark FF FE, then two bytes a
 * character) is neither read as damage nor written into: every command that reads or records the
 * ledger refuses it with one line naming the file and how to convert it (exit 1), before anything
 * is sent, and leaves its bytes as they were. A UTF-8 byte order mark (PowerShell 5's
 * `Set-Content -Encoding utf8`, the conversion the message gives) is read as any UTF-8 history.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { liveEnv } from '../helpers/env.js';
import { EX } from '../helpers/fixtures.js';
import { noNetwork } from '../helpers/no-network.js';
import { tempDir } from '../helpers/temp.js';

const ID = '00000000-0000-4000-8000-000000000001';
const created = (n: number) =>
  JSON.stringify({
    v: 1,
    type: 'created',
    id: `00000000-0000-4000-8000-00000000000${n}`,
    profile: 'default',
    baseUrl: 'sandbox',
    at: `2026-11-23T12:0${n}:00.000Z`,
    amountInCents: 1000 + n,
    destinationAddress: EX,
    splitAddress: null,
    splitFee: null,
    status: 'WAITING_PAYMENT',
  });
const TEXT = `${created(1)}\r\n${created(2)}\r\n`;

function bigEndian(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf16le');
  for (let i = 0; i < bytes.length; i += 2) [bytes[i], bytes[i + 1]] = [bytes[i + 1]!, bytes[i]!];
  return bytes;
}

const FORMS: Array<[string, Buffer, string, string]> = [
  [
    'UTF-16 LE with its byte order mark (PowerShell 5 >)',
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, 'utf16le')]),
    'it begins with the byte order mark FF FE',
    'UTF-16',
  ],
  [
    'UTF-16 BE with its byte order mark',
    Buffer.concat([Buffer.from([0xfe, 0xff]), bigEndian(TEXT)]),
    'it begins with the byte order mark FE FF',
    'UTF-16',
  ],
  [
    'UTF-16 LE without one',
    Buffer.from(TEXT, 'utf16le'),
    'little-endian, with no byte order mark',
    'UTF-16LE',
  ],
  ['UTF-16 BE without one', bigEndian(TEXT), 'big-endian, with no byte order mark', 'UTF-16BE'],
];

const COMMANDS = [
  ['deposit', 'list'],
  ['deposit', 'list', '--json'],
  ['deposit', 'report'],
  ['deposit', 'export', '--format', 'csv'],
  ['deposit', 'get', '--ref', 'mesa 1'],
  ['deposit', 'create', '--amount', '10', '--to', EX, '--yes'],
  ['deposit', 'watch', '--pending'],
  ['ledger', 'status'],
];

describe('a history saved as UTF-16', () => {
  it.each(FORMS)(
    '%s: every command refuses it in one line, writes nothing, sends nothing',
    async (_name, bytes, said, iconv) => {
      const dir = tempDir();
      const file = path.join(dir, 'history.ndjson');
      fs.writeFileSync(file, bytes, { mode: 0o600 });
      for (const args of COMMANDS) {
        const r = await runCli(args, { env: { LBRL_CONFIG_DIR: dir, HOME: dir } });
        const shown = args.join(' ');
        const message = `the history ${file} is UTF-16 text (${said}), not the UTF-8 lbrl reads and writes: nothing was read from it or written to it. Convert it to UTF-8, e.g. iconv -f ${iconv} -t UTF-8 ${file} > history.utf8 && mv history.utf8 ${file} (PowerShell: (Get-Content ${file}) | Set-Content -Encoding utf8 ${file})`;
        if (args.includes('--json'))
          expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!), shown).toEqual({
            error: { type: 'config', message, exitCode: 1 },
          });
        else
          expect(
            r.stderr.split('\n').filter((line) => line.startsWith('error:')),
            shown,
          ).toEqual([`error: ${message}`]);
        expect(r.stderr, shown).not.toContain('damaged');
        expect(r.stderr, shown).not.toMatch(/\n\s+at /);
        expect(r.code, shown).toBe(1);
        expect(r.stdout, shown).toBe('');
        expect(fs.readFileSync(file).equals(bytes), shown).toBe(true);
      }
      // the create made no charge in the embedded sandbox: nothing it keeps names an amount
      const kept = (at: string): string[] =>
        fs.statSync(at).isDirectory()
          ? fs.readdirSync(at).flatMap((name) => kept(path.join(at, name)))
          : [at];
      const sandbox = path.join(dir, 'sandbox');
      for (const stored of fs.existsSync(sandbox) ? kept(sandbox) : [])
        expect(fs.readFileSync(stored, 'utf8'), stored).not.toContain('amountInCents');
    },
  );

  // the commands that ask the service and then record what it answered (a get's settlement, a
  // watch's statuses, a verification, a refresh, listen's events, a trigger's story): the history
  // is checked before the first request, as create checks it, never a "not found" that hides it
  const ASKING = [
    ['deposit', 'get', ID],
    ['deposit', 'get', ID, '--json'],
    ['deposit', 'get', ID, '--quiet'],
    ['deposit', 'watch', ID],
    ['deposit', 'watch', ID, '--json'],
    ['deposit', 'verify', ID],
    ['deposit', 'list', '--refresh'],
    ['listen', '--forward-to', 'http://127.0.0.1:9/hook'],
    ['display', '--port', '0'],
    ['sandbox', 'trigger', 'paid'],
  ];
  it.each(FORMS)(
    '%s: a command that asks the service first refuses it before any request',
    async (_name, bytes, said, iconv) => {
      const dir = tempDir();
      const file = path.join(dir, 'history.ndjson');
      fs.writeFileSync(file, bytes, { mode: 0o600 });
      const message = `the history ${file} is UTF-16 text (${said}), not the UTF-8 lbrl reads and writes: nothing was read from it or written to it. Convert it to UTF-8, e.g. iconv -f ${iconv} -t UTF-8 ${file} > history.utf8 && mv history.utf8 ${file} (PowerShell: (Get-Content ${file}) | Set-Content -Encoding utf8 ${file})`;
      for (const args of ASKING) {
        const net = noNetwork();
        // the trigger acts on the embedded sandbox, the others on a live service
        const live = args[0] === 'sandbox' ? {} : liveEnv('https://pay.example.com');
        const env = { ...live, LBRL_CONFIG_DIR: dir, HOME: dir };
        const r = await runCli(args, { env, client: net.client });
        const shown = args.join(' ');
        if (args.includes('--json'))
          expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!), shown).toEqual({
            error: { type: 'config', message, exitCode: 1 },
          });
        else expect(r.stderr, shown).toBe(`error: ${message}\n`);
        expect(r.code, shown).toBe(1);
        expect(r.stdout, shown).toBe('');
        expect(net.requests(), shown).toEqual([]);
        expect(fs.readFileSync(file).equals(bytes), shown).toBe(true);
      }
    },
  );

  it('converted as the message says (UTF-8 with a byte order mark, as PowerShell 5 writes it): read whole', async () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'history.ndjson'),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT)]),
      {
        mode: 0o600,
      },
    );
    const r = await runCli(['deposit', 'list', '--json'], { env: { LBRL_CONFIG_DIR: dir, HOME: dir } });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('damaged');
    expect(JSON.parse(r.stdout).map((d: { id: string }) => d.id)).toEqual([
      '00000000-0000-4000-8000-000000000002',
      ID,
    ]);
  });
});
