import { AUDIT_ACTIONS, auditLogQuery } from '@herald/schemas';
import { useState } from 'react';
import { useAuditLog, useAuditVerify, type AuditFilters, type Schemas } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button } from '../components/ui/button';
import { DataTable, type Column } from '../components/ui/data-table';
import { SelectField, TextField } from '../components/ui/fields';
import { formatDate } from '../components/ui/format';
import { Card, PageHeader } from '../components/ui/layout';
import { EmptyState, ErrorNotice, Notice } from '../components/ui/notices';
import { useSchemaForm } from '../lib/schema-form';

type Entry = Schemas['AuditPage']['data'][number];

const actorLabel = (a: Entry['actor']) => (a.type === 'user' ? (a.email ?? a.id) : a.type === 'apiKey' ? `API key ${a.name ?? a.id}` : 'Herald');

/** A value as JSON, cut to fit a table cell. */
const shown = (value: unknown) => {
  const json = JSON.stringify(value) ?? 'null';
  return json.length > 60 ? `${json.slice(0, 57)}…` : json;
};

/** One line per changed field: `title: "Hi" → "Hello"`; a secret only as changed. */
function ChangeList({ changes }: { changes: Entry['changes'] }) {
  const fields = Object.entries(changes);
  if (!fields.length) return <span className="muted">—</span>;
  return (
    <ul className="small" style={{ margin: 0, paddingLeft: 16, maxWidth: 420, overflowWrap: 'anywhere' }}>
      {fields.map(([field, change]) => (
        <li key={field}>
          {field}: {change === 'changed' ? 'changed' : `${shown((change as { before: unknown }).before)} → ${shown((change as { after: unknown }).after)}`}
        </li>
      ))}
    </ul>
  );
}

/** Local `datetime-local` text as an ISO instant, or nothing. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function AuditLogPage() {
  const { projectId, isAdmin } = useProjectContext();
  const [filters, setFilters] = useState<AuditFilters>({});
  // The cursors of the pages before this one, to go back.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const [range, setRange] = useState({ from: '', to: '' });
  const form = useSchemaForm(auditLogQuery, {});
  // An empty field filters nothing (the API refuses an empty filter).
  const text = (key: 'actor' | 'targetType' | 'targetId') => ({ value: form.values[key] ?? '', onChange: (e: { target: { value: string } }) => form.set(key, e.target.value || undefined), error: form.errors[key] });
  const log = useAuditLog(projectId, filters, cursor, isAdmin);
  const [verifying, setVerifying] = useState(false);
  const verify = useAuditVerify(projectId, verifying);

  const applyFilters = (e: { preventDefault(): void }) => {
    e.preventDefault();
    form.submit(
      (query) => {
        setFilters(Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== '')) as AuditFilters);
        setCursors([undefined]);
      },
      { from: instant(range.from), to: instant(range.to) },
    );
  };

  const columns: Column<Entry>[] = [
    { header: 'Time', className: 'muted', cell: (e) => formatDate(e.createdAt) },
    { header: 'Actor', cell: (e) => actorLabel(e.actor) },
    { header: 'Action', cell: (e) => <code>{e.action}</code> },
    { header: 'Target', cell: (e) => <span className="small">{e.target.type}{e.target.id ? ` ${e.target.id.slice(0, 8)}…` : ''}</span> },
    { header: 'Changes', cell: (e) => <ChangeList changes={e.changes} /> },
  ];

  if (!isAdmin) {
    return (
      <>
        <PageHeader title="Audit log" />
        <Notice>Only project admins can read the audit log.</Notice>
      </>
    );
  }
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change to this project: who made it, what changed, from where and when. Entries cannot be edited or deleted, and their hashes chain."
        actions={
          <Button onClick={() => (verifying ? void verify.refetch() : setVerifying(true))} disabled={verify.isFetching}>
            Verify the chain
          </Button>
        }
      />
      <div className="stack">
        {verify.data &&
          (verify.data.valid ? (
            <Notice kind="success">The chain is whole: {verify.data.entries} entries.</Notice>
          ) : (
            <Notice kind="warning">
              The chain breaks at entry {verify.data.brokenAt?.number} ({verify.data.brokenAt?.reason}).
            </Notice>
          ))}
        {verify.error && <ErrorNotice error={verify.error} />}
        <Card>
          <form className="filter-bar" noValidate onSubmit={applyFilters}>
            <SelectField label="Action" value={form.values.action ?? ''} onChange={(e) => form.set('action', (e.target.value || undefined) as AuditFilters['action'])} error={form.errors.action}>
              <option value="">Any action</option>
              {AUDIT_ACTIONS.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </SelectField>
            <SelectField label="Actor type" value={form.values.actorType ?? ''} onChange={(e) => form.set('actorType', (e.target.value || undefined) as AuditFilters['actorType'])} error={form.errors.actorType}>
              <option value="">Anyone</option>
              <option value="user">A user</option>
              <option value="apiKey">An API key</option>
              <option value="system">Herald (system)</option>
            </SelectField>
            <TextField label="Actor id" placeholder="A user's or API key's id" {...text('actor')} />
            <TextField label="Target type" placeholder="e.g. template" {...text('targetType')} />
            <TextField label="Target id" placeholder="The changed thing's id" {...text('targetId')} />
            <TextField label="From" type="datetime-local" value={range.from} onChange={(e) => setRange((r) => ({ ...r, from: e.target.value }))} error={form.errors.from} />
            <TextField label="To" type="datetime-local" value={range.to} onChange={(e) => setRange((r) => ({ ...r, to: e.target.value }))} error={form.errors.to} />
            <div>
              <Button variant="primary" type="submit">
                Filter
              </Button>
            </div>
          </form>
        </Card>
        {/* On a phone each entry is a card: five columns do not fit, and the changes matter most. */}
        <Card bodyless>
          <div className="entry-cards">
            <DataTable
              label="Audit entries"
              columns={columns}
              rows={log.data?.data}
              rowKey={(e) => e.id}
              loading={log.isLoading}
              error={log.error}
              empty={<EmptyState title="No entries">No change matches these filters.</EmptyState>}
              footer={
                <div className="row" style={{ justifyContent: 'flex-end', padding: 12 }}>
                  <Button size="sm" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
                    Newer
                  </Button>
                  <Button size="sm" disabled={!log.data?.nextCursor} onClick={() => setCursors((c) => [...c, log.data?.nextCursor ?? undefined])}>
                    Older
                  </Button>
                </div>
              }
            />
          </div>
        </Card>
      </div>
    </>
  );
}
