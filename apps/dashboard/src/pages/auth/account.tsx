import { changePasswordBody } from '@herald/schemas';
import { useMutation } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api, call } from '../../api/client';
import { useMe } from '../../api/hooks';
import { Button, Card, ErrorNotice, Form, Loading, Notice, PageHeader, TextField } from '../../components/ui';
import { useSchemaForm } from '../../lib/schema-form';
import { signIn } from './sign-in';

export function AccountPage() {
  const me = useMe();
  // A password change ends every session of the account, this one included: sign in again with the new password.
  const change = useMutation({
    mutationFn: async (body: { currentPassword: string; newPassword: string }) => {
      await call(api.POST('/auth/change-password', { body }));
      await signIn(me.data!.email, body.newPassword);
    },
  });
  const form = useSchemaForm(changePasswordBody, { currentPassword: '', newPassword: '' }, change.error);
  return (
    <main className="main narrow" id="main">
      <PageHeader title="Your account" />
      <div className="stack">
        <Card title="Profile">
          {me.isLoading ? (
            <Loading />
          ) : me.error ? (
            <ErrorNotice error={me.error} />
          ) : (
            <dl className="grid-2" style={{ margin: 0 }}>
              <Fact label="Name">
                {me.data?.firstName} {me.data?.lastName}
              </Fact>
              <Fact label="Email">{me.data?.email}</Fact>
              <Fact label="Account role">{me.data?.role === 'project_admin' ? 'Project admin (may create projects)' : 'Team member'}</Fact>
            </dl>
          )}
        </Card>
        <Card title="Change password" description="Other devices are signed out when the password changes.">
          <Form
            className="stack"
            onSubmit={() => {
              form.submit((body) => change.mutate(body, { onSuccess: () => form.reset() }));
            }}
          >
            <TextField label="Current password" type="password" autoComplete="current-password" required {...form.field('currentPassword')} />
            <TextField label="New password" type="password" autoComplete="new-password" required minLength={8} hint="At least 8 characters." {...form.field('newPassword')} />
            <ErrorNotice error={change.error} />
            {change.isSuccess && <Notice kind="success">Your password has been changed.</Notice>}
            <div>
              <Button variant="primary" type="submit" disabled={change.isPending}>
                Change password
              </Button>
            </div>
          </Form>
        </Card>
      </div>
    </main>
  );
}

/** One line of the profile: a label over its value. */
function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="stat-label">{label}</dt>
      <dd style={{ margin: 0 }}>{children}</dd>
    </div>
  );
}
