/**
 * A counting semaphore by weight, with a bound on holders too: how many recipients, and how many
 * notifications, a worker delivers to at once, so that what it holds in memory stays bounded however
 * many jobs it takes (a job may carry many notifications). A weight above the capacity counts as the
 * capacity (it runs alone), so nothing waits forever.
 */
export class Slots {
  private used = 0;
  private holders = 0;
  private readonly waiting: { weight: number; grant(): void }[] = [];

  constructor(
    readonly capacity: number,
    readonly maxHolders = Infinity,
  ) {}

  /** Resolves with the function that gives the slots back (call it exactly once). */
  async acquire(weight: number): Promise<() => void> {
    const w = Math.max(1, Math.min(weight, this.capacity));
    if (!this.waiting.length && this.fits(w)) this.take(w);
    else await new Promise<void>((grant) => this.waiting.push({ weight: w, grant }));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= w;
      this.holders--;
      this.drain();
    };
  }

  private fits(w: number) {
    return this.used + w <= this.capacity && this.holders < this.maxHolders;
  }

  private take(w: number) {
    this.used += w;
    this.holders++;
  }

  private drain() {
    while (this.waiting.length && this.fits(this.waiting[0].weight)) {
      const next = this.waiting.shift()!;
      this.take(next.weight);
      next.grant();
    }
  }
}
