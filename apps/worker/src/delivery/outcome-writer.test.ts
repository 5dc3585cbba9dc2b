import type { TokenResult } from '@herald/providers';
import { decide, type Attempt, type Decisions } from './decide';
import { OUTCOME_FLUSH_MAX, OUTCOME_FLUSH_MS, OutcomeWriter } from './outcome-writer';

const policy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.5 };
const attempts = (n: number): Attempt[] => Array.from({ length: n }, (_, i) => ({ deliveryId: `d${i}`, deviceId: `v${i}`, attempts: 0 }));
const sent = (i: number): TokenResult => ({ status: 'sent', providerMessageId: `m${i}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A writer whose writes are recorded (with the time they started) and take `writeMs` each. */
function recorder(n: number, writeMs = 0) {
  const writes: { at: number; d: Decisions }[] = [];
  const started = Date.now();
  const writer = new OutcomeWriter(
    attempts(n),
    (a, r) => decide(a, r, true, policy),
    async (d) => {
      writes.push({ at: Date.now() - started, d });
      await sleep(writeMs);
    },
  );
  return { writer, writes };
}

it('gathers answers for OUTCOME_FLUSH_MS and writes them together, before the batch is over', async () => {
  const { writer, writes } = recorder(10);
  writer.add(0, sent(0));
  await sleep(10);
  writer.add(1, sent(1));
  expect(writes).toHaveLength(0);
  await sleep(OUTCOME_FLUSH_MS + 20);
  expect(writes).toHaveLength(1);
  expect(writes[0].d.sent.map((s) => s.deliveryId)).toEqual(['d0', 'd1']);
  expect(writes[0].at).toBeGreaterThanOrEqual(OUTCOME_FLUSH_MS - 5);
});

it('writes at once when OUTCOME_FLUSH_MAX answers are waiting', async () => {
  const { writer, writes } = recorder(OUTCOME_FLUSH_MAX + 1);
  for (let i = 0; i < OUTCOME_FLUSH_MAX; i++) writer.add(i, sent(i));
  await sleep(5);
  expect(writes).toHaveLength(1);
  expect(writes[0].d.sent).toHaveLength(OUTCOME_FLUSH_MAX);
});

it('writes one at a time: answers that come in during a write go in the next one, each delivery once', async () => {
  const writes: Decisions[] = [];
  let concurrent = 0;
  let most = 0;
  const writer = new OutcomeWriter(
    attempts(3),
    (a, r) => decide(a, r, true, policy),
    async (d) => {
      most = Math.max(most, ++concurrent);
      writes.push(d);
      await sleep(80);
      concurrent--;
    },
  );
  writer.add(0, sent(0));
  await sleep(OUTCOME_FLUSH_MS + 10); // the first write is under way
  writer.add(1, sent(1));
  writer.add(2, sent(2));
  writer.add(0, sent(0)); // reported twice: written once
  await writer.finish([sent(0), sent(1), sent(2)]);
  expect(most).toBe(1);
  expect(writes.map((d) => d.sent.map((x) => x.deliveryId))).toEqual([['d0'], ['d1', 'd2']]);
});

it('finish writes what only the result array holds, and returns every decision of the batch', async () => {
  const { writer, writes } = recorder(4);
  writer.add(0, sent(0));
  writer.add(1, { status: 'retryable', error: 'HTTP 503' });
  const results: TokenResult[] = [sent(0), { status: 'retryable', error: 'HTTP 503' }, { status: 'invalid_token', error: 'UNREGISTERED' }, { status: 'auth_failed', error: 'HTTP 401' }];
  const d = await writer.finish(results);
  expect(writes.flatMap((w) => [...w.d.sent, ...w.d.retry, ...w.d.prune, ...w.d.failover].map((x) => x.deliveryId)).sort()).toEqual(['d0', 'd1', 'd2', 'd3']);
  expect(d.sent.map((s) => s.deliveryId)).toEqual(['d0']);
  expect(d.retry).toEqual([{ deliveryId: 'd1', attempts: 1, delayMs: 100, error: 'HTTP 503' }]);
  expect(d.prune).toEqual([{ deliveryId: 'd2', deviceId: 'v2', error: 'UNREGISTERED' }]);
  expect(d.failover).toEqual([{ deliveryId: 'd3', error: 'HTTP 401' }]);
  expect(d.providerDown).toBe(true);
});

it('finish rejects with the first failed write, and writes nothing after it', async () => {
  let calls = 0;
  const writer = new OutcomeWriter(
    attempts(2),
    (a, r) => decide(a, r, true, policy),
    async () => {
      calls++;
      throw new Error('database unreachable');
    },
  );
  writer.add(0, sent(0));
  await sleep(OUTCOME_FLUSH_MS + 20);
  writer.add(1, sent(1));
  await expect(writer.finish([sent(0), sent(1)])).rejects.toThrow('database unreachable');
  expect(calls).toBe(1);
});
