import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { fetchDeliveryEvents, isFinal, useCancelNotification, useNotification, useNotifications, useProviders, useResumeNotification, useSegments, type Schemas } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, type Column, ConfirmButton, DataTable, EmptyState, ErrorNotice, formatDate, Loading, Notice, PageHeader, Pagination, StatusBadge } from '../components/ui';
import { toCsv } from '../lib/csv';
import { saveFile } from '../lib/download';
import { describeFilter } from '../lib/segment-filter';

export function NotificationsPage() {
  const { projectId } = useProjectContext();
  const [page, setPage] = useState(1);
  const list = useNotifications(projectId, page);
  const columns: Column<Schemas['NotificationSummary']>[] = [
    {
      header: 'Sent at',
      cell: (n) => (
        <>
          <Link to={`/p/${projectId}/notifications/${n.id}`} className="cell-main">
            {formatDate(n.createdAt)}
          </Link>
          {kindOf(n) && <div className="cell-sub">{kindOf(n)}</div>}
        </>
      ),
    },
    { header: 'Status', cell: (n) => <StatusBadge status={n.status} /> },
    { header: 'Recipients', numeric: true, hideOnPhone: true, cell: (n) => n.stats.recipients },
    { header: 'Devices', numeric: true, hideOnPhone: true, cell: (n) => n.stats.devices },
    { header: 'Sent', numeric: true, cell: (n) => n.stats.sent },
    { header: 'Failed', numeric: true, cell: (n) => n.stats.failed },
  ];
  return (
    <>
      <PageHeader
        title="Notifications"
        description="Every send, newest first, with its delivery counts."
        actions={
          <>
            <Link className="btn" to={`/p/${projectId}/broadcast`}>New broadcast</Link>
            <Link className="btn btn-primary" to={`/p/${projectId}/send`}>Send a test push</Link>
          </>
        }
      />
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

/** What sets a send apart in the list: a broadcast, a local time, deliveries still held. */
function kindOf(n: Schemas['NotificationSummary']): string {
  return [n.audience && 'Broadcast', n.deliverAt && `At ${n.deliverAt.localTime} local`, n.stats.held ? `${n.stats.held} held` : undefined].filter(Boolean).join(' · ');
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

/** A notification followed to its final status, with its progress, its controls and its per-device deliveries. */
export function NotificationDetail({ projectId, notificationId }: { projectId: string; notificationId: string }) {
  // The deliveries are paged by device id: the cursors of the pages before this one, for "Previous".
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors[cursors.length - 1];
  const n = useNotification(projectId, notificationId, after);
  const providers = useProviders(projectId);
  const providerName = (id: string | null) => (id ? (providers.data?.find((p) => p.id === id)?.name ?? id.slice(0, 8)) : '—');
  if (n.isLoading) return <Loading />;
  if (n.error) return <ErrorNotice error={n.error} />;
  const data = n.data!;
  const status: string = data.status;
  const deliveries: Column<Schemas['Delivery']>[] = [
    { header: 'User', className: 'cell-main truncate', cell: (d) => d.userId },
    { header: 'Platform', hideOnPhone: true, cell: (d) => d.platform ?? '—' },
    { header: 'Status', cell: (d) => <StatusBadge status={d.status} /> },
    ...(data.deliveries.some((d) => d.notBefore) ? [{ header: 'Due', className: 'small', cell: (d: Schemas['Delivery']) => (d.notBefore ? formatDate(d.notBefore) : '—') }] : []),
    { header: 'Provider', hideOnPhone: true, cell: (d) => providerName(d.providerConfigId) },
    { header: 'Error', className: 'small', cell: (d) => d.error ?? <span className="muted">—</span> },
  ];
  const paged = cursors.length > 0 || !!data.nextDeliveriesAfter;
  return (
    <div className="stack">
      <Card>
        <div className="row" style={{ justifyContent: 'space-between', alignItems: 'flex-start' }}>
          <div className="stack-sm">
            <div className="row" aria-live="polite">
              <span className="stat-label">Status</span>
              <span data-testid="notification-status"><StatusBadge status={status} /></span>
              {!isFinal(status) && status !== 'halted' && <span className="muted small">{data.stats.held ? 'Waiting for the held deliveries’ time…' : 'Following…'}</span>}
            </div>
            <span className="muted small">
              Created {formatDate(data.createdAt)}
              {data.completedAt && ` · finished ${formatDate(data.completedAt)}`} · <code>{data.id}</code>
            </span>
            {data.deliverAt && <span className="small">Delivered at {data.deliverAt.localTime} in each device&rsquo;s time zone</span>}
            {data.error && <span className="small">{data.error}</span>}
          </div>
          <NotificationControls projectId={projectId} notificationId={data.id} status={status} />
        </div>
        <div className="grid-4" style={{ marginTop: 16 }} data-testid="notification-stats">
          {/* A broadcast has an audience, not a list of recipients: its progress says how many. */}
          {!data.progress && <Mini label="Recipients" value={data.stats.recipients} />}
          <Mini label="Devices" value={data.stats.devices} />
          <Mini label="Sent" value={data.stats.sent} />
          <Mini label="Failed" value={data.stats.failed} />
          {data.stats.held !== undefined && <Mini label="Held" value={data.stats.held} />}
          {data.stats.defaultZoneDevices !== undefined && <Mini label="In the default zone" value={data.stats.defaultZoneDevices} />}
        </div>
      </Card>
      {data.progress && <BroadcastProgress projectId={projectId} progress={data.progress} audience={data.audience} final={isFinal(status)} />}
      <RolloutStages rollout={(data as { rollout?: unknown }).rollout} />
      <Funnel engagement={data.engagement} delivered={data.stats.sent} />
      <Card title="Deliveries" bodyless actions={<ExportDeliveries projectId={projectId} notificationId={data.id} />}>
        <DataTable
          label="Deliveries"
          columns={deliveries}
          rows={data.deliveries}
          rowKey={(d, i) => d.deviceId ?? `${d.userId}-${i}`}
          empty={<EmptyState title={isFinal(status) ? 'No deliveries' : 'Waiting for the worker…'} />}
          footer={
            paged && (
              <nav className="pagination" aria-label="Delivery pages">
                <span>Page {cursors.length + 1}</span>
                <div className="actions">
                  <Button size="sm" onClick={() => setCursors(cursors.slice(0, -1))} disabled={!cursors.length}>
                    Previous
                  </Button>
                  <Button size="sm" onClick={() => setCursors([...cursors, data.nextDeliveriesAfter!])} disabled={!data.nextDeliveriesAfter}>
                    Next
                  </Button>
                </div>
              </nav>
            )
          }
        />
      </Card>
    </div>
  );
}

/** Cancel while it is not final; resume a halted rollout. */
function NotificationControls({ projectId, notificationId, status }: { projectId: string; notificationId: string; status: string }) {
  const cancel = useCancelNotification(projectId);
  const resume = useResumeNotification(projectId);
  if (isFinal(status)) return null;
  return (
    <div className="stack-sm" style={{ alignItems: 'flex-end' }}>
      <div className="actions">
        {status === 'halted' && (
          <Button variant="primary" size="sm" disabled={resume.isPending} onClick={() => resume.mutate(notificationId)}>
            {resume.isPending ? 'Resuming…' : 'Resume rollout'}
          </Button>
        )}
        <ConfirmButton
          label="Cancel"
          ariaLabel="Cancel notification"
          title="Cancel this notification?"
          description="Whatever is not sent yet is never sent: held and planned deliveries are canceled. What was sent stays sent."
          confirmLabel="Cancel notification"
          onConfirm={() => cancel.mutateAsync(notificationId)}
        />
      </div>
      <ErrorNotice error={resume.error} />
    </div>
  );
}

type Progress = NonNullable<Schemas['Notification']['progress']>;

/** A broadcast's fan-out: devices planned so far, and how many of them are sent, failed or still to go. */
function BroadcastProgress({ projectId, progress, audience, final }: { projectId: string; progress: Progress; audience?: Record<string, unknown>; final: boolean }) {
  const segments = useSegments(projectId);
  const segment = segments.data?.find((s) => s.id === audience?.segmentId);
  const { planned, sent, failed, pending, fannedOut } = progress;
  const share = (v: number) => `${planned ? (v / planned) * 100 : 0}%`;
  const done = sent + failed;
  return (
    <Card title="Broadcast progress" description={audienceText(audience, segment?.name)}>
      <div className="stack-sm" data-testid="broadcast-progress">
        <div
          className="progress-track"
          role="progressbar"
          aria-label="Devices sent or failed"
          aria-valuemin={0}
          aria-valuemax={Math.max(planned, 1)}
          aria-valuenow={done}
          aria-valuetext={`${done} of ${planned} planned devices`}
        >
          <span className="progress-sent" style={{ width: share(sent) }} />
          <span className="progress-failed" style={{ width: share(failed) }} />
        </div>
        <span className="small muted">
          {fannedOut ? 'Every device of the audience is planned.' : final ? 'The fan-out stopped before the whole audience was planned.' : 'Planning the audience, a page at a time…'}
        </span>
        <div className="grid-4">
          <Mini label="Planned" value={planned} />
          <Mini label="Sent" value={sent} />
          <Mini label="Failed" value={failed} />
          <Mini label="Pending" value={pending} />
        </div>
      </div>
    </Card>
  );
}

/** Who a broadcast went to, in a sentence: its segment by name when it is still there. */
function audienceText(audience?: Record<string, unknown>, segmentName?: string): string | undefined {
  if (!audience) return undefined;
  if (audience.all) return 'To every device of the project.';
  const filter = audience.filter === undefined ? '' : describeFilter(audience.filter);
  if (audience.segmentId) return `To the segment ${segmentName ?? String(audience.segmentId).slice(0, 8)}${filter ? ` (${filter})` : ''}.`;
  return filter ? `To the devices where ${filter}.` : undefined;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const percent = (v: unknown) => (num(v) === undefined ? '—' : `${Math.round(num(v)! * 1000) / 10} %`);

/**
 * A staged rollout: its stages, and each finished stage's figures (why it halted, when it did). Read
 * defensively: every part is optional, and what is not there is not shown.
 */
function RolloutStages({ rollout }: { rollout: unknown }) {
  if (!rollout || typeof rollout !== 'object') return null;
  const r = rollout as Record<string, unknown>;
  const stages = Array.isArray(r.stages) ? r.stages.map(num).filter((v) => v !== undefined) : [];
  const figures = (Array.isArray(r.stageFigures) ? r.stageFigures : []).filter((f): f is Record<string, unknown> => !!f && typeof f === 'object');
  const current = num(r.currentStage);
  const haltWhen = r.haltWhen && typeof r.haltWhen === 'object' ? (r.haltWhen as Record<string, unknown>) : {};
  const bounds = [num(haltWhen.failureRate) !== undefined && `failures above ${percent(haltWhen.failureRate)}`, num(haltWhen.invalidTokenRate) !== undefined && `invalid tokens above ${percent(haltWhen.invalidTokenRate)}`].filter(Boolean);
  return (
    <Card title="Staged rollout" description={stages.length ? `Stages ${stages.map((s) => `${s} %`).join(' → ')}${bounds.length ? `; halts on ${bounds.join(' or ')}` : ''}.` : undefined}>
      <div className="stack-sm" data-testid="rollout">
        {typeof r.haltReason === 'string' && (
          <Notice kind="warning">
            Halted{typeof r.haltedAt === 'string' ? ` ${formatDate(r.haltedAt)}` : ''}: {r.haltReason}
          </Notice>
        )}
        {current !== undefined && stages.length > 0 && <span className="small">Stage {Math.min(current + 1, stages.length)} of {stages.length}</span>}
        <DataTable label="Figures of each stage" columns={STAGE_COLUMNS} rows={figures} rowKey={(_, i) => String(i)} />
      </div>
    </Card>
  );
}

type StageFigures = Record<string, unknown>;

const stageFigure = (key: string): Column<StageFigures>['cell'] => (f) => num(f[key]) ?? '—';

const STAGE_COLUMNS: Column<StageFigures>[] = [
  {
    header: 'Stage',
    cell: (f, i) => (
      <>
        {num(f.percent) !== undefined ? `${f.percent} %` : `Stage ${i + 1}`}
        {num(f.devices) !== undefined && <div className="cell-sub show-sm">{num(f.devices)} devices</div>}
      </>
    ),
  },
  // On a phone the stage's devices stand under its name: the five columns do not fit.
  { header: 'Devices', numeric: true, hideOnPhone: true, cell: stageFigure('devices') },
  { header: 'Sent', numeric: true, cell: stageFigure('sent') },
  { header: 'Failed', numeric: true, cell: stageFigure('failed') },
  { header: 'Invalid tokens', numeric: true, cell: stageFigure('invalidTokens') },
];

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
                {engagement[step]} <span className="muted small">({percent(engagement.rates[step])})</span>
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
