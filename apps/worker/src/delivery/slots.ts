/**
 * A counting semaphore by weight: how many notifications, and how many recipients, a worker delivers
 * to at once, so that what it holds in memory stays bounded however many jobs it takes (a job may
 * carry many notifications). A weight above the capacity counts as the capacity (it runs alone), so
 * nothing waits forever.
 */
export class Slots {
  private used = 0;
  private readonly waiting: { weight: number; grant(): void }[] = [];

  constructor(readonly capacity: number) {}

  /** The weight held at this moment. */
  get inUse(): number {
    return this.used;
  }

  /** Resolves with the function that gives the slots back (call it exactly once). */
  async acquire(weight: number): Promise<() => void> {
    const w = Math.max(1, Math.min(weight, this.capacity));
    if (!this.waiting.length && this.used + w <= this.capacity) this.used += w;
    else await new Promise<void>((grant) => this.waiting.push({ weight: w, grant }));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= w;
      this.drain();
    };
  }

  private drain() {
    while (this.waiting.length && this.used + this.waiting[0].weight <= this.capacity) {
      const next = this.waiting.shift()!;
      this.used += next.weight;
      next.grant();
    }
  }
}
