import { createHeraldClient, type ApiError } from '@herald/client';
import { isSessionError, Session, type Tokens } from './session';

/** An error answer of the API (or no answer at all), with the message the API wrote. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: ApiError['details'],
  ) {
    super(message);
  }
}

/** Same origin: the API serves the dashboard. */
const baseUrl = window.location.origin;

/** Unauthenticated calls (sign-in, refresh, sign-up, reset, accept invite). */
export const publicApi = createHeraldClient({ baseUrl });

export const session = new Session({
  storage: window.localStorage,
  async refresh(refreshToken): Promise<Tokens | null> {
    const { data, response } = await publicApi.POST('/auth/refresh', { body: { refreshToken } });
    if (data) return data;
    if (response.status >= 500 || response.status === 429) throw new RequestError(response.status, 'Herald could not refresh your session');
    return null;
  },
});

/** The signed-in user's client: a fresh access token on every request, one refresh and retry after a stale-token 401. */
export const api = createHeraldClient({ baseUrl });
const retries = new WeakMap<Request, Request>();
api.use({
  async onRequest({ request }) {
    const token = await session.accessToken();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    retries.set(request, request.clone());
    return request;
  },
  async onResponse({ request, response }) {
    if (response.status !== 401 || !request.headers.has('authorization')) return response;
    const body = await response.clone().json().catch(() => undefined);
    if (!isSessionError(response.status, body)) return response;
    const retry = retries.get(request);
    if (!retry || !(await session.recover())) return response;
    retry.headers.set('authorization', `Bearer ${await session.accessToken()}`);
    return fetch(retry);
  },
});

/** The success body of an openapi-fetch answer, or a RequestError with the API's message. */
export async function call<T>(promise: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await promise;
  } catch {
    throw new RequestError(0, 'Herald could not be reached. Check your connection and try again.');
  }
  const { data, error, response } = result;
  if (response.ok) return data as T;
  const body = error as Partial<ApiError> | undefined;
  const message = typeof body?.message === 'string' ? body.message : `Herald answered ${response.status} ${response.statusText}`;
  throw new RequestError(response.status, message, body?.details);
}
