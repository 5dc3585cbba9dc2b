import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { isFinal, useNotification, useNotifications, useProviders, type Schemas } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Card, EmptyState, ErrorNotice, formatDate, Loading, PageHeader, Pagination, StatusBadge } from '../components/ui';

export function NotificationsPage() {
  const { projectId } = useProjectContext();
  const [page, setPage] = useState(1);
  const list = useNotifications(projectId, page);
  return (
    <>
      <PageHeader title="Notifications" description="Every send, newest first, with its delivery counts." actions={<Link className="btn btn-primary" to={`/p/${projectId}/send`}>Send a test push</Link>} />
      <Card bodyless>
        {list.isLoading ? (
          <Loading />
        ) : list.error ? (
          <div className="card-body"><ErrorNotice error={list.error} /></div>
        ) : !list.data?.data.length ? (
          <EmptyState title="Nothing sent yet" action={<Link to={`/p/${projectId}/send`}>Send a test push</Link>}>
            Notifications your backend sends (or you send from here) appear with their status and deliveries.
          </EmptyState>
        ) : (
          <>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Sent at</th>
                    <th>Status</th>
                    <th className="num hide-sm">Recipients</th>
                    <th className="num hide-sm">Devices</th>
                    <th className="num">Sent</th>
                    <th className="num">Failed</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.data.map((n) => (
                    <tr key={n.id}>
                      <td><Link to={`/p/${projectId}/notifications/${n.id}`} className="cell-main">{formatDate(n.createdAt)}</Link></td>
                      <td><StatusBadge status={n.status} /></td>
                      <td className="num hide-sm">{n.stats.recipients}</td>
                      <td className="num hide-sm">{n.stats.devices}</td>
                      <td className="num">{n.stats.sent}</td>
                      <td className="num">{n.stats.failed}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pagination page={page} totalPages={list.data.meta.totalPages} total={list.data.meta.total} onPage={setPage} noun="notifications" />
          </>
        )}
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
        {!data.deliveries.length ? (
          <EmptyState title={isFinal(data.status) ? 'No deliveries' : 'Waiting for the worker…'} />
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>User</th>
                  <th>Platform</th>
                  <th>Status</th>
                  <th className="hide-sm">Provider</th>
                  <th>Error</th>
                </tr>
              </thead>
              <tbody>
                {data.deliveries.map((d: Schemas['Delivery'], i) => (
                  <tr key={d.deviceId ?? `${d.userId}-${i}`}>
                    <td className="cell-main truncate">{d.userId}</td>
                    <td>{d.platform ?? '—'}</td>
                    <td><StatusBadge status={d.status} /></td>
                    <td className="hide-sm">{providerName(d.providerConfigId)}</td>
                    <td className="small">{d.error ?? <span className="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
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
