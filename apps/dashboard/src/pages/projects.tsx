import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useCreateProject, useDeleteProject, useMe, useProjects } from '../api/hooks';
import { Button, Card, ConfirmButton, EmptyState, ErrorNotice, formatDate, Loading, Modal, PageHeader, TextField } from '../components/ui';

const roleLabel = (role: string) => (role === 'project_admin' ? 'Project admin' : 'Team member');

export function ProjectsPage() {
  const projects = useProjects();
  const me = useMe();
  const canCreate = me.data?.role === 'project_admin';
  const remove = useDeleteProject();
  return (
    <main className="main narrow" id="main" style={{ maxWidth: 960 }}>
      <PageHeader
        title="Projects"
        description="A project holds its templates, push providers, API keys and team."
        actions={canCreate ? <CreateProject /> : undefined}
      />
      <Card bodyless>
        {projects.isLoading ? (
          <Loading />
        ) : projects.error ? (
          <div className="card-body">
            <ErrorNotice error={projects.error} />
          </div>
        ) : !projects.data?.length ? (
          <EmptyState title="No projects yet" action={canCreate ? <CreateProject /> : undefined}>
            {canCreate ? 'Create your first project, then add a push provider and a template to start sending.' : 'Ask a project admin to invite you to a project: the invitation arrives by e-mail.'}
          </EmptyState>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Project</th>
                  <th>Your role</th>
                  <th className="hide-sm">Created</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {projects.data.map((p) => (
                  <tr key={p.id}>
                    <td>
                      <Link to={`/p/${p.id}`} className="cell-main">
                        {p.name}
                      </Link>
                    </td>
                    <td>
                      <span className={`badge ${p.role === 'project_admin' ? 'badge-info' : ''}`}>{roleLabel(p.role)}</span> {p.isOwner && <span className="badge">Owner</span>}
                    </td>
                    <td className="hide-sm muted">{formatDate(p.createdAt)}</td>
                    <td className="actions-cell">
                      {p.isOwner && (
                        <ConfirmButton
                          label="Delete"
                          ariaLabel={`Delete project ${p.name}`}
                          title={`Delete ${p.name}?`}
                          description="Every template, provider, API key, device and notification of the project is deleted. This cannot be undone."
                          confirmLabel="Delete project"
                          typed={p.name}
                          onConfirm={() => remove.mutateAsync(p.id)}
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
    </main>
  );
}

function CreateProject() {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const create = useCreateProject();
  const navigate = useNavigate();
  return (
    <>
      <Button variant="primary" onClick={() => setOpen(true)}>
        New project
      </Button>
      <Modal open={open} onOpenChange={(o) => { setOpen(o); create.reset(); }} title="New project" description="You will be its owner. You can invite your team afterwards.">
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate(name.trim(), { onSuccess: (p) => { setOpen(false); setName(''); navigate(`/p/${p.id}`); } });
          }}
        >
          <TextField label="Project name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. Acme mobile app" />
          <ErrorNotice error={create.error} />
          <div className="dialog-actions">
            <Button onClick={() => setOpen(false)}>Cancel</Button>
            <Button variant="primary" type="submit" disabled={create.isPending}>
              Create project
            </Button>
          </div>
        </form>
      </Modal>
    </>
  );
}
