import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { call, publicApi } from '../../api/client';
import { Button, ErrorNotice, Notice, TextField } from '../../components/ui';
import { AuthLayout } from './auth-layout';

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const request = useMutation({ mutationFn: () => call(publicApi.POST('/auth/request-password-reset', { body: { email } })) });
  return (
    <AuthLayout title="Reset your password" lead="We will e-mail you a link to choose a new password." foot={<Link to="/signin">Back to sign in</Link>}>
      {request.isSuccess ? (
        <Notice kind="success">If an account exists for {email}, a reset link is on its way. The link is valid for one hour.</Notice>
      ) : (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            request.mutate();
          }}
        >
          <TextField label="Email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <ErrorNotice error={request.error} />
          <Button variant="primary" type="submit" disabled={request.isPending}>
            Send reset link
          </Button>
        </form>
      )}
    </AuthLayout>
  );
}

/** The reset e-mail's link: /reset-password?token=… */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const reset = useMutation({
    mutationFn: () => call(publicApi.POST('/auth/reset-password', { body: { token, newPassword: password } })),
    onSuccess: () => navigate('/signin?reset=1', { replace: true }),
  });
  const mismatch = confirm.length > 0 && confirm !== password;
  return (
    <AuthLayout title="Choose a new password" lead="Signing in again will be needed on every device." foot={<Link to="/signin">Back to sign in</Link>}>
      {!token ? (
        <Notice kind="warning">
          This page needs the link from your reset e-mail. <Link to="/forgot-password">Ask for a new link</Link>.
        </Notice>
      ) : (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            if (!mismatch) reset.mutate();
          }}
        >
          <TextField label="New password" type="password" autoComplete="new-password" required minLength={8} hint="At least 8 characters." value={password} onChange={(e) => setPassword(e.target.value)} />
          <TextField label="Repeat the new password" type="password" autoComplete="new-password" required value={confirm} onChange={(e) => setConfirm(e.target.value)} error={mismatch ? 'The passwords differ.' : undefined} />
          <ErrorNotice error={reset.error} />
          {reset.error && (
            <p className="small">
              <Link to="/forgot-password">Ask for a new reset link</Link>
            </p>
          )}
          <Button variant="primary" type="submit" disabled={reset.isPending || mismatch}>
            Set new password
          </Button>
        </form>
      )}
    </AuthLayout>
  );
}
