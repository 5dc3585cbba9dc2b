import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api, call } from '../../api/client';
import { useMe } from '../../api/hooks';
import { signIn } from './sign-in';
import { Button, Card, ErrorNotice, Loading, Notice, PageHeader, TextField } from '../../components/ui';

export function AccountPage() {
  const me = useMe();
  const [form, setForm] = useState({ currentPassword: '', newPassword: '' });
  // A password change ends every session of the account, this one included: sign in again with the new password.
  const change = useMutation({
    mutationFn: async (body: typeof form) => {
      await call(api.POST('/auth/change-password', { body }));
      await signIn(me.data!.email, body.newPassword);
    },
  });
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
            onSubmit={(e) => {
              e.preventDefault();
              change.mutate(form, { onSuccess: () => setForm({ currentPassword: '', newPassword: '' }) });
            }}
          >
            <TextField label="Current password" type="password" autoComplete="current-password" required value={form.currentPassword} onChange={(e) => setForm({ ...form, currentPassword: e.target.value })} />
            <TextField label="New password" type="password" autoComplete="new-password" required minLength={8} hint="At least 8 characters." value={form.newPassword} onChange={(e) => setForm({ ...form, newPassword: e.target.value })} />
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
