import { requestResetBody, resetPasswordBody } from '@herald/schemas';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { call, publicApi } from '../../api/client';
import { Button, ErrorNotice, Form, Notice, TextField } from '../../components/ui';
import { useSchemaForm } from '../../lib/schema-form';
import { AuthLayout } from './auth-layout';

export function ForgotPasswordPage() {
  const request = useMutation({ mutationFn: (body: { email: string }) => call(publicApi.POST('/auth/request-password-reset', { body })) });
  const form = useSchemaForm(requestResetBody, { email: '' }, request.error);
  return (
    <AuthLayout title="Reset your password" lead="We will e-mail you a link to choose a new password." foot={<Link to="/signin">Back to sign in</Link>}>
      {request.isSuccess ? (
        <Notice kind="success">If an account exists for {request.variables.email}, a reset link is on its way. The link is valid for one hour.</Notice>
      ) : (
        <Form
          className="stack"
          onSubmit={() => {
            form.submit((body) => request.mutate(body));
          }}
        >
          <TextField label="Email" type="email" autoComplete="email" required {...form.field('email')} />
          <ErrorNotice error={request.error} />
          <Button variant="primary" type="submit" disabled={request.isPending}>
            Send reset link
          </Button>
        </Form>
      )}
    </AuthLayout>
  );
}

/** The reset e-mail's link: /reset-password?token=… */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const token = params.get('token') ?? '';
  const [confirm, setConfirm] = useState('');
  const reset = useMutation({
    mutationFn: (body: { token: string; newPassword: string }) => call(publicApi.POST('/auth/reset-password', { body })),
    onSuccess: () => navigate('/signin?reset=1', { replace: true }),
  });
  const form = useSchemaForm(resetPasswordBody, { token, newPassword: '' }, reset.error);
  const mismatch = confirm.length > 0 && confirm !== form.values.newPassword;
  return (
    <AuthLayout title="Choose a new password" lead="Signing in again will be needed on every device." foot={<Link to="/signin">Back to sign in</Link>}>
      {!token ? (
        <Notice kind="warning">
          This page needs the link from your reset e-mail. <Link to="/forgot-password">Ask for a new link</Link>.
        </Notice>
      ) : (
        <Form
          className="stack"
          onSubmit={() => {
            if (!mismatch) form.submit((body) => reset.mutate(body));
          }}
        >
          <TextField label="New password" type="password" autoComplete="new-password" required minLength={8} hint="At least 8 characters." {...form.field('newPassword')} />
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
        </Form>
      )}
    </AuthLayout>
  );
}
