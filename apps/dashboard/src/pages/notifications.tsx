import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { fetchDeliveryEvents, isFinal, useNotification, useNotifications, useProviders, type Schemas } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, type Column, DataTable, EmptyState, ErrorNotice, formatDate, Loading, PageHeader, Pagination, StatusBadge } from '../components/ui';
import { toCsv } from '../lib/csv';
import { saveFile } from '../lib/download';

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
      <Funnel engagement={data.engagement} delivered={data.stats.sent} />
      <Card title="Deliveries" bodyless actions={<ExportDeliveries projectId={projectId} notificationId={data.id} />}>
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

const STEPS = ['received', 'opened', 'clicked', 'dismissed'] as const;
/** The widest bar, in % of its row: the count beside it needs the rest. */
const BAR_MAX = 70;

/** What the app reported about the delivered messages: each step's count and its share of them. */
function Funnel({ engagement, delivered }: { engagement: Schemas['EngagementFunnel']; delivered: number }) {
  const percent = (rate: number) => `${Math.round(rate * 1000) / 10} %`;
  return (
    <Card title="Engagement" description="Events your backend reported (POST /push/events), over the messages FCM accepted.">
      <dl className="funnel" data-testid="engagement-funnel">
        <div className="funnel-step">
          <dt>Delivered</dt>
          <dd>
            <span className="funnel-bar" style={{ width: delivered ? `${BAR_MAX}%` : '0%' }} />
            <span className="funnel-count">{delivered}</span>
          </dd>
        </div>
        {STEPS.map((step) => (
          <div className="funnel-step" key={step}>
            <dt>{step[0].toUpperCase() + step.slice(1)}</dt>
            <dd aria-label={`${step}: ${engagement[step]}, ${percent(engagement.rates[step])} of delivered`}>
              <span className="funnel-bar" style={{ width: `${Math.min(1, engagement.rates[step]) * BAR_MAX}%` }} />
              <span className="funnel-count">
                {engagement[step]} <span className="muted small">{percent(engagement.rates[step])}</span>
              </span>
            </dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}

/** The deliveries with their events as a CSV file, one line per delivery. */
function ExportDeliveries({ projectId, notificationId }: { projectId: string; notificationId: string }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const download = async () => {
    setError(null);
    setBusy(true);
    try {
      const deliveries = await fetchDeliveryEvents(projectId, notificationId);
      const at = (d: Schemas['DeliveryWithEvents'], type: string) => d.events.find((e) => e.type === type);
      const rows = deliveries.map((d) => [
        d.id,
        d.userId,
        d.deviceId,
        d.platform,
        d.status,
        d.error,
        ...STEPS.map((type) => at(d, type)?.at),
        d.events.map((e) => e.action).filter(Boolean).join(' '),
      ]);
      saveFile(`notification-${notificationId}.csv`, toCsv(['deliveryId', 'userId', 'deviceId', 'platform', 'status', 'error', ...STEPS, 'action'], rows), 'text/csv');
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {error !== null && <ErrorNotice error={error} />}
      <Button onClick={download} disabled={busy}>
        Export CSV
      </Button>
    </>
  );
}
