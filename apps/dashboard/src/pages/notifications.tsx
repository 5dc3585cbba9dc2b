import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { isFinal, useNotification, useNotifications, useProviders, type Schemas } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Card, type Column, DataTable, EmptyState, ErrorNotice, formatDate, Loading, PageHeader, Pagination, StatusBadge } from '../components/ui';

export function NotificationsPage() {
  const { projectId } = useProjectContext();
  const [page, setPage] = useState(1);
  const list = useNotifications(projectId, page);
  const columns: Column<Schemas['NotificationSummary']>[] = [
    { header: 'Sent at', cell: (n) => <Link to={`/p/${projectId}/notifications/${n.id}`} className="cell-main">{formatDate(n.createdAt)}</Link> },
    { header: 'Status', cell: (n) => <StatusBadge status={n.status} /> },
    { header: 'Recipients', numeric: true, hideOnPhone: true, cell: (n) => n.stats.recipients },
    { header: 'Devices', numeric: true, hideOnPhone: true, cell: (n) => n.stats.devices },
    { header: 'Sent', numeric: true, cell: (n) => n.stats.sent },
    { header: 'Failed', numeric: true, cell: (n) => n.stats.failed },
  ];
  return (
    <>
      <PageHeader title="Notifications" description="Every send, newest first, with its delivery counts." actions={<Link className="btn btn-primary" to={`/p/${projectId}/send`}>Send a test push</Link>} />
      <Card bodyless>
        <DataTable
          label="Notifications"
          columns={columns}
          rows={list.data?.data}
          rowKey={(n) => n.id}
          loading={list.isLoading}
          error={list.error}
          footer={list.data && <Pagination page={page} totalPages={list.data.meta.totalPages} total={list.data.meta.total} onPage={setPage} noun="notifications" />}
          empty={
            <EmptyState title="Nothing sent yet" action={<Link to={`/p/${projectId}/send`}>Send a test push</Link>}>
              Notifications your backend sends (or you send from here) appear with their status and deliveries.
            </EmptyState>
          }
        />
      </Card>
    </>
  );
}

export function NotificationPage() {
  const { projectId } = useProjectContext();
  const { notificationId } = useParams();
  return (
    <>
      <PageHeader title="Notification" description={<Link to={`/p/${projectId}/notifications`}>← All notifications</Link>} />
      <NotificationDetail projectId={projectId} notificationId={notificationId!} />
    </>
  );
}

/** A notification followed to its final status, with its per-device deliveries. */
export function NotificationDetail({ projectId, notificationId }: { projectId: string; notificationId: string }) {
  const n = useNotification(projectId, notificationId);
  const providers = useProviders(projectId);
  const providerName = (id: string | null) => (id ? (providers.data?.find((p) => p.id === id)?.name ?? id.slice(0, 8)) : '—');
  const deliveries: Column<Schemas['Delivery']>[] = [
    { header: 'User', className: 'cell-main truncate', cell: (d) => d.userId },
    { header: 'Platform', cell: (d) => d.platform ?? '—' },
    { header: 'Status', cell: (d) => <StatusBadge status={d.status} /> },
    { header: 'Provider', hideOnPhone: true, cell: (d) => providerName(d.providerConfigId) },
    { header: 'Error', className: 'small', cell: (d) => d.error ?? <span className="muted">—</span> },
  ];
  if (n.isLoading) return <Loading />;
  if (n.error) return <ErrorNotice error={n.error} />;
  const data = n.data!;
  return (
    <div className="stack">
      <Card>
        <div className="row" style={{ justifyContent: 'space-between' }}>
          <div className="stack-sm">
            <div className="row" aria-live="polite">
              <span className="stat-label">Status</span>
              <span data-testid="notification-status"><StatusBadge status={data.status} /></span>
              {!isFinal(data.status) && <span className="muted small">Following…</span>}
            </div>
            <span className="muted small">
              Created {formatDate(data.createdAt)}
              {data.completedAt && ` · finished ${formatDate(data.completedAt)}`} · <code>{data.id}</code>
            </span>
          </div>
        </div>
        <div className="grid-4" style={{ marginTop: 16 }}>
          <Mini label="Recipients" value={data.stats.recipients} />
          <Mini label="Devices" value={data.stats.devices} />
          <Mini label="Sent" value={data.stats.sent} />
          <Mini label="Failed" value={data.stats.failed} />
        </div>
      </Card>
      <Card title="Deliveries" bodyless>
        <DataTable
          label="Deliveries"
          columns={deliveries}
          rows={data.deliveries}
          rowKey={(d, i) => d.deviceId ?? `${d.userId}-${i}`}
          empty={<EmptyState title={isFinal(data.status) ? 'No deliveries' : 'Waiting for the worker…'} />}
        />
      </Card>
    </div>
  );
}

function Mini({ label, value }: { label: string; value: number }) {
  return (
    <div>
      <div className="stat-label">{label}</div>
      <div className="stat-value" style={{ fontSize: 20 }}>{value}</div>
    </div>
  );
}
