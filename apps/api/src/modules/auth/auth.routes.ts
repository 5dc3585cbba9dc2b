import { AppError } from '@herald/core';
import type { ApiContainer } from '../../container';
import { defineRoute, type RouteDefinition } from '../../http/define-route';
import { accountSubject } from '../../http/limits';
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

export function authRoutes(c: ApiContainer): RouteDefinition[] {
  const auth = createAuthService(c);
  const { signupEnabled } = c.config;
  const tags = ['Account'];

  return [
    defineRoute(
      // Counted before validation: refused attempts count too.
      { method: 'post', path: '/auth/signup', summary: 'Create an account', tags, auth: 'none', body: signupBody, status: 201, rateLimit: { name: 'signup', per: 'ip' }, response: userResponse },
      ({ body }) => {
        if (!signupEnabled) throw AppError.forbidden(SIGNUP_CLOSED);
        return auth.signup(body);
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/auth/signin',
        summary: 'Sign in',
        tags,
        auth: 'none',
        body: signinBody,
        // Counted once the body is valid, the account's bucket first: what it refuses does not use
        // up the IP's.
        limits: ['signin', 'signin-ip'],
        response: tokenResponse,
      },
      async ({ body, clientIp, limit }) => {
        await limit('signin', `${clientIp}:${body.email}`);
        await limit('signin-ip', clientIp);
        return auth.signin(body.email, body.password);
      },
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
        limits: ['password-reset'],
        response: messageResponse,
      },
      async ({ body, clientIp, limit }) => {
        await limit('password-reset', `${clientIp}:${body.email}`);
        return auth.requestPasswordReset(body.email);
      },
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
        limits: ['password-check'],
        response: messageResponse,
      },
      async ({ caller, body, limit }) => {
        await limit('password-check', accountSubject(caller.email));
        return auth.changePassword(caller.userId, body.currentPassword, body.newPassword, caller.sessionId);
      },
    ),
  ];
}
