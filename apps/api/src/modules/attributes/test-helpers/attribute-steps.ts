import type { Device } from '@herald/db';
import { unique, type Harness } from '@herald/testing';

type Auth = { apiKey?: string; token?: string; projectId?: string };

/** The attribute tests' shared steps, over one harness: register a device, set a user's or many users' attributes. */
export function attributeSteps(harness: () => Harness) {
  const query = (auth: Auth) => (auth.projectId ? { projectId: auth.projectId } : undefined);
  const register = (body: Record<string, unknown>, auth: Auth) => harness().post('/push/register-device', { apiKey: auth.apiKey, token: auth.token, query: query(auth), body });
  const device = (overrides: Record<string, unknown> = {}) => ({ userId: unique('cust'), deviceToken: unique('tok'), provider: 'fcm', platform: 'android', ...overrides });
  const patchUser = (userId: string, body: unknown, auth: Auth) =>
    harness().patch(`/push/users/${encodeURIComponent(userId)}/attributes`, { apiKey: auth.apiKey, token: auth.token, query: query(auth), body });
  const patchUsers = (body: unknown, auth: Auth) => harness().post('/push/users/attributes', { apiKey: auth.apiKey, token: auth.token, query: query(auth), body });
  /** A device's row as stored, by its token. */
  const stored = (deviceToken: string): Promise<Device> => harness().db.device.findFirstOrThrow({ where: { deviceToken } });
  return { register, device, patchUser, patchUsers, stored };
}
