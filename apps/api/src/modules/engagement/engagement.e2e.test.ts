import { createHeraldClient, reportEvents } from '@herald/client';
import { startPipeline, unique, waitUntil, type Pipeline } from '@herald/testing';

/**
 * The round trip: a send delivered by the worker through the FCM emulator, then the app's events
 * reported with `@herald/client` as a backend would, moving the notification's funnel and the
 * template's and the label's series.
 */
let p: Pipeline;
beforeAll(async () => {
  p = await startPipeline();
  await p.startWorker();
}, 60_000);
afterAll(() => p.close());

const today = () => new Date().toISOString().slice(0, 10);

it('a delivered send: its label reaches FCM, and events reported for its deliveries move the funnel and the series', async () => {
  const t = await p.project(undefined, { title: 'Hello {{name}}', body: 'Hi', options: { analyticsLabel: 'template-label' } } as never);
  const herald = createHeraldClient({ baseUrl: p.h.url, apiKey: t.apiKey.key });
  const userId = unique('cust');
  const tokens = [unique('tok'), unique('tok')];
  await p.registerDevices(t.apiKey.key, tokens.map((deviceToken) => ({ userId, deviceToken, platform: 'android' })));

  // The send's label wins over the template's.
  const sent = await herald.POST('/push/send', { body: { userId, templateId: t.templateId, variables: { name: 'Ada' }, analyticsLabel: 'spring_sale-2026' } });
  expect(sent.response.status).toBe(202);
  const notificationId = sent.data!.notificationId;
  await waitUntil(async () => (await p.h.db.notification.findUniqueOrThrow({ where: { id: notificationId } })).status === 'completed', 20_000, 'the notification to complete');
  // Each message carries its delivery's id in `data.herald_delivery_id`: what the app reports back.
  const ids: string[] = [];
  for (const token of tokens) {
    const [received] = p.emulator.received({ token });
    expect(received.message.fcm_options).toEqual({ analytics_label: 'spring_sale-2026' });
    ids.push((received.message.data as Record<string, string>).herald_delivery_id);
  }
  const deliveries = await p.h.db.delivery.findMany({ where: { notificationId }, select: { id: true } });
  expect([...ids].sort()).toEqual(deliveries.map((d) => d.id).sort());
  const [a, b] = ids;
  const events = [
    { deliveryId: a, type: 'received' as const },
    { deliveryId: a, type: 'opened' as const },
    { deliveryId: b, type: 'received' as const },
    { deliveryId: b, type: 'clicked' as const, action: 'shop' },
    { deliveryId: b, type: 'opened' as const, at: new Date(Date.now() + 3600_000).toISOString() },
  ];
  const result = await reportEvents(herald, events);
  expect(result.accepted.map((x) => x.index)).toEqual([0, 1, 2, 3]);
  expect(result.refused).toEqual([expect.objectContaining({ index: 4, reason: 'in_future' })]);

  const funnel = { received: 2, opened: 1, clicked: 1, dismissed: 0, rates: { received: 1, opened: 0.5, clicked: 0.5, dismissed: 0 } };
  const read = async () => (await herald.GET('/push/notifications/{notificationId}', { params: { path: { notificationId } } })).data!.engagement;
  expect(await read()).toEqual(funnel);
  const day = { date: today(), sent: 2, delivered: 2, opened: 1, clicked: 1 };
  const templateSeries = await herald.GET('/push-templates/{id}/engagement', { params: { path: { id: t.templateId } } });
  expect(templateSeries.data!.days.at(-1)).toEqual(day);
  const labelSeries = await herald.GET('/push/analytics-labels/{label}/engagement', { params: { path: { label: 'spring_sale-2026' } } });
  expect(labelSeries.data!.days.at(-1)).toEqual(day);

  // Reported again: nothing changes.
  const again = await reportEvents(herald, events.slice(0, 4));
  expect(again.accepted.every((x) => x.duplicate)).toBe(true);
  expect(await read()).toEqual(funnel);
  expect((await herald.GET('/push-templates/{id}/engagement', { params: { path: { id: t.templateId } } })).data!.days.at(-1)).toEqual(day);
});

it("a send without a label carries its template's; one with neither carries none", async () => {
  const withLabel = await p.project(undefined, { title: 'Hello', body: 'Hi', options: { analyticsLabel: 'from-template' } } as never);
  const without = await p.project(undefined, { title: 'Hello', body: 'Hi' } as never);
  for (const [t, expected] of [[withLabel, { analytics_label: 'from-template' }], [without, undefined]] as const) {
    const userId = unique('cust');
    const deviceToken = unique('tok');
    await p.registerDevices(t.apiKey.key, [{ userId, deviceToken, platform: 'ios' }]);
    const res = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId, templateId: t.templateId } });
    expect(res.status).toBe(202);
    await waitUntil(() => p.emulator.received({ token: deviceToken }).length === 1, 20_000, 'the message to reach FCM');
    expect(p.emulator.received({ token: deviceToken })[0].message.fcm_options).toEqual(expected);
  }
});

it('with deliveryIdInData off, messages carry no herald_delivery_id (the collapse id stays), and on again they do', async () => {
  const t = await p.project(undefined, { title: 'Hello', body: 'Hi', data: { screen: 'inbox' } } as never);
  const settings = (deliveryIdInData: boolean) => p.h.put(`/projects/${t.project.id}/settings`, { token: t.owner.accessToken, body: { deliveryIdInData } });
  const sendOne = async () => {
    const userId = unique('cust');
    const deviceToken = unique('tok');
    await p.registerDevices(t.apiKey.key, [{ userId, deviceToken, platform: 'android' }]);
    const res = await p.h.post('/push/send', { apiKey: t.apiKey.key, body: { userId, templateId: t.templateId } });
    expect(res.status).toBe(202);
    await p.waitForNotification(t.apiKey.key, res.body.notificationId);
    const [received] = p.emulator.received({ token: deviceToken });
    return { notificationId: res.body.notificationId as string, message: received.message as { data?: Record<string, string>; android?: { notification?: { tag?: string } } } };
  };

  // On by default; the worker now holds the project's context, which the change below must replace.
  const before = await sendOne();
  expect(before.message.data).toEqual({ screen: 'inbox', herald_delivery_id: expect.any(String) });

  expect((await settings(false)).body).toMatchObject({ deliveryIdInData: false });
  const off = await sendOne();
  expect(off.message.data).toEqual({ screen: 'inbox' });
  expect(off.message.android?.notification?.tag).toBe(off.notificationId.replaceAll('-', ''));
  // The backend can still report events with the ids it reads from the notification's deliveries.
  const [delivery] = (await p.h.get(`/push/notifications/${off.notificationId}/events`, { apiKey: t.apiKey.key })).body as { id: string }[];
  const reported = await p.h.post('/push/events', { apiKey: t.apiKey.key, body: { events: [{ deliveryId: delivery.id, type: 'opened' }] } });
  expect(reported.body).toMatchObject({ accepted: [{ index: 0, deliveryId: delivery.id, duplicate: false }], refused: [] });

  expect((await settings(true)).body).toMatchObject({ deliveryIdInData: true });
  const on = await sendOne();
  const [row] = await p.h.db.delivery.findMany({ where: { notificationId: on.notificationId }, select: { id: true } });
  expect(on.message.data).toEqual({ screen: 'inbox', herald_delivery_id: row.id });
});

it("a broadcast's label reaches FCM, and its sends and events count in the label's series and its funnel", async () => {
  const t = await p.project(undefined, { title: 'Hello', body: 'Hi' } as never);
  const herald = createHeraldClient({ baseUrl: p.h.url, apiKey: t.apiKey.key });
  const label = unique('bcast').replace(/[^a-zA-Z0-9-_.~%]/g, '-').slice(0, 50);
  const tokens = [unique('tok'), unique('tok'), unique('tok')];
  await p.registerDevices(t.apiKey.key, tokens.map((deviceToken, i) => ({ userId: unique(`cust${i}`), deviceToken, platform: 'android' })));

  const sent = await herald.POST('/push/broadcast', { body: { templateId: t.templateId, audience: { all: true }, analyticsLabel: label } });
  expect(sent.response.status).toBe(202);
  const notificationId = sent.data!.notificationId;
  await p.waitForNotification(t.apiKey.key, notificationId);
  const ids = tokens.map((token) => {
    const [received] = p.emulator.received({ token });
    expect(received.message.fcm_options).toEqual({ analytics_label: label });
    return (received.message.data as Record<string, string>).herald_delivery_id;
  });

  const result = await reportEvents(herald, [{ deliveryId: ids[0], type: 'opened' }, { deliveryId: ids[1], type: 'clicked' }]);
  expect(result.refused).toEqual([]);
  const read = await herald.GET('/push/notifications/{notificationId}', { params: { path: { notificationId } } });
  expect(read.data!.engagement).toMatchObject({ opened: 1, clicked: 1, rates: { opened: 0.3333, clicked: 0.3333 } });
  const series = await herald.GET('/push/analytics-labels/{label}/engagement', { params: { path: { label } } });
  expect(series.data!.days.at(-1)).toEqual({ date: today(), sent: 3, delivered: 3, opened: 1, clicked: 1 });
});
