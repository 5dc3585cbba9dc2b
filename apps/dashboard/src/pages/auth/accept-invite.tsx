import { acceptInviteBody, newAccountFields } from '@herald/schemas';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { call, publicApi, session } from '../../api/client';
import { Button, ErrorNotice, Form, Notice, TextField } from '../../components/ui';
import { useSchemaCheck } from '../../lib/schema-form';
import { AuthLayout } from './auth-layout';

/** The invite e-mail's link: /accept-invite?token=… New users create their account here; existing users confirm with their password. */
export function AcceptInvitePage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const token = params.get('token') ?? '';
  const [hasAccount, setHasAccount] = useState(false);
  const [form, setForm] = useState({ firstName: '', lastName: '', password: '' });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const accept = useMutation({
    mutationFn: (body: { token: string; password: string; firstName?: string; lastName?: string }) => call(publicApi.POST('/projects/accept-invite', { body })),
    onSuccess: (r) => {
      qc.clear();
      session.start({ accessToken: r.accessToken, refreshToken: r.refreshToken, expiresIn: r.expiresIn });
      navigate(`/p/${r.projectId}`, { replace: true });
    },
  });
  // Names and the signup password rules apply only to a new account (the API checks them the same way).
  const request = hasAccount ? { token, password: form.password } : { token, ...form };
  const body = useSchemaCheck(acceptInviteBody, request, accept.error);
  const account = useSchemaCheck(newAccountFields, form, accept.error);
  const errors = { ...body.errors, ...(hasAccount ? {} : account.errors) };
  if (!token) {
    return (
      <AuthLayout title="Join a project">
        <Notice kind="warning">This page needs the link from your invitation e-mail. Ask a project admin to resend the invite if the link is lost.</Notice>
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="You are invited to a Herald project" lead="Accept the invitation to join the project's team." foot={<Link to="/signin">Back to sign in</Link>}>
      <fieldset>
        <legend>Do you have a Herald account?</legend>
        <div className="radio-row">
          <label>
            <input type="radio" name="account" checked={!hasAccount} onChange={() => setHasAccount(false)} /> I am new to Herald
          </label>
          <label>
            <input type="radio" name="account" checked={hasAccount} onChange={() => setHasAccount(true)} /> I already have an account
          </label>
        </div>
      </fieldset>
      <Form
        className="stack"
        onSubmit={() => {
          if (hasAccount) body.submit(({ token, password }) => accept.mutate({ token, password }));
          else account.submit((names) => body.submit(({ token }) => accept.mutate({ token, ...names })));
        }}
      >
        {!hasAccount && (
          <div className="grid-2">
            <TextField label="First name" autoComplete="given-name" required value={form.firstName} onChange={set('firstName')} error={errors.firstName} />
            <TextField label="Last name" autoComplete="family-name" required value={form.lastName} onChange={set('lastName')} error={errors.lastName} />
          </div>
        )}
        <TextField
          label={hasAccount ? 'Your password' : 'Choose a password'}
          type="password"
          autoComplete={hasAccount ? 'current-password' : 'new-password'}
          required
          minLength={hasAccount ? undefined : 8}
          hint={hasAccount ? 'The password of the account the invitation was sent to.' : 'At least 8 characters.'}
          value={form.password}
          onChange={set('password')}
          error={errors.password}
        />
        <ErrorNotice error={accept.error} />
        <Button variant="primary" type="submit" disabled={accept.isPending}>
          {hasAccount ? 'Join the project' : 'Create account and join'}
        </Button>
      </Form>
    </AuthLayout>
  );
}
