import { unique, type Harness } from '@herald/testing';

/** The device tests' shared steps, over one harness. */
export function deviceSteps(harness: () => Harness) {
  const register = (body: Record<string, unknown>, auth: { apiKey?: string; token?: string; projectId?: string }) =>
    harness().post('/push/register-device', { apiKey: auth.apiKey, token: auth.token, query: auth.projectId ? { projectId: auth.projectId } : undefined, body });

  const device = (overrides: Record<string, unknown> = {}) => ({ userId: unique('cust'), deviceToken: unique('tok'), provider: 'fcm', platform: 'android', ...overrides });

  return { register, device };
}
