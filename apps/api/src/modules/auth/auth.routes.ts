import { AppError } from '@herald/core';
import type { ApiContainer } from '../../container';
import type { Caller } from '../../http/caller';
import { defineRoute, type RouteDefinition } from '../../http/define-route';
import { allLimits, clientIp, perIpAndEmail } from '../../http/rate-limit';
import { createAuthService } from './auth.service';
import {
  changePasswordBody,
  messageResponse,
  refreshBody,
  requestResetBody,
  resetPasswordBody,
  signinBody,
  signupBody,
  tokenResponse,
  userResponse,
} from './auth.schema';

export const SIGNUP_CLOSED = 'Sign-up is closed on this server: accounts are created by accepting an invite';

/**
 * Password checks of an account that is already signed in or proves itself otherwise
 * (change-password, accepting an invite into an existing account) share one bucket per account.
 */
export const PASSWORD_CHECK_LIMITER = 'password-check';
export const passwordCheckKey = (email: string) => `account:${email}`;

export function authRoutes(c: ApiContainer): RouteDefinition[] {
  const auth = createAuthService(c);
  const { limiter } = c;
  const { signupEnabled, rateLimits: limits } = c.config;
  const passwordCheckLimit = limiter({
    name: PASSWORD_CHECK_LIMITER,
    limit: limits.passwordCheck,
    key: (req) => passwordCheckKey((req.res?.locals.caller as Extract<Caller, { type: 'user' }>).email),
  });
  const signupLimit = limiter({ name: 'signup', limit: limits.signup, key: clientIp });
  // Per (IP, e-mail) against guessing one account's password; per IP against one client trying a
  // few passwords on many accounts.
  const signinLimit = allLimits(
    limiter({ name: 'signin', limit: limits.auth, key: perIpAndEmail }),
    limiter({ name: 'signin-ip', limit: limits.signinPerIp, key: clientIp }),
  );
  const resetLimit = limiter({ name: 'password-reset', limit: limits.auth, key: perIpAndEmail });
  const tags = ['Account'];

  return [
    defineRoute(
      { method: 'post', path: '/auth/signup', summary: 'Create an account', tags, auth: 'none', body: signupBody, status: 201, rateLimit: signupLimit, response: userResponse },
      ({ body }) => {
        if (!signupEnabled) throw AppError.forbidden(SIGNUP_CLOSED);
        return auth.signup(body);
      },
    ),
    defineRoute(
      { method: 'post', path: '/auth/signin', summary: 'Sign in', tags, auth: 'none', body: signinBody, rateLimit: signinLimit, response: tokenResponse },
      ({ body }) => auth.signin(body.email, body.password),
    ),
    defineRoute(
      { method: 'post', path: '/auth/refresh', summary: 'Exchange a refresh token for new tokens', tags, auth: 'none', body: refreshBody, response: tokenResponse },
      ({ body }) => auth.refresh(body.refreshToken),
    ),
    defineRoute(
      { method: 'post', path: '/auth/logout', summary: 'Revoke a refresh token and its session', tags, auth: 'none', body: refreshBody, response: messageResponse },
      async ({ body }) => {
        await auth.logout(body.refreshToken);
        return { message: 'Logged out' };
      },
    ),
    defineRoute({ method: 'get', path: '/auth/me', summary: 'The current user', tags, auth: 'jwt', response: userResponse }, ({ caller }) => auth.me(caller.userId)),
    defineRoute(
      {
        method: 'post',
        path: '/auth/request-password-reset',
        summary: 'E-mail a password reset link',
        tags,
        auth: 'none',
        body: requestResetBody,
        rateLimit: resetLimit,
        response: messageResponse,
      },
      ({ body }) => auth.requestPasswordReset(body.email),
    ),
    defineRoute(
      { method: 'post', path: '/auth/reset-password', summary: 'Set a new password with a reset token', tags, auth: 'none', body: resetPasswordBody, response: messageResponse },
      ({ body }) => auth.resetPassword(body.token, body.newPassword),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/auth/change-password',
        summary: 'Change the password',
        tags,
        auth: 'jwt',
        body: changePasswordBody,
        rateLimit: passwordCheckLimit,
        response: messageResponse,
      },
      ({ caller, body }) => auth.changePassword(caller.userId, body.currentPassword, body.newPassword, caller.sessionId),
    ),
  ];
}
