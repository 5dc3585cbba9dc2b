import { createProject, startApi, type Harness } from '@herald/testing';

export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** The API as the webhook tests run it: plain http allowed for one internal host. */
export const startWebhooksApi = () => startApi({ WEBHOOK_HTTP_HOSTS: 'hooks.internal.test' });

/** A valid create body, with `extra` fields over it. */
export const endpointBody = (extra: Record<string, unknown> = {}) => ({ url: 'https://hooks.example.com/herald', events: ['notification.completed', 'device.token_removed'], ...extra });

/** The webhook tests' shared steps, over one harness. */
export function webhookSteps(harness: () => Harness) {
  /** A project admin with a fresh project, and the base path of its webhooks. */
  async function adminWithProject() {
    const h = harness();
    const admin = await h.user();
    const project = await createProject(h, admin);
    return { admin, project, base: `/projects/${project.id}/webhooks` };
  }

  /** A new endpoint of a fresh project: its admin, its path and the create answer (the secret with it). */
  async function adminWithEndpoint(extra: Record<string, unknown> = {}) {
    const owner = await adminWithProject();
    const created = (await harness().post(owner.base, { token: owner.admin.accessToken, body: endpointBody(extra) })).body;
    return { ...owner, created, path: `${owner.base}/${created.id}` };
  }

  return { adminWithProject, adminWithEndpoint };
}
