import { changePasswordBody } from '@herald/schemas';
import { useMutation } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { useMe } from '../../api/hooks';
import { Button, Card, ErrorNotice, Loading, Notice, PageHeader, TextField } from '../../components/ui';
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
              <div>
                <dt className="stat-label">Name</dt>
                <dd style={{ margin: 0 }}>
                  {me.data?.firstName} {me.data?.lastName}
                </dd>
              </div>
              <div>
                <dt className="stat-label">Email</dt>
                <dd style={{ margin: 0 }}>{me.data?.email}</dd>
              </div>
              <div>
                <dt className="stat-label">Account role</dt>
                <dd style={{ margin: 0 }}>{me.data?.role === 'project_admin' ? 'Project admin (may create projects)' : 'Team member'}</dd>
              </div>
            </dl>
          )}
        </Card>
        <Card title="Change password" description="Other devices are signed out when the password changes.">
          <form
            className="stack"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
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
          </form>
        </Card>
      </div>
    </main>
  );
}
