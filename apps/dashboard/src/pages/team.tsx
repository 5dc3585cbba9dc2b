import { useState } from 'react';
import { useCancelInvite, useInvite, useInvites, useMe, useRemoveMember, useResendInvite, useTeam, type Role } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, ConfirmButton, EmptyState, ErrorNotice, formatDate, Loading, Modal, Notice, PageHeader, SelectField, StatusBadge, TextField } from '../components/ui';

const roleLabel = (role: string) => (role === 'project_admin' ? 'Project admin' : 'Team member');

export function TeamPage() {
  const { projectId, isAdmin } = useProjectContext();
  const team = useTeam(projectId);
  const invites = useInvites(projectId);
  const me = useMe();
  const remove = useRemoveMember(projectId);
  const resend = useResendInvite(projectId);
  const cancel = useCancelInvite(projectId);
  const [resent, setResent] = useState<string | null>(null);
  return (
    <>
      <PageHeader title="Team" description="Project admins manage the team, providers and API keys; team members work with templates, devices and sends." actions={isAdmin ? <InviteButton projectId={projectId} /> : undefined} />
      <div className="stack">
        {!isAdmin && <Notice>Only project admins can invite or remove people.</Notice>}
        <Card title="Members" bodyless>
          {team.isLoading ? (
            <Loading />
          ) : team.error ? (
            <div className="card-body"><ErrorNotice error={team.error} /></div>
          ) : (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Role</th>
                    <th className="hide-sm">Joined</th>
                    <th><span className="visually-hidden">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  {team.data?.map((m) => (
                    <tr key={m.userId}>
                      <td>
                        <div className="cell-main">{m.firstName} {m.lastName}{m.userId === me.data?.id && <span className="muted"> (you)</span>}</div>
                        <div className="cell-sub">{m.email}</div>
                      </td>
                      <td>
                        <span className={`badge ${m.role === 'project_admin' ? 'badge-info' : ''}`}>{roleLabel(m.role)}</span> {m.isOwner && <span className="badge">Owner</span>}
                      </td>
                      <td className="hide-sm muted">{formatDate(m.joinedAt)}</td>
                      <td className="actions-cell">
                        {isAdmin && !m.isOwner && (
                          <ConfirmButton
                            label="Remove"
                            ariaLabel={`Remove ${m.email}`}
                            title={`Remove ${m.firstName} ${m.lastName}?`}
                            description={`${m.email} loses access to this project at once.`}
                            confirmLabel="Remove member"
                            onConfirm={() => remove.mutateAsync(m.userId)}
                          />
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Card>
        <Card title="Invitations" description="An invitation is valid for 7 days; resending it sends a new link." bodyless>
          {invites.isLoading ? (
            <Loading />
          ) : invites.error ? (
            <div className="card-body"><ErrorNotice error={invites.error} /></div>
          ) : !invites.data?.length ? (
            <EmptyState title="No invitations yet" action={isAdmin ? <InviteButton projectId={projectId} /> : undefined}>
              {isAdmin ? 'Invite your teammates by e-mail: they choose their password from the link.' : 'Project admins invite new people by e-mail.'}
            </EmptyState>
          ) : (
            <>
              {(resend.error || cancel.error || resent) && (
                <div className="card-body stack-sm">
                  <ErrorNotice error={resend.error ?? cancel.error} />
                  {resent && !resend.error && <Notice kind="success">A new invitation was sent to {resent}.</Notice>}
                </div>
              )}
              <div className="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th>Email</th>
                      <th className="hide-sm">Role</th>
                      <th>Status</th>
                      <th className="hide-sm">Expires</th>
                      <th><span className="visually-hidden">Actions</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    {[...invites.data].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).map((i) => (
                      <tr key={i.id}>
                        <td>
                          <div className="cell-main truncate">{i.email}</div>
                          <div className="cell-sub show-sm">{roleLabel(i.role)}</div>
                        </td>
                        <td className="hide-sm">{roleLabel(i.role)}</td>
                        <td><StatusBadge status={i.status} /></td>
                        <td className="hide-sm muted">{i.status === 'pending' ? formatDate(i.expiresAt) : '—'}</td>
                        <td className="actions-cell">
                          {isAdmin && i.status === 'pending' && (
                            <div className="actions">
                              <Button size="sm" aria-label={`Resend invitation to ${i.email}`} disabled={resend.isPending} onClick={() => resend.mutate(i.id, { onSuccess: () => setResent(i.email) })}>
                                Resend
                              </Button>
                              <ConfirmButton label="Cancel" ariaLabel={`Cancel invitation to ${i.email}`} title="Cancel this invitation?" description={`The link sent to ${i.email} stops working.`} confirmLabel="Cancel invitation" onConfirm={() => cancel.mutateAsync(i.id)} />
                            </div>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
        </Card>
      </div>
    </>
  );
}

function InviteButton({ projectId }: { projectId: string }) {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('team_member');
  const invite = useInvite(projectId);
  return (
    <>
      <Button variant="primary" onClick={() => setOpen(true)}>
        Invite someone
      </Button>
      <Modal open={open} onOpenChange={(o) => { setOpen(o); invite.reset(); }} title="Invite to the project" description="They receive an e-mail with a link to join.">
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            invite.mutate({ email, role }, { onSuccess: () => { setOpen(false); setEmail(''); } });
          }}
        >
          <TextField label="Email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)} hint="Project admins also manage the team, push providers and API keys.">
            <option value="team_member">Team member</option>
            <option value="project_admin">Project admin</option>
          </SelectField>
          <ErrorNotice error={invite.error} />
          <div className="dialog-actions">
            <Button onClick={() => setOpen(false)}>Cancel</Button>
            <Button variant="primary" type="submit" disabled={invite.isPending}>
              Send invitation
            </Button>
          </div>
        </form>
      </Modal>
    </>
  );
}
