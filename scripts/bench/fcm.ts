/**
 * FCM client throughput against the emulator, next to a bare node:http2 loop (one session, the same
 * concurrency, the same JSON, responses parsed and dropped) that is the ceiling for any client here.
 *
 *   pnpm bench:fcm [--messages 50000] [--concurrency 100] [--rounds 5] [--batch N --jobs J] [--in-process] [--stock-bind]
 *
 * The client sends all messages in one send() by default; `--batch 500 --jobs 4` sends them as the
 * worker does, four jobs at a time. The emulator runs in a child process by default, so that it does
 * not share the client's core. Each round runs both sides back to back; the ratios compare medians,
 * per-round pairs (robust when other processes compete for the CPU) and CPU time per message.
 *
 * The client runs as in the worker, with `leanAsyncResourceBind()` (Node's AsyncResource#bind without
 * its deprecated accessor); the bare loop runs on stock Node. `--stock-bind` runs the client on stock
 * Node too.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startFcmEmulator } from '../../packages/fcm-emulator/src/index';
import { createFcmProvider, leanAsyncResourceBind } from '../../packages/providers/src/fcm/index';
import type { PushMessage } from '../../packages/providers/src/types';
import { bareLoop, cpuMs, fmt, mintAccessToken, pct, serviceAccount, startEmulator } from './lib';

const { values: args } = parseArgs({
  options: {
    messages: { type: 'string', default: '50000' },
    concurrency: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '5' },
    batch: { type: 'string' },
    jobs: { type: 'string', default: '1' },
    'in-process': { type: 'boolean', default: false },
    'stock-bind': { type: 'boolean', default: false },
  },
});
const N = Number(args.messages);
const CONCURRENCY = Number(args.concurrency);
const ROUNDS = Number(args.rounds);
const BATCH = Number(args.batch ?? N);
const JOBS = Number(args.jobs);

interface Emulator {
  host: string;
  origin: string;
  pid?: number;
  clear(): Promise<void>;
  stop(): Promise<void>;
}

interface Sample {
  rate: number;
  cpuUsPerMsg: number;
}

async function main(): Promise<void> {
  const account = serviceAccount('bench');
  const emulator: Emulator = args['in-process'] ? await inProcess(account) : await startEmulator(account, N * 2);

  const messages: PushMessage[] = Array.from({ length: N }, (_, i) => ({
    token: `bench-token-${i}-${'x'.repeat(120)}`,
    title: 'Your order has shipped',
    body: `Order #${100000 + i} is on its way and should arrive on Thursday.`,
    data: { orderId: String(100000 + i), kind: 'order.shipped' },
  }));
  const provider = createFcmProvider(account, { emulatorHost: emulator.host, maxConcurrentStreams: CONCURRENCY });
  const accessToken = await mintAccessToken(emulator.origin, account);

  /** Runs the client's side as the worker runs it (unless --stock-bind). */
  const asInWorker = async <T>(fn: () => Promise<T>): Promise<T> => {
    const restore = args['stock-bind'] ? () => undefined : leanAsyncResourceBind();
    try {
      return await fn();
    } finally {
      restore();
    }
  };
  // Like the worker: JOBS jobs at a time, each sending its batch and waiting for the results.
  const sendAll = async () => {
    let next = 0;
    let sent = 0;
    const job = async () => {
      while (next < messages.length) {
        const batch = messages.slice(next, (next += BATCH));
        for (const r of await provider.send(batch)) if (r.status === 'sent') sent++;
      }
    };
    await Promise.all(Array.from({ length: JOBS }, job));
    return sent;
  };
  const runClient = () => asInWorker(sendAll);
  const runBare = (slice = messages) => bareLoop(emulator.origin, account.projectId, accessToken, slice, CONCURRENCY);

  console.log(`${N} messages, ${CONCURRENCY} streams in flight, ${ROUNDS} rounds, emulator ${emulator.pid ? `in a child process (pid ${emulator.pid})` : 'in-process'}, Node ${process.version}`);
  console.log(`the client ${args['stock-bind'] ? 'on stock Node (--stock-bind)' : "as in the worker, with leanAsyncResourceBind()"}; the bare loop on stock Node`);
  await measure('warm-up', () => runBare(messages.slice(0, 5000)), emulator);
  await measure('warm-up', () => asInWorker(async () => (await provider.send(messages.slice(0, 5000))).length), emulator);
  await emulator.clear();

  const client: Sample[] = [];
  const bare: Sample[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate the order so neither side always runs on a warmer JIT or a fuller heap.
    const order = round % 2 ? (['bare', 'client'] as const) : (['client', 'bare'] as const);
    for (const side of order) {
      const sample = await measure(`round ${round} ${side.padEnd(6)}`, side === 'bare' ? () => runBare() : runClient, emulator);
      (side === 'bare' ? bare : client).push(sample);
      await emulator.clear();
    }
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rate = (xs: Sample[]) => median(xs.map((x) => x.rate));
  const cpu = (xs: Sample[]) => median(xs.map((x) => x.cpuUsPerMsg));
  const pairRatio = median(client.map((c, i) => c.rate / bare[i].rate));
  console.log(`\nmedian  bare node:http2 loop: ${fmt(rate(bare)).padStart(7)} msgs/s   ${cpu(bare).toFixed(1)} µs CPU per message`);
  console.log(`median  Herald FCM client:    ${fmt(rate(client)).padStart(7)} msgs/s   ${cpu(client).toFixed(1)} µs CPU per message`);
  console.log(`ratio   client / ceiling:     ${pct(rate(client) / rate(bare))} (medians), ${pct(pairRatio)} (median of per-round ratios), ${pct(cpu(bare) / cpu(client))} (CPU per message)`);

  await provider.close();
  await emulator.stop();
}

/** Runs `fn`, prints its rate and the CPU used by this process and by the emulator. */
async function measure(label: string, fn: () => Promise<number>, emulator: Emulator): Promise<Sample> {
  const cpu = process.cpuUsage();
  const emuCpu = emulator.pid ? cpuMs(emulator.pid) : undefined;
  const started = performance.now();
  const sent = await fn();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const ownMs = (used.user + used.system) / 1000;
  const emuMs = emuCpu === undefined ? undefined : cpuMs(emulator.pid!) - emuCpu;
  const sample = { rate: (sent / ms) * 1000, cpuUsPerMsg: (ownMs * 1000) / sent };
  console.log(
    `${label.padEnd(16)} ${String(sent).padStart(6)} sent in ${ms.toFixed(0).padStart(5)} ms = ${fmt(sample.rate).padStart(7)} msgs/s` +
      `   cpu: this process ${((ownMs / ms) * 100).toFixed(0)}% (${sample.cpuUsPerMsg.toFixed(1)} µs/msg)` +
      (emuMs === undefined ? '' : `, emulator ${((emuMs / ms) * 100).toFixed(0)}% (${((emuMs * 1000) / sent).toFixed(1)} µs/msg)`),
  );
  return sample;
}

async function inProcess(account: ReturnType<typeof serviceAccount>): Promise<Emulator> {
  const emu = await startFcmEmulator({ serviceAccounts: [account], maxRecords: N * 2 });
  return { host: emu.host, origin: emu.url, clear: async () => emu.reset(), stop: () => emu.close() };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
