import { Link, useParams } from 'react-router';
import { useTemplate, useTemplateEngagement } from '../api/hooks';
import { TrendChart } from '../components/chart';
import { useProjectContext } from '../components/layout';
import { Card, ErrorNotice, Loading, PageHeader } from '../components/ui';

const SERIES = [
  { key: 'sent', name: 'Sent', color: '#98a2b3' },
  { key: 'delivered', name: 'Delivered', color: '#4338ca' },
  { key: 'opened', name: 'Opened', color: '#12b76a' },
  { key: 'clicked', name: 'Clicked', color: '#f79009' },
] as const;

/** A template's daily sends, deliveries, opens and clicks over the last 30 days. */
export function TemplateEngagementPage() {
  const { projectId } = useProjectContext();
  const { templateId } = useParams();
  const template = useTemplate(projectId, templateId);
  const series = useTemplateEngagement(projectId, templateId!);
  const back = <Link to={`/p/${projectId}/templates`}>← All templates</Link>;
  if (series.isLoading) return <Loading />;
  if (series.error) return <ErrorNotice error={series.error} />;
  const days = series.data!.days;
  const total = (key: (typeof SERIES)[number]['key']) => days.reduce((n, d) => n + d[key], 0);
  return (
    <>
      <PageHeader title={`Engagement of ${template.data?.name ?? 'template'}`} description={back} />
      <Card title="Last 30 days" description={`${series.data!.from} to ${series.data!.to} (UTC), by the day each notification was sent.`}>
        <div className="grid-4" style={{ marginBottom: 16 }}>
          {SERIES.map((s) => (
            <div key={s.key}>
              <div className="stat-label">{s.name}</div>
              <div className="stat-value" style={{ fontSize: 20 }} data-testid={`trend-${s.key}`}>
                {total(s.key)}
              </div>
            </div>
          ))}
        </div>
        <TrendChart
          title="Sent, delivered, opened and clicked per day, last 30 days"
          days={days.map((d) => d.date)}
          series={SERIES.map((s) => ({ name: s.name, color: s.color, values: days.map((d) => d[s.key]) }))}
        />
      </Card>
    </>
  );
}
