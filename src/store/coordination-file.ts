/**
 * One machine, the file ledger: today's behaviour behind the coordination's port. watch follows
 * every deposit it is given and paces itself; listen holds the profile's listen lock beside its
 * file outbox (a second listen on the machine is refused); display has no feed (it reads the
 * history file, which every process on the machine appends to).
 */
import type { Lead, LeadClock, ListenCoordination, WatchCoordination } from './coordination-port.js';
import { Outbox, type OutboxStore } from './outbox.js';

export const FILE_WATCH: WatchCoordination = {
  claim: async (ids) => ({ mine: ids, elsewhere: 0 }),
  budget: undefined,
  close: async () => {},
};

export class FileListen implements ListenCoordination {
  constructor(
    private readonly configDir: string,
    private readonly profile: string,
    private readonly warn: (line: string) => void,
  ) {}

  async lead(clock: LeadClock): Promise<Lead> {
    const release = await new Outbox(this.configDir, this.profile, this.warn).lock(clock);
    // the lock is this machine's: it is never taken from a process that runs
    return { release: async () => release(), lost: new AbortController().signal };
  }

  async outbox(receiver?: string): Promise<OutboxStore> {
    return new Outbox(this.configDir, this.profile, this.warn, receiver);
  }

  async replayable(): Promise<OutboxStore[]> {
    return Outbox.allOf(this.configDir, this.profile, this.warn);
  }

  async close(): Promise<void> {}
}
