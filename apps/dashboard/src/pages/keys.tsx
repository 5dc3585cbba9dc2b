import { useState } from 'react';
import { API_KEY_SCOPES, createKeyBody, type ApiKeyScope } from '@herald/schemas';
import { useApiKeys, useCreateApiKey, useDeleteApiKey, useUpdateApiKey, type Schemas } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, type Column, ConfirmButton, DataTable, EmptyState, ErrorNotice, formatDate, FormDialog, Notice, OnceSecret, PageHeader, StatusBadge, Switch, TextField } from '../components/ui';
import { useSchemaForm } from '../lib/schema-form';

export function ApiKeysPage() {
  const { projectId, isAdmin } = useProjectContext();
  const keys = useApiKeys(projectId, isAdmin);
  const update = useUpdateApiKey(projectId);
  const remove = useDeleteApiKey(projectId);
  const columns: Column<Schemas['ApiKey']>[] = [
    {
      header: 'Name',
      cell: (k) => (
        <>
          <div className="cell-main">{k.name}</div>
          <code className="cell-sub show-sm">{k.prefix}…</code>
        </>
      ),
    },
    { header: 'Key', hideOnPhone: true, cell: (k) => <code>{k.prefix}…</code> },
    {
      header: 'Status',
      cell: (k) => (
        <span className="row" style={{ gap: 8, flexWrap: 'nowrap' }}>
          <Switch label={`${k.enabled ? 'Disable' : 'Enable'} key ${k.name}`} checked={k.enabled} disabled={update.isPending} onCheckedChange={(enabled) => update.mutate({ keyId: k.id, enabled })} />
          <span className="hide-sm"><StatusBadge status={k.enabled ? 'enabled' : 'disabled'} /></span>
        </span>
      ),
    },
    { header: 'Scopes', hideOnPhone: true, className: 'muted', cell: (k) => scopesLabel(k.scopes) },
    { header: 'Expires', hideOnPhone: true, className: 'muted', cell: (k) => (k.expiresAt ? formatDate(k.expiresAt) : 'Never') },
    { header: 'Last used', hideOnPhone: true, className: 'muted', cell: (k) => (k.lastUsedAt ? formatDate(k.lastUsedAt) : 'Never') },
    { header: 'Created', hideOnPhone: true, className: 'muted', cell: (k) => formatDate(k.createdAt) },
    {
      header: 'Actions',
      actions: true,
      cell: (k) => <ConfirmButton label="Delete" ariaLabel={`Delete key ${k.name}`} title={`Delete ${k.name}?`} description="Requests with this key are refused from now on. This cannot be undone." confirmLabel="Delete key" onConfirm={() => remove.mutateAsync(k.id)} />,
    },
  ];
  return (
    <>
      <PageHeader
        title="API keys"
        description="Your backend sends pushes and registers devices with a key (header x-api-key). Keep keys on servers only; use one per environment."
        actions={isAdmin ? <CreateKey projectId={projectId} /> : undefined}
      />
      {!isAdmin ? (
        <Notice>Only project admins can see and manage API keys. Ask one of them for a key.</Notice>
      ) : (
        <Card bodyless>
          <DataTable
            label="API keys"
            columns={columns}
            rows={keys.data}
            rowKey={(k) => k.id}
            loading={keys.isLoading}
            error={keys.error}
            notice={(update.error || remove.error) && <ErrorNotice error={update.error ?? remove.error} />}
            empty={
              <EmptyState title="No API keys yet" action={<CreateKey projectId={projectId} />}>
                Create a key for your backend to register devices and send notifications.
              </EmptyState>
            }
          />
        </Card>
      )}
    </>
  );
}

const scopesLabel = (scopes: readonly string[]) => (scopes.length === API_KEY_SCOPES.length ? 'All' : scopes.join(', '));

function CreateKey({ projectId }: { projectId: string }) {
  const create = useCreateApiKey(projectId);
  const form = useSchemaForm(createKeyBody, { name: '', scopes: [...API_KEY_SCOPES] }, create.error);
  // The browser's local date and time; sent as an ISO 8601 instant.
  const [expiry, setExpiry] = useState('');
  const scopes = (form.values.scopes ?? []) as ApiKeyScope[];
  const toggle = (scope: ApiKeyScope, on: boolean) => form.set('scopes', on ? [...scopes, scope] : scopes.filter((s) => s !== scope));
  return (
    <FormDialog
      trigger="Create API key"
      title={create.data ? 'Your new API key' : 'Create an API key'}
      description={create.data ? undefined : 'Name it after where it will be used, e.g. "production backend".'}
      wide
      submitLabel="Create key"
      request={create}
      form={form}
      onSubmit={() => form.submit((body) => create.mutate(body), { expiresAt: expiry ? new Date(expiry).toISOString() : undefined })}
      result={
        create.data &&
        ((close) => (
          <div className="stack">
            <OnceSecret label={`API key ${create.data.name}`} value={create.data.key} />
            <div className="dialog-actions">
              <Button variant="primary" onClick={close}>
                I have copied the key
              </Button>
            </div>
          </div>
        ))
      }
    >
      <TextField label="Key name" required maxLength={100} {...form.field('name')} />
      <fieldset className="field">
        <legend>Scopes: what the key may do</legend>
        {API_KEY_SCOPES.map((scope) => (
          <label key={scope} className="row" style={{ gap: 8 }}>
            <input type="checkbox" checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
            <code>{scope}</code>
          </label>
        ))}
        {form.errors.scopes && <div className="field-error">{form.errors.scopes}</div>}
      </fieldset>
      <TextField label="Expires (optional)" type="datetime-local" value={expiry} onChange={(e) => setExpiry(e.target.value)} error={form.errors.expiresAt} />
    </FormDialog>
  );
}
