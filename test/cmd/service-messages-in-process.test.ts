/**
 * A URL that is not the Deposit service (its 404 without the service's JSON error, an HTML page,
 * a proxy's error page), as `deposit get` and `deposit create` say it: the commands on narrow
 * options (runGet, runCreate) with the real DepositClient, whose answers come from a dispatcher
 * without a socket (status, content type and body as a server writes them), so the client's own
 * parse() and classify() decide. What a user sees is asserted: stdout, stderr as the one handler
 * prints the error (the printer's error line and hint), the exit code. The failures of reaching a
 * service (TLS, refused connections) stay on sockets: test/cmd/service-messages.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { CreateFlags } from '../../src/commands/deposit-create.js';
import { runCreate } from '../../src/commands/deposit-create.js';
import { runGet } from '../../src/commands/deposit-get.js';
import { jsonReply, type SeenCall, type WrittenReply } from '../helpers/answering-dispatcher.js';
import { ID, LQ } from '../helpers/fixtures.js';
import { createOptions, followInProcess } from '../helpers/follow-in-process.js';
import { answeredClient, plainGetOptions } from '../helpers/get-in-process.js';
import { plainTerminal, seenRun, steppingClock } from '../helpers/plain-terminal.js';
import type { ScriptedDepositApi } from '../helpers/scripted-deposit-api.js';
import { type Shown, shown } from '../helpers/shown.js';

const SERVICE = 'https://pay.example.com';

/** What a user sees, and the requests the client sent. */
interface Seen extends Shown {
  calls: SeenCall[];
}

async function get(reply: (call: SeenCall) => WrittenReply): Promise<Seen> {
  const { client, calls } = answeredClient(reply, SERVICE);
  const term = plainTerminal();
  const seen = await seenRun(term, () => runGet(plainGetOptions(term, client)));
  return { ...shown(term, seen), calls };
}

async function create(flags: Partial<CreateFlags>, reply: (call: SeenCall) => WrittenReply): Promise<Seen> {
  const { client, calls } = answeredClient(reply, SERVICE);
  const clock = steppingClock();
  const { term, deps } = followInProcess({ clock, api: client as unknown as ScriptedDepositApi });
  const seen = await seenRun(term, () => runCreate(createOptions(deps, flags, client, SERVICE)));
  return { ...shown(term, seen), calls };
}

describe('a URL that is not the Deposit service', () => {
  it('a 404 that is not the service JSON error is not "deposit not found"', async () => {
    const bodies: Array<[string, string, string]> = [
      ['text/plain', 'Not Found', "without the service's JSON error (Not Found)"],
      ['text/html', '<!DOCTYPE html><html><body><h1>404</h1></body></html>', 'with an HTML page'],
      [
        'application/json',
        '{"message":"no such endpoint: GET /v1/api/deposit/v1/api/deposit/x"}',
        'no such endpoint',
      ],
      ['application/json', '{"timestamp":1,"status":404}', "without the service's JSON error"],
      ['text/plain', '', "without the service's JSON error"],
    ];
    for (const [type, body, said] of bodies) {
      const r = await get(() => ({ status: 404, headers: { 'content-type': type }, body }));
      expect(r.code, body).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(said);
      expect(r.stderr).toContain("the URL is not the Deposit service's endpoint (is the base URL right?)");
      expect(r.stderr).not.toContain('not found');
      // asked once, at the deposit's path on the base URL
      expect(r.calls.map((c) => `${c.method} ${c.url}`)).toEqual([`GET ${SERVICE}/v1/api/deposit/${ID}`]);
    }
  });

  it("the service's own 404 is still: deposit not found, exit 4", async () => {
    const r = await get(() => jsonReply(404, { message: `deposit ${ID} not found` }));
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(`error: deposit ${ID} not found`);
  });

  it('an HTML page answered with 200 (a web site at the base URL)', async () => {
    const page = (): WrittenReply => ({
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: '<!doctype html><title>Loja</title>',
    });
    const r = await get(page);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'answered 200 with content-type "text/html; charset=utf-8", not JSON: an HTML page',
    );
    expect(r.stderr).toContain('is the base URL right?');
    // a create: the HTML is named, and that a deposit may exist all the same
    const c = await create({ amount: '10', to: LQ, yes: true }, page);
    expect(c.code).toBe(1);
    expect(c.stdout).toBe('');
    expect(c.stderr).toContain('not JSON: an HTML page');
    expect(c.stderr).toContain('a deposit may exist');
    // the create was sent once, and reached the service: it is never sent again
    expect(c.calls.map((call) => `${call.method} ${call.url}`)).toEqual([`POST ${SERVICE}/v1/api/deposit`]);
  });

  it('a proxy error page on 502 says HTML page, not its markup', async () => {
    const r = await get(() => ({
      status: 502,
      headers: { 'content-type': 'text/html' },
      body: '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>',
    }));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe('error: the service answered 502: an HTML page, not the service');
  });
});
