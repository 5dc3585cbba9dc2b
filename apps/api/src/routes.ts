import type { ApiContainer } from './container';
import type { RouteDefinition } from './http/define-route';
import { authRoutes } from './modules/auth/auth.routes';

/** Every route of the API, in mounting order (static paths before parameterised ones). */
export function apiRoutes(c: ApiContainer): RouteDefinition[] {
  return [...authRoutes(c.auth, c.limiter, c.config.rateLimits)];
}
