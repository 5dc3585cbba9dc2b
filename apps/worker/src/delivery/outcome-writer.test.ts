import { GroupCommit } from './group-commit';
import { OutcomeWriter, type NotificationOutcome, type RetryRequest } from './outcome-writer';
import type { Finished, Outcome } from './repository';

/** A scheduler stepped by hand: nothing depends on the machine's speed. */
function manual() {
  const queued: (() => void)[] = [];
  return {
    schedule: (fn: () => void) => void queued.push(fn),
    /** Runs what was deferred so far. */
    step: () => queued.splice(0).forEach((fn) => fn()),
    get pending() {
      return queued.length;
    },
  };
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

/** A promise resolved by hand. */
function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const flush = () => new Promise((r) => setImmediate(r));

const sent = (i: number, notificationId = 'n1'): NotificationOutcome => ({ kind: 'sent', deliveryId: `d${i}`, providerConfigId: 'p1', providerMessageId: `m${i}`, notificationId, projectId: 'pr' });

/** A writer whose writes are recorded and complete when the test says so. */
function recorder(finishedBy: (outcomes: Outcome[]) => Finished[] = () => []) {
  const clock = manual();
  const writes: { outcomes: Outcome[]; done: Deferred }[] = [];
  const retries: RetryRequest[][] = [];
  const heard: { written: string[]; finished: Finished[] }[] = [];
  const writer = new OutcomeWriter({
    schedule: clock.schedule,
    record: async (outcomes) => {
      const done = deferred();
      writes.push({ outcomes, done });
      await done.promise;
      return { written: new Set(outcomes.filter((o) => o.deliveryId !== 'gone').map((o) => o.deliveryId)), finished: finishedBy(outcomes) };
    },
    enqueueRetries: async (r) => void retries.push(r),
    written: (w, finished) => heard.push({ written: w.map((o) => o.deliveryId), finished }),
  });
  return { clock, writer, writes, retries, heard };
}

describe('OutcomeWriter', () => {
  it('a lone outcome is written in the same turn, with no timer', async () => {
    const { clock, writer, writes } = recorder();
    const done = writer.record(sent(0));
    expect(clock.pending).toBe(1);
    clock.step();
    expect(writes.map((w) => w.outcomes.map((o) => o.deliveryId))).toEqual([['d0']]);
    writes[0].done.resolve();
    await done;
  });

  it('outcomes that come in while a write runs go together into the next one, one write at a time', async () => {
    const { clock, writer, writes } = recorder();
    const first = writer.record(sent(0));
    clock.step();
    const later = [1, 2, 3].map((i) => writer.record(sent(i)));
    // The first write is under way: nothing else starts.
    expect(clock.pending).toBe(0);
    expect(writes).toHaveLength(1);
    writes[0].done.resolve();
    await first;
    await flush();
    clock.step();
    expect(writes.map((w) => w.outcomes.map((o) => o.deliveryId))).toEqual([['d0'], ['d1', 'd2', 'd3']]);
    writes[1].done.resolve();
    await Promise.all(later);
  });

  it('adds one retry job per notification for the retries written, with the longest delay', async () => {
    const { clock, writer, writes, retries } = recorder();
    const retry = (id: string, notificationId: string, delayMs: number): NotificationOutcome => ({ kind: 'retry', deliveryId: id, providerConfigId: 'p1', attempts: 1, delayMs, error: 'HTTP 503', notificationId, projectId: 'pr' });
    const all = [retry('a', 'n1', 100), retry('b', 'n1', 300), retry('c', 'n2', 50), retry('gone', 'n2', 900), sent(9)].map((o) => writer.record(o));
    clock.step();
    writes[0].done.resolve();
    await Promise.all(all);
    // `gone` was no longer pending: not written, so not queued again.
    expect(retries).toEqual([
      [
        { notificationId: 'n1', deliveryIds: ['a', 'b'], delayMs: 300 },
        { notificationId: 'n2', deliveryIds: ['c'], delayMs: 50 },
      ],
    ]);
  });

  it('reports what each write did: the outcomes written and the notifications that finished', async () => {
    const finished: Finished = { notificationId: 'n1', projectId: 'pr', status: 'completed' };
    const { clock, writer, writes, heard } = recorder((o) => (o.length === 2 ? [finished] : []));
    const both = [writer.record(sent(0)), writer.record(sent(1))];
    clock.step();
    writes[0].done.resolve();
    await Promise.all(both);
    expect(heard).toEqual([{ written: ['d0', 'd1'], finished: [finished] }]);
  });

  it('two outcomes of one delivery in one write (moved on, then answered) are written one after the other', async () => {
    const { clock, writer, writes } = recorder();
    const moved: NotificationOutcome = { kind: 'failover', deliveryId: 'd0', providerConfigId: 'p2', error: 'HTTP 401', notificationId: 'n1', projectId: 'pr' };
    const first = writer.record(sent(9));
    clock.step(); // a write under way: what follows is gathered
    const both = [writer.record(moved), writer.record({ ...sent(0), providerConfigId: 'p2' }), writer.record(sent(1))];
    writes[0].done.resolve();
    await first;
    await flush();
    clock.step();
    expect(writes.map((w) => w.outcomes.map((o) => `${o.kind}:${o.deliveryId}`))).toEqual([['sent:d9'], ['failover:d0', 'sent:d1']]);
    writes[1].done.resolve();
    await flush();
    expect(writes.map((w) => w.outcomes.map((o) => `${o.kind}:${o.deliveryId}`))).toEqual([['sent:d9'], ['failover:d0', 'sent:d1'], ['sent:d0']]);
    writes[2].done.resolve();
    await Promise.all(both);
  });

  it('a failed write fails the outcomes it held, and the next write goes ahead', async () => {
    const clock = manual();
    let calls = 0;
    const writer = new OutcomeWriter({
      schedule: clock.schedule,
      record: async (outcomes) => {
        if (++calls === 1) throw new Error('database unreachable');
        return { written: new Set(outcomes.map((o) => o.deliveryId)), finished: [] };
      },
      enqueueRetries: async () => undefined,
    });
    const first = writer.record(sent(0));
    clock.step();
    await expect(first).rejects.toThrow('database unreachable');
    const second = writer.record(sent(1));
    await flush();
    clock.step();
    await expect(second).resolves.toBeUndefined();
  });
});

describe('GroupCommit', () => {
  it('answers each item from its slot; an Error in a slot fails that item only', async () => {
    const clock = manual();
    const g = new GroupCommit<number, number>(async (items) => items.map((i) => (i === 2 ? new Error('two') : i * 10)), { schedule: clock.schedule });
    const answers = [1, 2, 3].map((i) => g.submit(i));
    clock.step();
    await expect(answers[0]).resolves.toBe(10);
    await expect(answers[1]).rejects.toThrow('two');
    await expect(answers[2]).resolves.toBe(30);
  });

  it('takes at most maxItems per run, and runs up to `concurrency` at once', async () => {
    const clock = manual();
    const runs: number[][] = [];
    const gates: Deferred[] = [];
    const g = new GroupCommit<number, number>(
      async (items) => {
        runs.push(items);
        const gate = deferred();
        gates.push(gate);
        await gate.promise;
        return items;
      },
      { schedule: clock.schedule, maxItems: 2, concurrency: 2 },
    );
    const all = [1, 2, 3, 4, 5].map((i) => g.submit(i));
    clock.step();
    expect(runs).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(g.backlog).toBe(1);
    gates[0].resolve();
    await flush();
    clock.step();
    expect(runs).toEqual([[1, 2], [3, 4], [5]]);
    gates.forEach((gate) => gate.resolve());
    await expect(Promise.all(all)).resolves.toEqual([1, 2, 3, 4, 5]);
  });
});
