import { createProviderBody } from '@herald/schemas';
import { useState, type DragEvent } from 'react';
import { testProvider, useAddProvider, useCreatePushConfig, useDeleteProvider, useProviders, usePushConfig, useSetPriorities, useSetPushEnabled, useUpdateProvider, type Schemas } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, type Column, ConfirmButton, DataTable, EmptyState, ErrorNotice, FileField, FormDialog, Loading, Notice, PageHeader, StatusBadge, Switch, TextArea, TextField } from '../components/ui';
import { useSchemaForm } from '../lib/schema-form';
import { parseServiceAccount, type FcmConfig } from '../lib/service-account';

type Provider = Schemas['Provider'];

/** The new order as the bulk priorities body: 1, 2, 3… in list order. */
const priorities = (list: Provider[]) => list.map((p, i) => ({ id: p.id, priority: i + 1 }));

export function ProvidersPage() {
  const { projectId, isAdmin } = useProjectContext();
  const config = usePushConfig(projectId);
  const providers = useProviders(projectId);
  const createConfig = useCreatePushConfig(projectId);
  const setEnabled = useSetPushEnabled(projectId);
  const update = useUpdateProvider(projectId);
  const remove = useDeleteProvider(projectId);
  const reorder = useSetPriorities(projectId);
  const [tests, setTests] = useState<Record<string, { ok: boolean; error?: string } | 'running'>>({});
  const [dragged, setDragged] = useState<string | null>(null);
  const list = providers.data ?? [];

  const move = (from: number, to: number) => {
    if (to < 0 || to >= list.length || from === to) return;
    const next = [...list];
    const [item] = next.splice(from, 1);
    next.splice(to, 0, item);
    reorder.mutate(priorities(next));
  };
  const runTest = async (id: string) => {
    setTests((t) => ({ ...t, [id]: 'running' }));
    try {
      const r = await testProvider(id);
      setTests((t) => ({ ...t, [id]: r }));
    } catch (e) {
      setTests((t) => ({ ...t, [id]: { ok: false, error: (e as Error).message } }));
    }
  };
  const onDrop = (e: DragEvent, to: number) => {
    e.preventDefault();
    const from = list.findIndex((p) => p.id === dragged);
    setDragged(null);
    if (from >= 0) move(from, to);
  };

  const actions = (p: Provider) => {
    const test = tests[p.id];
    return (
      isAdmin && (
        <div className="actions">
          <Button size="sm" aria-label={`Test ${p.name}`} disabled={test === 'running'} onClick={() => void runTest(p.id)}>
            {test === 'running' ? 'Testing…' : 'Test'}
          </Button>
          <ConfirmButton label="Delete" ariaLabel={`Delete ${p.name}`} title={`Delete ${p.name}?`} description="Its stored credentials are deleted. Sends use the remaining providers." confirmLabel="Delete provider" onConfirm={() => remove.mutateAsync(p.id)} />
        </div>
      )
    );
  };
  const columns: Column<Provider>[] = [
    {
      header: 'Order',
      cell: (p, i) => (
        <div className="row" style={{ gap: 4, flexWrap: 'nowrap' }}>
          <span className="badge">{p.priority}</span>
          {isAdmin && (
            <>
              <Button size="sm" className="btn-icon" aria-label={`Move ${p.name} up`} disabled={i === 0 || reorder.isPending} onClick={() => move(i, i - 1)}>↑</Button>
              <Button size="sm" className="btn-icon" aria-label={`Move ${p.name} down`} disabled={i === list.length - 1 || reorder.isPending} onClick={() => move(i, i + 1)}>↓</Button>
            </>
          )}
        </div>
      ),
    },
    {
      header: 'Provider',
      cell: (p) => {
        const test = tests[p.id];
        return (
          <>
            <div className="cell-main">{p.name}</div>
            <div className="cell-sub truncate">{String(p.config.projectId)} · {String(p.config.clientEmail)}</div>
            {test && test !== 'running' && (
              <div className="small" role="status" style={{ color: test.ok ? 'var(--success)' : 'var(--danger)' }}>
                {test.ok ? 'Credentials accepted by Google.' : `Credentials rejected: ${test.error ?? 'unknown error'}`}
              </div>
            )}
            {isAdmin && <div className="show-sm" style={{ marginTop: 6 }}>{actions(p)}</div>}
          </>
        );
      },
    },
    { header: 'Private key', hideOnPhone: true, cell: (p) => <code>{String(p.config.privateKey)}</code> },
    { header: 'Enabled', cell: (p) => <Switch label={`${p.name} enabled`} checked={p.enabled} disabled={!isAdmin || update.isPending} onCheckedChange={(enabled) => update.mutate({ id: p.id, enabled })} /> },
    { header: 'Actions', actions: true, hideOnPhone: true, cell: actions },
  ];

  return (
    <>
      <PageHeader
        title="Push providers"
        description="Herald delivers through your Firebase Cloud Messaging service accounts, in priority order: when one fails, the next takes over."
        actions={isAdmin && config.data ? <AddProvider projectId={projectId} nextPriority={list.length + 1} /> : undefined}
      />
      <div className="stack">
        {!isAdmin && <Notice>Only project admins can change push settings and providers.</Notice>}
        <Card title="Push notifications" description="When push is off, sends are refused with a clear error; nothing is queued.">
          {config.isLoading ? (
            <Loading />
          ) : config.error ? (
            <ErrorNotice error={config.error} />
          ) : !config.data ? (
            <div className="stack-sm">
              <p>Push is not set up for this project yet.</p>
              <div>
                <Button variant="primary" disabled={!isAdmin || createConfig.isPending} onClick={() => createConfig.mutate()}>
                  Set up push
                </Button>
              </div>
              <ErrorNotice error={createConfig.error} />
            </div>
          ) : (
            <div className="stack-sm">
              <div className="row">
                <Switch label="Push notifications enabled" showLabel checked={config.data.enabled} disabled={!isAdmin || setEnabled.isPending} onCheckedChange={(v) => setEnabled.mutate(v)} />
                <StatusBadge status={config.data.enabled ? 'enabled' : 'disabled'} />
              </div>
              <ErrorNotice error={setEnabled.error} />
            </div>
          )}
        </Card>
        {config.data && (
          <Card title="Providers" description={isAdmin ? 'Drag a row, or use the arrows, to change the failover order.' : undefined} bodyless>
            <DataTable
              label="Providers, in failover order"
              columns={columns}
              rows={list}
              rowKey={(p) => p.id}
              loading={providers.isLoading}
              error={providers.error}
              notice={(reorder.error || update.error || remove.error) && <ErrorNotice error={reorder.error ?? update.error ?? remove.error} />}
              rowProps={(p, i) => ({
                draggable: isAdmin,
                className: dragged === p.id ? 'dragging' : undefined,
                onDragStart: () => setDragged(p.id),
                onDragOver: (e) => isAdmin && e.preventDefault(),
                onDrop: (e) => onDrop(e, i),
                onDragEnd: () => setDragged(null),
              })}
              empty={
                <EmptyState title="No providers yet" action={isAdmin ? <AddProvider projectId={projectId} nextPriority={1} /> : undefined}>
                  Add a provider to start sending: upload the service-account key of your Firebase project.
                </EmptyState>
              }
            />
          </Card>
        )}
      </div>
    </>
  );
}

/** The body of the API's add-provider route, for the one provider type the dashboard sets up. */
const fcmProviderBody = createProviderBody(['fcm']);

function AddProvider({ projectId, nextPriority }: { projectId: string; nextPriority: number }) {
  const [text, setText] = useState('');
  const [parsed, setParsed] = useState<FcmConfig | null>(null);
  const [parseError, setParseError] = useState<string | null>(null);
  const add = useAddProvider(projectId);
  const form = useSchemaForm(fcmProviderBody, { provider: 'fcm', name: '', priority: nextPriority, config: undefined }, add.error);
  const read = (json: string) => {
    setText(json);
    if (!json.trim()) return void (setParsed(null), setParseError(null));
    const r = parseServiceAccount(json);
    if (r.ok) {
      setParsed(r.config);
      setParseError(null);
      if (!form.values.name) form.set('name', r.name);
    } else {
      setParsed(null);
      setParseError(r.error);
    }
  };
  return (
    <FormDialog
      trigger="Add FCM provider"
      title="Add an FCM provider"
      description="In the Firebase console: Project settings → Service accounts → Generate new private key. Upload that file or paste its content."
      wide
      submitLabel="Add provider"
      request={add}
      form={form}
      canSubmit={!!parsed}
      onSubmit={(close) => parsed && form.submit(({ name, priority }) => add.mutate({ provider: 'fcm', name, priority, config: parsed }, { onSuccess: close }), { priority: nextPriority, config: parsed })}
      onClose={() => {
        setText('');
        setParsed(null);
        setParseError(null);
      }}
    >
      <FileField label="Service-account key file" accept="application/json,.json" error={form.errors.config} onChange={(e) => void e.target.files?.[0]?.text().then(read)} />
      <TextArea label="…or paste its JSON" className="mono" rows={5} value={parsed ? '' : text} placeholder={parsed ? 'Key file loaded.' : '{ "type": "service_account", "project_id": … }'} onChange={(e) => read(e.target.value)} error={parseError ?? undefined} />
      {parsed && (
        <dl className="card card-body grid-2" style={{ margin: 0, boxShadow: 'none' }}>
          <div>
            <dt className="stat-label">Firebase project</dt>
            <dd style={{ margin: 0 }}>{parsed.projectId}</dd>
          </div>
          <div>
            <dt className="stat-label">Service account</dt>
            <dd style={{ margin: 0, wordBreak: 'break-all' }}>{parsed.clientEmail}</dd>
          </div>
          <div>
            <dt className="stat-label">Private key</dt>
            <dd style={{ margin: 0 }}>•••••••• loaded; stored encrypted and never shown again</dd>
          </div>
        </dl>
      )}
      <TextField label="Name" required maxLength={100} hint={`Priority ${nextPriority}: after the providers you already have.`} {...form.field('name')} />
    </FormDialog>
  );
}
