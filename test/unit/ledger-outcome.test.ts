/**
 * What a command ends with when its connection to the ledger is lost: the line's tail says what
 * it had done, as store/ledger-postgres-outcome.ts keeps it (the end-to-end proof, with the line
 * cut after each message, is test/e2e/ledger-postgres-cuts.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { ledgerFault } from '../../src/store/ledger-postgres.js';
import { LedgerOutcome } from '../../src/store/ledger-postgres-outcome.js';

const SHOWN = 'postgres://lbrl:[redacted]@127.0.0.1:5432/shop';
const lost = (outcome: LedgerOutcome) =>
  ledgerFault(Object.assign(new Error('Connection terminated unexpectedly'), {}), SHOWN, true, outcome.said())
    .message;
const HEAD = `the connection to the ledger at ${SHOWN} was lost (Connection terminated unexpectedly); `;

describe('the line a lost connection ends with', () => {
  it('a reader: nothing was changed', () => {
    expect(lost(new LedgerOutcome())).toBe(`${HEAD}nothing was changed`);
  });

  it('a writer in its transaction: not recorded; after one committed, that one was kept', () => {
    const outcome = new LedgerOutcome();
    outcome.writing();
    expect(lost(outcome)).toBe(`${HEAD}what this command was writing was not recorded`);
    outcome.committing();
    outcome.ended(true);
    expect(lost(outcome)).toBe(
      `${HEAD}what this command recorded before was kept, and nothing since was changed`,
    );
    outcome.writing();
    expect(lost(outcome)).toBe(
      `${HEAD}what this command was writing was not recorded (what this command recorded before was kept)`,
    );
  });

  it('lost as the commit was sent: never said to be recorded, nor not', () => {
    const outcome = new LedgerOutcome();
    outcome.writing();
    outcome.committing();
    expect(lost(outcome)).toBe(
      `${HEAD}whether the ledger took what this command was writing is not known: the connection was lost as it was committed`,
    );
  });

  it("the schema brought forward: a reader that lost it mid-way changed nothing, and the migration counts as none of the command's records", () => {
    const outcome = new LedgerOutcome();
    outcome.writing(true);
    expect(lost(outcome)).toMatch(/: nothing was changed \(the next command does it\)$/);
    outcome.committing();
    expect(lost(outcome)).toMatch(/whether the ledger's schema was brought forward is not known/);
    outcome.ended(true);
    expect(lost(outcome)).toBe(`${HEAD}nothing was changed`);
  });
});
