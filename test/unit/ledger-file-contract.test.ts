/** The ledger's contract on the file history (the PostgreSQL store's run: test/e2e/ledger-postgres.test.ts). */
import { FileLedger } from '../../src/store/ledger-file.js';
import { ledgerContract } from '../helpers/ledger-contract.js';
import { tempDir } from '../helpers/temp.js';

ledgerContract('file', async () => new FileLedger(tempDir(), () => {}));
