import { addMember, startPipeline, startReceiver, unique, waitUntil, type Pipeline, type Receiver, type WorkerProcess } from '@herald/testing';

/**
 * A worker as production runs it, WEBHOOK_ALLOW_PRIVATE unset: a receiver on 127.0.0.1 is an internal
 * address it must refuse (the API here allows such URLs to be saved, as a development setup would, so
 * that the refusal at connect time is what is tested). Endpoints that keep failing are disabled after
 * WEBHOOK_DISABLE_AFTER_MS, shrunk from 24 h to 1.5 s.
 */
let p: Pipeline;
let r: Receiver;
let worker: WorkerProcess;

beforeAll(async () => {
  r = await startReceiver();
  p = await startPipeline(
    { WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_RETRY_MAX_DELAY_MS: '400', WEBHOOK_DISABLE_AFTER_MS: '1500' },
    { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_HTTP_HOSTS: '127.0.0.1,localhost' },
  );
  worker = await p.startWorker({ SMTP_URL: p.h.smtp.url });
}, 60_000);
afterAll(async () => {
  await p.close();
  await r.close();
});

type Tenant = Awaited<ReturnType<Pipeline['project']>>;

async function endpoint(t: Tenant, url: string) {
  const res = await p.h.post(`/projects/${t.project.id}/webhooks`, { token: t.owner.accessToken, body: { url, events: ['notification.failed'] } });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}

async function waitFor<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  let last: T | undefined;
  const found = await waitUntil(async () => done((last = await read())) && { value: last }, timeoutMs, () => `the expected state; last: ${JSON.stringify(last)}\nworker:\n${worker.output.join('')}`, 100);
  return found.value;
}

const deliveries = (t: Tenant, id: string) => p.h.get(`/projects/${t.project.id}/webhooks/${id}/deliveries`, { token: t.owner.accessToken }).then((res) => res.body.data as any[]);

it('refuses loopback addresses after resolving them, literal or by name; the receiver gets nothing', async () => {
  const t = await p.project();
  const literal = `/${unique('lit')}`;
  const named = `/${unique('named')}`;
  const hooks = [await endpoint(t, r.url(literal)), await endpoint(t, r.url(named, 'localhost'))];
  for (const hook of hooks) expect((await p.h.post(`/projects/${t.project.id}/webhooks/${hook.id}/test`, { token: t.owner.accessToken })).status).toBe(202);

  for (const hook of hooks) {
    const [d] = await waitFor(() => deliveries(t, hook.id), (l) => l[0]?.attempts.length >= 2);
    expect(d.attempts[0]).toMatchObject({ succeeded: false, responseStatus: null, error: 'Refused: the host is, or resolves to, a loopback, private, link-local or metadata address' });
  }
  expect(r.at(literal)).toEqual([]);
  expect(r.at(named)).toEqual([]);

  // Counted by outcome in the worker's metrics, beside the webhooks queue's depth.
  const port = /"metricsPort":(\d+)/.exec(await worker.ready)![1];
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  expect(Number(/herald_webhook_attempts_total\{outcome="refused"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(4);
  expect(metrics).toMatch(/herald_webhook_queue_jobs\{state="delayed"\} \d+/);
});

it('an endpoint failing continuously is disabled and its admins are told by e-mail; enabling it starts afresh', async () => {
  const t = await p.project();
  const coAdmin = await p.h.user();
  const member = await p.h.user();
  await addMember(p.h, t.project.id, coAdmin, 'project_admin');
  await addMember(p.h, t.project.id, member);
  // A name its creator chose to look like a link: the mail quotes it defanged, as the invite mail does.
  await p.h.db.project.update({ where: { id: t.project.id }, data: { name: 'Pay now at https://evil.example/login' } });
  const hook = await endpoint(t, r.url(`/${unique('failing')}`));
  const base = `/projects/${t.project.id}/webhooks/${hook.id}`;
  expect((await p.h.post(`${base}/test`, { token: t.owner.accessToken })).status).toBe(202);

  const disabled = await waitFor(() => p.h.get(base, { token: t.owner.accessToken }).then((res) => res.body), (w) => w.enabled === false, 30_000);
  expect(disabled).toMatchObject({ enabled: false, failingSince: expect.any(String), disabledAt: expect.any(String) });
  expect(Date.parse(disabled.disabledAt) - Date.parse(disabled.failingSince)).toBeGreaterThanOrEqual(1500);
  // Herald's own change to the project's configuration is in the audit log, by the system.
  const audit = await p.h.get(`/projects/${t.project.id}/audit-log?action=webhook.updated&targetId=${hook.id}`, { token: t.owner.accessToken });
  expect(audit.body.data).toEqual([expect.objectContaining({ actor: { type: 'system', id: null }, target: { type: 'webhook', id: hook.id }, changes: { enabled: { before: true, after: false } }, ip: null, userAgent: null })]);

  for (const admin of [t.owner, coAdmin]) {
    const mail = await p.h.smtp.waitFor(admin.email, /disabled a webhook endpoint/);
    expect(mail.text).toContain(hook.id);
    expect(mail.text).toContain('"Pay now at https[:]//evil[.]example/login"');
    expect(`${mail.subject} ${mail.text} ${mail.html}`).not.toMatch(/https:\/\/evil|evil\.example/);
    expect(mail.text).not.toContain(hook.secret);
  }
  expect(p.h.smtp.mailsTo(member.email)).toEqual([]);

  // The pending delivery ends at its next attempt: nothing is sent to a disabled endpoint.
  const [d] = await waitFor(() => deliveries(t, hook.id), (l) => l[0]?.status === 'failed');
  expect(d.attempts.at(-1)).toMatchObject({ succeeded: false, error: 'The endpoint is disabled' });
  expect((await p.h.post(`${base}/test`, { token: t.owner.accessToken })).status).toBe(409);

  const enabled = await p.h.put(base, { token: t.owner.accessToken, body: { enabled: true } });
  expect(enabled.body).toMatchObject({ enabled: true, failingSince: null, disabledAt: null });
});
