import { createProjectBody } from '@herald/schemas';
import { Link, useNavigate } from 'react-router';
import { useCreateProject, useDeleteProject, useMe, useProjects, type Schemas } from '../api/hooks';
import { Card, type Column, ConfirmButton, DataTable, EmptyState, formatDate, FormDialog, PageHeader, RoleBadges, TextField } from '../components/ui';
import { useSchemaForm } from '../lib/schema-form';

export function ProjectsPage() {
  const projects = useProjects();
  const me = useMe();
  const canCreate = me.data?.role === 'project_admin';
  const remove = useDeleteProject();
  const columns: Column<Schemas['ProjectMembership']>[] = [
    {
      header: 'Project',
      cell: (p) => (
        <Link to={`/p/${p.id}`} className="cell-main">
          {p.name}
        </Link>
      ),
    },
    { header: 'Your role', cell: (p) => <RoleBadges role={p.role} isOwner={p.isOwner} /> },
    { header: 'Created', hideOnPhone: true, className: 'muted', cell: (p) => formatDate(p.createdAt) },
    {
      header: 'Actions',
      actions: true,
      cell: (p) =>
        p.isOwner && (
          <ConfirmButton
            label="Delete"
            ariaLabel={`Delete project ${p.name}`}
            title={`Delete ${p.name}?`}
            description="Every template, provider, API key, device and notification of the project is deleted. This cannot be undone."
            confirmLabel="Delete project"
            typed={p.name}
            onConfirm={() => remove.mutateAsync(p.id)}
          />
        ),
    },
  ];
  return (
    <main className="main narrow" id="main" style={{ maxWidth: 960 }}>
      <PageHeader title="Projects" description="A project holds its templates, push providers, API keys and team." actions={canCreate ? <CreateProject /> : undefined} />
      <Card bodyless>
        <DataTable
          label="Projects"
          columns={columns}
          rows={projects.data}
          rowKey={(p) => p.id}
          loading={projects.isLoading}
          error={projects.error}
          empty={
            <EmptyState title="No projects yet" action={canCreate ? <CreateProject /> : undefined}>
              {canCreate ? 'Create your first project, then add a push provider and a template to start sending.' : 'Ask a project admin to invite you to a project: the invitation arrives by e-mail.'}
            </EmptyState>
          }
        />
      </Card>
    </main>
  );
}

function CreateProject() {
  const create = useCreateProject();
  const form = useSchemaForm(createProjectBody, { name: '' }, create.error);
  const navigate = useNavigate();
  return (
    <FormDialog
      trigger="New project"
      title="New project"
      description="You will be its owner. You can invite your team afterwards."
      submitLabel="Create project"
      request={create}
      form={form}
      onSubmit={(close) => form.submit((body) => create.mutate(body, { onSuccess: (p) => { close(); navigate(`/p/${p.id}`); } }))}
    >
      <TextField label="Project name" required maxLength={200} placeholder="e.g. Acme mobile app" {...form.field('name')} />
    </FormDialog>
  );
}
