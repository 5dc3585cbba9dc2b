/**
 * Runs one step for everything that reaches it together: items submitted while the step is idle
 * are taken at the end of the current turn of the event loop (no timer: a lone item waits for
 * nothing), and items submitted while the step runs are gathered and taken together as soon as it is
 * done. Under load each run takes more items; at rest each item runs alone and at once.
 *
 * `run` answers each item, index-aligned (an `Error` in a slot fails only that item); if it throws,
 * every item of that run fails with the error.
 */
export class GroupCommit<I, O> {
  private waiting: { item: I; resolve(value: O): void; reject(err: unknown): void }[] = [];
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<(O | Error)[]>,
    private readonly options: {
      /** Items per run at most (default 1,000). */
      maxItems?: number;
      /** Runs under way at once (default 1: a run starts when the previous one is done). */
      concurrency?: number;
      /** How a run is deferred to the end of the current turn (injectable for tests; default setImmediate). */
      schedule?: (fn: () => void) => void;
    } = {},
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.kick();
    });
  }

  /** Items waiting for a run. */
  get backlog(): number {
    return this.waiting.length;
  }

  private kick() {
    if (this.scheduled || !this.waiting.length || this.running >= (this.options.concurrency ?? 1)) return;
    this.scheduled = true;
    (this.options.schedule ?? setImmediate)(() => {
      this.scheduled = false;
      this.start();
    });
  }

  private start() {
    while (this.waiting.length && this.running < (this.options.concurrency ?? 1)) {
      const taken = this.waiting.splice(0, this.options.maxItems ?? 1_000);
      this.running++;
      let results: Promise<(O | Error)[]>;
      try {
        results = this.run(taken.map((t) => t.item));
      } catch (err) {
        results = Promise.reject(err);
      }
      results
        .then(
          (out) => taken.forEach((t, i) => (out[i] instanceof Error ? t.reject(out[i]) : t.resolve(out[i] as O))),
          (err: unknown) => taken.forEach((t) => t.reject(err)),
        )
        .finally(() => {
          this.running--;
          this.kick();
        });
    }
  }
}
