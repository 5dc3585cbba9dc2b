import { useState } from 'react';
import { useApiKeys, useCreateApiKey, useDeleteApiKey, useUpdateApiKey, type Schemas } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, ConfirmButton, EmptyState, ErrorNotice, formatDate, Loading, Modal, Notice, OnceSecret, PageHeader, StatusBadge, Switch, TextField } from '../components/ui';

export function ApiKeysPage() {
  const { projectId, isAdmin } = useProjectContext();
  const keys = useApiKeys(projectId, isAdmin);
  const update = useUpdateApiKey(projectId);
  const remove = useDeleteApiKey(projectId);
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
          {keys.isLoading ? (
            <Loading />
          ) : keys.error ? (
            <div className="card-body"><ErrorNotice error={keys.error} /></div>
          ) : !keys.data?.length ? (
            <EmptyState title="No API keys yet" action={<CreateKey projectId={projectId} />}>
              Create a key for your backend to register devices and send notifications.
            </EmptyState>
          ) : (
            <>
              {(update.error || remove.error) && <div className="card-body"><ErrorNotice error={update.error ?? remove.error} /></div>}
              <div className="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th>Name</th>
                      <th className="hide-sm">Key</th>
                      <th>Status</th>
                      <th className="hide-sm">Last used</th>
                      <th className="hide-sm">Created</th>
                      <th><span className="visually-hidden">Actions</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    {keys.data.map((k: Schemas['ApiKey']) => (
                      <tr key={k.id}>
                        <td>
                          <div className="cell-main">{k.name}</div>
                          <code className="cell-sub show-sm">{k.prefix}…</code>
                        </td>
                        <td className="hide-sm"><code>{k.prefix}…</code></td>
                        <td>
                          <span className="row" style={{ gap: 8, flexWrap: 'nowrap' }}>
                            <Switch label={`${k.enabled ? 'Disable' : 'Enable'} key ${k.name}`} checked={k.enabled} disabled={update.isPending} onCheckedChange={(enabled) => update.mutate({ keyId: k.id, enabled })} />
                            <span className="hide-sm"><StatusBadge status={k.enabled ? 'enabled' : 'disabled'} /></span>
                          </span>
                        </td>
                        <td className="hide-sm muted">{k.lastUsedAt ? formatDate(k.lastUsedAt) : 'Never'}</td>
                        <td className="hide-sm muted">{formatDate(k.createdAt)}</td>
                        <td className="actions-cell">
                          <ConfirmButton label="Delete" ariaLabel={`Delete key ${k.name}`} title={`Delete ${k.name}?`} description="Requests with this key are refused from now on. This cannot be undone." confirmLabel="Delete key" onConfirm={() => remove.mutateAsync(k.id)} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
        </Card>
      )}
    </>
  );
}

function CreateKey({ projectId }: { projectId: string }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const create = useCreateApiKey(projectId);
  const close = (o: boolean) => {
    setOpen(o);
    if (!o) {
      create.reset();
      setName('');
    }
  };
  return (
    <>
      <Button variant="primary" onClick={() => setOpen(true)}>
        Create API key
      </Button>
      <Modal open={open} onOpenChange={close} title={create.data ? 'Your new API key' : 'Create an API key'} description={create.data ? undefined : 'Name it after where it will be used, e.g. "production backend".'} wide>
        {create.data ? (
          <div className="stack">
            <OnceSecret label={`API key ${create.data.name}`} value={create.data.key} />
            <div className="dialog-actions">
              <Button variant="primary" onClick={() => close(false)}>
                I have copied the key
              </Button>
            </div>
          </div>
        ) : (
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              create.mutate(name.trim());
            }}
          >
            <TextField label="Key name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
            <ErrorNotice error={create.error} />
            <div className="dialog-actions">
              <Button onClick={() => close(false)}>Cancel</Button>
              <Button variant="primary" type="submit" disabled={create.isPending}>
                Create key
              </Button>
            </div>
          </form>
        )}
      </Modal>
    </>
  );
}
