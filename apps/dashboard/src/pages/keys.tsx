import { useEffect, useState } from 'react';
import { API_KEY_SCOPES, createKeyBody, updateKeyBody, type ApiKeyScope } from '@herald/schemas';
import { useApiKeys, useCreateApiKey, useDeleteApiKey, useUpdateApiKey, type Schemas } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, type Column, ConfirmButton, DataTable, EmptyState, ErrorNotice, formatDate, FormDialog, Notice, OnceSecret, PageHeader, StatusBadge, Switch, TextField } from '../components/ui';
import { useSchemaCheck, useSchemaForm } from '../lib/schema-form';

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
          <div className="cell-sub show-sm">{k.scopes.length === API_KEY_SCOPES.length ? 'All scopes' : `${k.scopes.length} of ${API_KEY_SCOPES.length} scopes`}</div>
          <div className="cell-sub show-sm">{k.expiresAt ? `Expires ${formatDate(k.expiresAt)}` : 'Never expires'}</div>
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
      cell: (k) => (
        <div className="actions">
          <EditKey projectId={projectId} apiKey={k} />
          <ConfirmButton label="Delete" ariaLabel={`Delete key ${k.name}`} title={`Delete ${k.name}?`} description="Requests with this key are refused from now on. This cannot be undone." confirmLabel="Delete key" onConfirm={() => remove.mutateAsync(k.id)} />
        </div>
      ),
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

/** A datetime-local field's value for an instant: the browser's local date and time, to the minute. */
const localInput = (iso: string | null) => {
  if (!iso) return '';
  const at = new Date(iso);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** The instant a datetime-local value names, as the API reads it (ISO 8601); empty when the field is. */
const instant = (local: string) => (local ? new Date(local).toISOString() : '');

/** The scopes as checkboxes, one per scope, each labelled with the scope's name. */
function ScopesField({ scopes, onChange, error }: { scopes: readonly ApiKeyScope[]; onChange: (scopes: ApiKeyScope[]) => void; error?: string }) {
  const toggle = (scope: ApiKeyScope, on: boolean) => onChange(on ? [...scopes, scope] : scopes.filter((s) => s !== scope));
  return (
    <fieldset className="field">
      <legend>Scopes: what the key may do</legend>
      {API_KEY_SCOPES.map((scope) => (
        <label key={scope} className="row" style={{ gap: 8 }}>
          <input type="checkbox" checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
          <code>{scope}</code>
        </label>
      ))}
      {error && <div className="field-error">{error}</div>}
    </fieldset>
  );
}

/**
 * A key's scopes and expiry, changed in place (the key itself stays the same). Only what changed is
 * sent, so that a key whose expiry has passed can still have its scopes changed.
 */
function EditKey({ projectId, apiKey }: { projectId: string; apiKey: Schemas['ApiKey'] }) {
  const update = useUpdateApiKey(projectId);
  const [scopes, setScopes] = useState<ApiKeyScope[]>(apiKey.scopes);
  const [never, setNever] = useState(apiKey.expiresAt === null);
  const [expiry, setExpiry] = useState(localInput(apiKey.expiresAt));
  const expiryChanged = never ? apiKey.expiresAt !== null : apiKey.expiresAt === null || expiry !== localInput(apiKey.expiresAt);
  const scopesChanged = scopes.length !== apiKey.scopes.length || scopes.some((s) => !apiKey.scopes.includes(s));
  const request = { ...(scopesChanged || !expiryChanged ? { scopes } : {}), ...(expiryChanged ? { expiresAt: never ? null : instant(expiry) } : {}) };
  const check = useSchemaCheck(updateKeyBody, request, update.error);
  const reset = () => {
    setScopes(apiKey.scopes);
    setNever(apiKey.expiresAt === null);
    setExpiry(localInput(apiKey.expiresAt));
    check.reset();
  };
  // A saved change comes back in the list: the next opening starts from it.
  useEffect(reset, [apiKey.scopes.join(), apiKey.expiresAt]);
  const submit = (close: () => void) =>
    check.submit((body) => {
      if (!scopesChanged && !expiryChanged) close();
      else update.mutate({ keyId: apiKey.id, ...body }, { onSuccess: close });
    });
  return (
    <FormDialog
      trigger="Edit"
      triggerVariant="secondary"
      triggerSize="sm"
      triggerAriaLabel={`Edit key ${apiKey.name}`}
      title={`Edit ${apiKey.name}`}
      description="The key stays the same: requests with it follow the new scopes and expiry at once."
      wide
      submitLabel="Save key"
      request={update}
      form={{ reset }}
      onSubmit={submit}
    >
      <ScopesField scopes={scopes} onChange={setScopes} error={check.errors.scopes} />
      <fieldset className="field">
        <legend>Expiry</legend>
        <label className="check-row">
          <input type="checkbox" checked={never} onChange={(e) => setNever(e.target.checked)} /> Never expires
        </label>
        {!never && <TextField label="Expires" type="datetime-local" required value={expiry} onChange={(e) => setExpiry(e.target.value)} error={check.errors.expiresAt} hint="Your local date and time. From then on the key is refused." />}
        {never && check.errors.expiresAt && <div className="field-error">{check.errors.expiresAt}</div>}
      </fieldset>
    </FormDialog>
  );
}

function CreateKey({ projectId }: { projectId: string }) {
  const create = useCreateApiKey(projectId);
  const form = useSchemaForm(createKeyBody, { name: '', scopes: [...API_KEY_SCOPES] }, create.error);
  const [expiry, setExpiry] = useState('');
  const scopes = (form.values.scopes ?? []) as ApiKeyScope[];
  return (
    <FormDialog
      trigger="Create API key"
      title={create.data ? 'Your new API key' : 'Create an API key'}
      description={create.data ? undefined : 'Name it after where it will be used, e.g. "production backend".'}
      wide
      submitLabel="Create key"
      request={create}
      form={form}
      onSubmit={() => form.submit((body) => create.mutate(body), { expiresAt: instant(expiry) || undefined })}
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
      <ScopesField scopes={scopes} onChange={(next) => form.set('scopes', next)} error={form.errors.scopes} />
      <TextField label="Expires (optional)" type="datetime-local" value={expiry} onChange={(e) => setExpiry(e.target.value)} error={form.errors.expiresAt} hint="Your local date and time. Empty: the key never expires." />
    </FormDialog>
  );
}
