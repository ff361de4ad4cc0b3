/**
 * What a command had done to the ledger when its connection was lost, for the one line it ends
 * with: a reader changed nothing; a writer's transaction under way was rolled back by the server,
 * what it committed before stays; a transaction lost as its commit was sent may or may not have
 * been taken (the server may have committed it before the line went dead), and is never said to
 * be either.
 */
export type LedgerActivity = 'reading' | 'writing' | 'committing';

export class LedgerOutcome {
  private activity: LedgerActivity = 'reading';
  /** transactions this connection committed */
  private committed = 0;
  /** the transaction under way brings the schema forward (not the command's own records) */
  private migrating = false;

  /** A transaction begins (`begin` about to be sent); `migration` when it brings the schema forward. */
  writing(migration = false): void {
    this.activity = 'writing';
    this.migrating = migration;
  }

  /** Its `commit` is about to be sent. */
  committing(): void {
    this.activity = 'committing';
  }

  /** The commit was answered (or the transaction rolled back: `taken` false); reads follow. */
  ended(taken: boolean): void {
    if (taken && !this.migrating) this.committed++;
    this.activity = 'reading';
    this.migrating = false;
  }

  /** What the command had done when the connection was lost, after the line's "; ". */
  said(): string {
    const before = this.committed > 0 ? 'what this command recorded before was kept' : '';
    if (this.migrating && this.activity === 'committing')
      return "whether the ledger's schema was brought forward is not known: the connection was lost as it was committed (the next command finishes it)";
    if (this.migrating && this.activity === 'writing')
      return "the ledger's schema was being brought forward: nothing was changed (the next command does it)";
    if (this.activity === 'committing')
      return 'whether the ledger took what this command was writing is not known: the connection was lost as it was committed';
    if (this.activity === 'writing')
      return before
        ? `what this command was writing was not recorded (${before})`
        : 'what this command was writing was not recorded';
    return before ? `${before}, and nothing since was changed` : 'nothing was changed';
  }
}
