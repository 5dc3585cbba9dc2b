import { Link } from 'react-router';
import { useOverview } from '../api/hooks';
import { BarChart } from '../components/chart';
import { useProjectContext } from '../components/layout';
import { Card, ErrorNotice, Loading, PageHeader } from '../components/ui';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const hourLabel = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
const dayLabel = (iso: string) => new Date(iso).toLocaleDateString(undefined, { weekday: 'short', timeZone: 'UTC' });

export function OverviewPage() {
  const { projectId, project } = useProjectContext();
  const overview = useOverview(projectId);
  const o = overview.data;
  const base = `/p/${projectId}`;
  return (
    <>
      <PageHeader title={project.name} description="Deliveries over the last 24 hours and 7 days, and the devices registered." actions={<Link className="btn btn-primary" to={`${base}/send`}>Send a test push</Link>} />
      {overview.isLoading ? (
        <Loading />
      ) : overview.error ? (
        <ErrorNotice error={overview.error} />
      ) : o ? (
        <div className="stack">
          <div className="grid-4">
            <Stat label="Sent, 24 h" value={o.last24h.sent} />
            <Stat label="Failed, 24 h" value={o.last24h.failed} />
            <Stat label="Sent, 7 days" value={o.last7d.sent} />
            <Stat label="Devices" value={o.devices.total} />
          </div>
          {o.last7d.notifications === 0 && o.devices.total === 0 && <GettingStarted base={base} />}
          <div className="grid-2">
            <Card title="Last 7 days" description={`${plural(o.last7d.notifications, 'notification')} · ${plural(o.last7d.failed, 'failed delivery', 'failed deliveries')}`}>
              <BarChart title="Deliveries per day, last 7 days" buckets={o.last7d.days.map((d) => ({ label: dayLabel(d.start), sent: d.sent, failed: d.failed }))} />
            </Card>
            <Card title="Last 24 hours" description={`${plural(o.last24h.notifications, 'notification')} · ${plural(o.last24h.failed, 'failed delivery', 'failed deliveries')}`}>
              <BarChart title="Deliveries per hour, last 24 hours" labelEvery={6} buckets={o.last24h.hours.map((h) => ({ label: hourLabel(h.start), sent: h.sent, failed: h.failed }))} />
            </Card>
          </div>
          <Card title="Devices by platform" description="Registered by your backend with an API key.">
            {o.devices.total === 0 ? (
              <p className="muted">
                No devices yet. Your backend registers them with <code>POST /push/register-device</code> and an <Link to={`${base}/keys`}>API key</Link>.
              </p>
            ) : (
              <div className="stack-sm">
                {o.devices.byPlatform.map((p) => (
                  <div className="bar-row" key={p.platform}>
                    <span>{p.platform}</span>
                    <div className="bar-track" aria-hidden="true">
                      <div className="bar-fill" style={{ width: `${(p.count / o.devices.total) * 100}%` }} />
                    </div>
                    <span className="num" style={{ textAlign: 'right' }}>{p.count}</span>
                  </div>
                ))}
              </div>
            )}
          </Card>
        </div>
      ) : null}
    </>
  );
}

function Stat({ label, value }: { label: string; value: number }) {
  return (
    <div className="card card-body">
      <div className="stat-label">{label}</div>
      <div className="stat-value">{value.toLocaleString()}</div>
    </div>
  );
}

function GettingStarted({ base }: { base: string }) {
  return (
    <Card title="Get started" description="Four steps from an empty project to a delivered push.">
      <ol className="stack-sm" style={{ margin: 0, paddingLeft: 20 }}>
        <li>
          <Link to={`${base}/providers`}>Add a push provider</Link>: upload your Firebase service-account key.
        </li>
        <li>
          <Link to={`${base}/templates/new`}>Create a template</Link> with the title and body of your notification.
        </li>
        <li>
          <Link to={`${base}/keys`}>Create an API key</Link> and let your backend register your users' device tokens.
        </li>
        <li>
          <Link to={`${base}/send`}>Send a test push</Link> and follow it to its devices.
        </li>
      </ol>
    </Card>
  );
}
