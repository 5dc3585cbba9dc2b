import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import { compileTemplate } from '@herald/core';
import { FcmProvider, startLoopbackFcm, type TokenResult } from '@herald/providers';
import type { LoadedProvider } from '@herald/db';
import { decide, type RetryPolicy } from '../delivery/decide';
import { render, toOutcome } from '../delivery/delivery.service';
import { collapseIdOf, toPushMessage } from '../delivery/message';
import type { NotificationRow } from '../delivery/repository';

export interface WarmUpOptions {
  /** Messages to send in all (0: no warm-up). */
  messages: number;
  /** Messages per round: real work waits at most one round. */
  roundSize?: number;
  /** True once real work has arrived (or the worker stops): the warm-up ends before its next round. */
  busy(): boolean;
  policy: RetryPolicy;
}

export interface WarmUpResult {
  /** Messages the stand-in answered as sent (each decided and made an outcome of). */
  sent: number;
  /** Ended early because real work arrived. */
  interrupted: boolean;
}

/** A template like a typical one: placeholders in its title, body and data. */
const TEMPLATE = { title: 'Your order {{order}} has shipped', body: 'Hi {{name}}, it should arrive on {{day}}.', data: { kind: 'order.shipped', order: '{{order}}' } };
/** The id of the warm-up's notification, project, template and device, none of which exists. */
const NO_ID = '00000000-0000-0000-0000-000000000000';
/** Of a provider, outcomes read only its id. */
const PROVIDER = { id: NO_ID, provider: 'fcm' } as LoadedProvider;

/**
 * Warms a fresh worker's delivery code up while it has nothing to deliver: messages shaped like real
 * ones go through the same steps as a delivery's — render, build each message, send through Herald's
 * FCM client over HTTP/2, decide each answer and make its outcome — to a stand-in for FCM on a
 * loopback port (`startLoopbackFcm`), never to FCM, and nothing is written anywhere.
 *
 * Why: V8 compiles a process's code as it runs, and until it has, a delivery costs the worker three
 * to four times the CPU: without this, the first burst after a deploy or a scale-out (a bulk send to
 * idle workers) is delivered at a fraction of the usual rate. The worker starts it when it first
 * finds its queue empty (a worker started into a backlog is warmed by its jobs instead), and it stops
 * for good before its next round once real work arrives.
 */
export async function warmUpDelivery(options: WarmUpOptions): Promise<WarmUpResult> {
  const { messages, roundSize = 100, busy, policy } = options;
  if (messages <= 0 || busy()) return { sent: 0, interrupted: messages > 0 };
  const fcm = await startLoopbackFcm();
  const client = new FcmProvider({ projectId: 'herald-warm-up', clientEmail: 'warm-up@herald.invalid', privateKey: '' }, { emulatorHost: fcm.host, fixedAccessToken: 'warm-up' });
  const template = compileTemplate(TEMPLATE);
  let sent = 0;
  let attempted = 0;
  try {
    for (let round = 0; attempted < messages; round++) {
      if (busy()) return { sent, interrupted: true };
      const n: NotificationRow = {
        id: NO_ID,
        projectId: NO_ID,
        templateId: NO_ID,
        variables: { order: `#${round}`, name: 'there', day: 'Thursday' },
        data: null,
        imageUrl: null,
        status: 'processing',
        recipients: roundSize,
        options: null,
        dataOnly: false,
        dryRun: false,
        recipientVariables: null,
        timing: null,
        createdAt: new Date(0),
        audience: null,
      };
      const rendered = render(n, { template, templateOptions: {} });
      const size = Math.min(roundSize, messages - attempted);
      const batch = Array.from({ length: size }, (_, i) => ({ deliveryId: `warm-up-${round}-${i}`, deviceId: NO_ID, attempts: 0 }));
      const pushes = batch.map((a, i) => toPushMessage(rendered('warm-up'), `warm-up-token-${round}-${i}-${'x'.repeat(120)}`, i % 2 ? 'ios' : 'android', batch[i].deliveryId, collapseIdOf(NO_ID)));
      const take = (i: number, result: TokenResult) => {
        if (toOutcome(decide(batch[i], result, false, policy, false), batch[i], n, PROVIDER, undefined).kind === 'sent') sent++;
      };
      await client.send(pushes, take);
      attempted += size;
      await nextTurn();
    }
    return { sent, interrupted: false };
  } finally {
    await client.close();
    await fcm.close();
  }
}

/** What a worker of the notifications queue tells about itself (BullMQ's `Worker` events). */
interface QueueWorker {
  once(event: 'active' | 'drained', listener: () => void): unknown;
}

/**
 * Warms a fresh worker up the first time it finds its queue empty (BullMQ's `drained`): its first
 * deliveries would otherwise cost it several times the CPU of later ones. One started into a backlog
 * does not (its first jobs warm it), nor does one that has delivered already.
 */
export function warmUpWhenIdle(worker: QueueWorker, warmUp: () => Promise<WarmUpResult>, logger: Logger): void {
  let delivered = false;
  worker.once('active', () => (delivered = true));
  worker.once('drained', () => {
    if (delivered) return;
    const started = Date.now();
    warmUp()
      .then(({ sent, interrupted }) => logger.info({ messages: sent, ms: Date.now() - started, interrupted }, 'delivery warmed up'))
      .catch((err: unknown) => logger.warn({ err: { message: (err as Error).message } }, 'delivery warm-up failed; the worker delivers all the same'));
  });
}
