import { createInviteBody } from '@herald/schemas';
import { useState } from 'react';
import { useCancelInvite, useInvite, useInvites, useMe, useRemoveMember, useResendInvite, useTeam, type Schemas } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, type Column, ConfirmButton, DataTable, EmptyState, ErrorNotice, formatDate, FormDialog, Notice, PageHeader, RoleBadges, roleLabel, SelectField, StatusBadge, TextField } from '../components/ui';
import { useSchemaForm } from '../lib/schema-form';

export function TeamPage() {
  const { projectId, isAdmin } = useProjectContext();
  const team = useTeam(projectId);
  const invites = useInvites(projectId);
  const me = useMe();
  const remove = useRemoveMember(projectId);
  const resend = useResendInvite(projectId);
  const cancel = useCancelInvite(projectId);
  const [resent, setResent] = useState<string | null>(null);
  const members: Column<Schemas['TeamMember']>[] = [
    {
      header: 'Name',
      cell: (m) => (
        <>
          <div className="cell-main">
            {m.firstName} {m.lastName}
            {m.userId === me.data?.id && <span className="muted"> (you)</span>}
          </div>
          <div className="cell-sub">{m.email}</div>
        </>
      ),
    },
    { header: 'Role', cell: (m) => <RoleBadges role={m.role} isOwner={m.isOwner} /> },
    { header: 'Joined', hideOnPhone: true, className: 'muted', cell: (m) => formatDate(m.joinedAt) },
    {
      header: 'Actions',
      actions: true,
      cell: (m) =>
        isAdmin &&
        !m.isOwner && (
          <ConfirmButton
            label="Remove"
            ariaLabel={`Remove ${m.email}`}
            title={`Remove ${m.firstName} ${m.lastName}?`}
            description={`${m.email} loses access to this project at once.`}
            confirmLabel="Remove member"
            onConfirm={() => remove.mutateAsync(m.userId)}
          />
        ),
    },
  ];
  const invitations: Column<Schemas['Invite']>[] = [
    {
      header: 'Email',
      cell: (i) => (
        <>
          <div className="cell-main truncate">{i.email}</div>
          <div className="cell-sub show-sm">{roleLabel(i.role)}</div>
        </>
      ),
    },
    { header: 'Role', hideOnPhone: true, cell: (i) => roleLabel(i.role) },
    { header: 'Status', cell: (i) => <StatusBadge status={i.status} /> },
    { header: 'Expires', hideOnPhone: true, className: 'muted', cell: (i) => (i.status === 'pending' ? formatDate(i.expiresAt) : '—') },
    {
      header: 'Actions',
      actions: true,
      cell: (i) =>
        isAdmin &&
        i.status === 'pending' && (
          <div className="actions">
            <Button size="sm" aria-label={`Resend invitation to ${i.email}`} disabled={resend.isPending} onClick={() => resend.mutate(i.id, { onSuccess: () => setResent(i.email) })}>
              Resend
            </Button>
            <ConfirmButton label="Cancel" ariaLabel={`Cancel invitation to ${i.email}`} title="Cancel this invitation?" description={`The link sent to ${i.email} stops working.`} confirmLabel="Cancel invitation" onConfirm={() => cancel.mutateAsync(i.id)} />
          </div>
        ),
    },
  ];
  return (
    <>
      <PageHeader title="Team" description="Project admins manage the team, providers and API keys; team members work with templates, devices and sends." actions={isAdmin ? <InviteButton projectId={projectId} /> : undefined} />
      <div className="stack">
        {!isAdmin && <Notice>Only project admins can invite or remove people.</Notice>}
        <Card title="Members" bodyless>
          <DataTable label="Members" columns={members} rows={team.data} rowKey={(m) => m.userId} loading={team.isLoading} error={team.error} />
        </Card>
        <Card title="Invitations" description="An invitation is valid for 7 days; resending it sends a new link." bodyless>
          <DataTable
            label="Invitations"
            columns={invitations}
            rows={invites.data && [...invites.data].sort((a, b) => b.createdAt.localeCompare(a.createdAt))}
            rowKey={(i) => i.id}
            loading={invites.isLoading}
            error={invites.error}
            notice={
              (resend.error || cancel.error || resent) && (
                <>
                  <ErrorNotice error={resend.error ?? cancel.error} />
                  {resent && !resend.error && <Notice kind="success">A new invitation was sent to {resent}.</Notice>}
                </>
              )
            }
            empty={
              <EmptyState title="No invitations yet" action={isAdmin ? <InviteButton projectId={projectId} /> : undefined}>
                {isAdmin ? 'Invite your teammates by e-mail: they choose their password from the link.' : 'Project admins invite new people by e-mail.'}
              </EmptyState>
            }
          />
        </Card>
      </div>
    </>
  );
}

function InviteButton({ projectId }: { projectId: string }) {
  const invite = useInvite(projectId);
  const form = useSchemaForm(createInviteBody, { email: '', role: 'team_member', projectId }, invite.error);
  return (
    <FormDialog
      trigger="Invite someone"
      title="Invite to the project"
      description="They receive an e-mail with a link to join."
      submitLabel="Send invitation"
      request={invite}
      form={form}
      onSubmit={(close) => form.submit((body) => invite.mutate(body, { onSuccess: close }))}
    >
      <TextField label="Email" type="email" required {...form.field('email')} />
      <SelectField label="Role" hint="Project admins also manage the team, push providers and API keys." {...form.field('role')}>
        <option value="team_member">Team member</option>
        <option value="project_admin">Project admin</option>
      </SelectField>
    </FormDialog>
  );
}
