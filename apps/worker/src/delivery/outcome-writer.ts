import { GroupCommit } from './group-commit';
import type { Finished, Outcome } from './repository';

/** Outcomes written in one statement at most. */
export const OUTCOME_WRITE_MAX = 2_000;

/** An outcome with the notification it belongs to. */
export type NotificationOutcome = Outcome & { notificationId: string; projectId: string };

/** Delayed work for deliveries that wait for a retry: one job per notification and write. */
export interface RetryRequest {
  notificationId: string;
  deliveryIds: string[];
  delayMs: number;
}

export interface OutcomeWriterDeps {
  /** Writes outcomes, counters and final statuses in one statement (`DeliveryRepository.record`). */
  record(outcomes: Outcome[]): Promise<{ written: Set<string>; finished: Finished[] }>;
  /** Adds the retry jobs of a write, once it is committed. */
  enqueueRetries(retries: RetryRequest[]): Promise<void>;
  /** Hears what each write did. */
  written?(outcomes: NotificationOutcome[], finished: Finished[]): void;
  /** How a write is deferred to the end of the current turn (default setImmediate; tests step it by hand). */
  schedule?: (fn: () => void) => void;
}

/**
 * The worker's one writer of delivery outcomes (group commit): every answer from a provider is
 * handed over as soon as it comes in; a write starts at the end of that turn of the event loop if
 * none is under way, and the answers that come in during a write go together into the next one. So
 * a lone message's outcome is written at once — no timer, no waiting for a batch to fill — and under
 * load one statement writes the outcomes of many notifications. `record` resolves once its outcome
 * is committed (and its retry job added).
 *
 * A worker that dies has written every answer but those of the last moments, so a job taken over
 * repeats little more than the requests that were in flight.
 */
export class OutcomeWriter {
  private readonly writes: GroupCommit<NotificationOutcome, void>;

  constructor(private readonly deps: OutcomeWriterDeps) {
    this.writes = new GroupCommit((outcomes) => this.write(outcomes), { maxItems: OUTCOME_WRITE_MAX, schedule: deps.schedule });
  }

  record(outcome: NotificationOutcome): Promise<void> {
    return this.writes.submit(outcome);
  }

  private async write(outcomes: NotificationOutcome[]): Promise<void[]> {
    // One statement updates a row once: a delivery with two outcomes in one write (moved on, then
    // answered) has them written one after the other.
    const rounds: NotificationOutcome[][] = [];
    const round = new Map<string, number>();
    for (const o of outcomes) {
      const r = round.get(o.deliveryId) ?? 0;
      round.set(o.deliveryId, r + 1);
      (rounds[r] ??= []).push(o);
    }
    const written = new Set<string>();
    const finished: Finished[] = [];
    for (const batch of rounds) {
      const result = await this.deps.record(batch);
      result.written.forEach((id) => written.add(id));
      finished.push(...result.finished);
    }
    const retries = new Map<string, RetryRequest>();
    for (const o of outcomes) {
      if (o.kind !== 'retry' || !written.has(o.deliveryId)) continue;
      const r = retries.get(o.notificationId) ?? { notificationId: o.notificationId, deliveryIds: [], delayMs: 0 };
      r.deliveryIds.push(o.deliveryId);
      r.delayMs = Math.max(r.delayMs, o.delayMs);
      retries.set(o.notificationId, r);
    }
    if (retries.size) await this.deps.enqueueRetries([...retries.values()]);
    this.deps.written?.(
      outcomes.filter((o) => written.has(o.deliveryId)),
      finished,
    );
    return outcomes.map(() => undefined);
  }
}
