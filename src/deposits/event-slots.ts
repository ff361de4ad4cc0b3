/**
 * How many of `lbrl listen`'s requests to a receiver run at once: a worker takes a slot before it
 * sends and gives it back after, and a worker that finds none free waits its turn, first come
 * first served. Kept apart from the hub so the queueing is read on its own: the waiting line is an
 * array read from a head index (shift() is linear), trimmed when most of it is spent.
 */
export class SendSlots {
  private inFlight = 0;
  /** workers waiting for a slot, first come first served */
  private waiting: Array<() => void> = [];
  private waitingHead = 0;

  constructor(private readonly max: number) {}

  /** A slot, at once when one is free, else when a worker before this one gives its slot back. */
  async take(): Promise<void> {
    if (this.inFlight < this.max) {
      this.inFlight += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** The slot given back: to the first worker waiting, or free. */
  release(): void {
    const next = this.waiting[this.waitingHead];
    if (next) {
      this.waiting[this.waitingHead++] = undefined as unknown as () => void;
      if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
        this.waiting = this.waiting.slice(this.waitingHead);
        this.waitingHead = 0;
      }
      next();
    } else this.inFlight -= 1;
  }
}
