import type { TokenResult } from '@herald/providers';
import type { Attempt, Decisions } from './decide';

/** How long an answered message waits at most before its outcome is written. */
export const OUTCOME_FLUSH_MS = 100;
/** Outcomes written at once, at most as many as the provider client has requests in flight. */
export const OUTCOME_FLUSH_MAX = 100;

export const emptyDecisions = (): Decisions => ({ sent: [], prune: [], failover: [], retry: [], fail: [], providerDown: false });

function merge(into: Decisions, d: Decisions) {
  into.sent.push(...d.sent);
  into.prune.push(...d.prune);
  into.failover.push(...d.failover);
  into.retry.push(...d.retry);
  into.fail.push(...d.fail);
  into.providerDown ||= d.providerDown;
}

/**
 * Writes a batch's outcomes while the batch is still being sent: each answer is decided and written
 * once it has waited `OUTCOME_FLUSH_MS` (or as soon as `OUTCOME_FLUSH_MAX` have come in), one write at
 * a time, so an answer waits at most that long plus one write. A
 * worker that dies mid-batch has recorded every answer but the last moment's, so a job taken over
 * repeats little more than the requests that were in flight (CONTRACT §8), however large the batch.
 */
export class OutcomeWriter {
  /** What every write decided, for the batch as a whole (failover, a provider that is down). */
  readonly decisions = emptyDecisions();
  private pending: { attempt: Attempt; result: TokenResult }[] = [];
  /** When the oldest pending outcome came in. */
  private pendingSince = 0;
  private readonly reported: boolean[];
  private timer?: NodeJS.Timeout;
  private writing?: Promise<void>;
  private error?: unknown;

  constructor(
    private readonly attempts: readonly Attempt[],
    private readonly decide: (attempts: Attempt[], results: TokenResult[]) => Decisions,
    private readonly write: (d: Decisions) => Promise<void>,
  ) {
    this.reported = attempts.map(() => false);
  }

  /** The outcome of `attempts[index]`, as the provider reports it. Never throws. */
  add(index: number, result: TokenResult): void {
    if (this.reported[index]) return;
    this.reported[index] = true;
    if (!this.pending.length) this.pendingSince = Date.now();
    this.pending.push({ attempt: this.attempts[index], result });
    this.flushSoon();
  }

  /**
   * Writes what is left, given the batch's full results (a provider may answer a whole batch at
   * once, e.g. when it cannot get an access token), and resolves once everything is written. Rejects
   * with the first failed write.
   */
  async finish(results: readonly TokenResult[]): Promise<Decisions> {
    results.forEach((r, i) => this.add(i, r));
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing || this.pending.length) await (this.writing ?? this.startWrite());
    clearTimeout(this.timer);
    if (this.error !== undefined) throw this.error;
    return this.decisions;
  }

  /** Schedules the next write for when the oldest pending outcome is due, or at once when enough are pending. */
  private flushSoon() {
    if (this.writing || !this.pending.length) return; // a running write schedules the next when it is done
    const delayMs = this.pending.length >= OUTCOME_FLUSH_MAX ? 0 : Math.max(0, this.pendingSince + OUTCOME_FLUSH_MS - Date.now());
    if (delayMs > 0 && this.timer) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.startWrite();
    }, delayMs);
  }

  private startWrite(): Promise<void> {
    if (this.writing) return this.writing;
    const taken = this.pending;
    this.pending = [];
    // `.finally` runs after this assignment even when the write completes at once.
    const writing = this.writeNow(taken).finally(() => {
      this.writing = undefined;
      this.flushSoon();
    });
    this.writing = writing;
    return writing;
  }

  private async writeNow(taken: { attempt: Attempt; result: TokenResult }[]): Promise<void> {
    if (!taken.length || this.error !== undefined) return;
    try {
      const d = this.decide(
        taken.map((p) => p.attempt),
        taken.map((p) => p.result),
      );
      merge(this.decisions, d);
      await this.write(d);
    } catch (err) {
      this.error ??= err;
    }
  }
}
