/**
 * What a failure of the PostgreSQL ledger means to a user: the server's answer (an SQLSTATE) is
 * told apart from the connection's own failure (a socket's code), whatever its length; a lost
 * connection is exit 6, never the server "answering with an error".
 */
import { describe, expect, it } from 'vitest';
import { ledgerFault } from '../../src/store/ledger-postgres.js';

const SHOWN = 'postgres://lbrl:[redacted]@127.0.0.1:5432/shop';
const fault = (code: string, message = `${code} happened`) =>
  ledgerFault(Object.assign(new Error(message), { code }), SHOWN, true);

describe('ledgerFault', () => {
  it.each([
    ['EPIPE', 'connection closed'],
    ['ECONNRESET', 'connection reset'],
    ['EBADF', 'EBADF happened'],
    ['EPERM', 'EPERM happened'],
    ['ECONNABORTED', 'ECONNABORTED happened'],
    ['57P01', 'terminating connection due to administrator command'],
    ['08006', 'connection failure'],
  ])('%s while connected: the connection was lost, exit 6', (code, reason) => {
    const error = fault(code, code.startsWith('E') ? `write ${code}` : reason);
    expect(error.exitCode).toBe(6);
    expect(error.message).toMatch(
      /^the connection to the ledger at postgres:\/\/lbrl:\[redacted\]@127\.0\.0\.1:5432\/shop was lost \(.+\); what this command was writing was not recorded$/,
    );
    if (code === 'EPIPE' || code === 'ECONNRESET') expect(error.message).toContain(`(${reason})`);
  });

  it.each([
    ['42P01', 'relation "x" does not exist'],
    ['23505', 'duplicate key value violates unique constraint'],
    ['XX000', 'internal error'],
    ['HV000', 'fdw error'],
    ['F0000', 'config file error'],
  ])('%s: the server answered with an error', (code, message) => {
    const error = fault(code, message);
    expect(error.message).toBe(`the ledger at ${SHOWN} answered with an error: ${message} (${code})`);
    expect(error.exitCode).not.toBe(6);
  });
});
