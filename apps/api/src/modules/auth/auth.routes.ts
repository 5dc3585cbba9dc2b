import type { LimiterFactory } from '../../http/rate-limit';
import { clientIp, perIpAndEmail } from '../../http/rate-limit';
import { defineRoute } from '../../http/define-route';
import type { AuthService } from './auth.service';
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

export function authRoutes(auth: AuthService, limiter: LimiterFactory, limits: { auth: number; signup: number }) {
  const signupLimit = limiter({ name: 'signup', limit: limits.signup, key: clientIp });
  const signinLimit = limiter({ name: 'signin', limit: limits.auth, key: perIpAndEmail });
  const resetLimit = limiter({ name: 'password-reset', limit: limits.auth, key: perIpAndEmail });
  const tags = ['Account'];

  return [
    defineRoute(
      { method: 'post', path: '/auth/signup', summary: 'Create an account', tags, auth: 'none', body: signupBody, status: 201, rateLimit: signupLimit, response: userResponse },
      ({ body }) => auth.signup(body),
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
      { method: 'post', path: '/auth/change-password', summary: 'Change the password', tags, auth: 'jwt', body: changePasswordBody, response: messageResponse },
      ({ caller, body }) => auth.changePassword(caller.userId, body.currentPassword, body.newPassword),
    ),
  ];
}
