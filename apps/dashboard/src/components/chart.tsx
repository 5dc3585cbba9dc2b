export interface ChartBucket {
  label: string;
  sent: number;
  failed: number;
}

/** Both charts' geometry, in the SVG's own units: its size, and the margins for the labels. */
const width = 460;
const height = 170;
const top = 10;
const bottom = 24;
const left = 32;

const SENT = '#4338ca';
const FAILED = '#f04438';

/** Stacked bars of sent and failed deliveries; the numbers are also in the bars' titles and a hidden table for screen readers. */
export function BarChart({ title, buckets, labelEvery = 1 }: { title: string; buckets: ChartBucket[]; labelEvery?: number }) {
  const max = Math.max(1, ...buckets.map((b) => b.sent + b.failed));
  const scale = (v: number) => (v / max) * (height - top - bottom);
  const slot = (width - left) / buckets.length;
  const bar = Math.max(4, Math.min(40, slot * 0.6));
  const ticks = [0, Math.round(max / 2), max].filter((v, i, a) => a.indexOf(v) === i);
  return (
    <figure style={{ margin: 0 }}>
      <svg className="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${title}: ${buckets.reduce((n, b) => n + b.sent, 0)} sent, ${buckets.reduce((n, b) => n + b.failed, 0)} failed`}>
        <Gridlines ticks={ticks} left={left} width={width} y={(t) => height - bottom - scale(t)} />
        {buckets.map((b, i) => {
          const x = left + i * slot + (slot - bar) / 2;
          const hs = scale(b.sent);
          const hf = scale(b.failed);
          return (
            <g key={i}>
              <title>{`${b.label}: ${b.sent} sent, ${b.failed} failed`}</title>
              <rect x={x} width={bar} y={height - bottom - hs} height={hs} fill={SENT} rx={2} />
              <rect x={x} width={bar} y={height - bottom - hs - hf} height={hf} fill={FAILED} rx={2} />
              {i % labelEvery === 0 && (
                <text x={x + bar / 2} y={height - 6} textAnchor="middle">
                  {b.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption className="legend">
        <span style={{ ['--swatch' as string]: SENT }}>Sent</span>
        <span style={{ ['--swatch' as string]: FAILED }}>Failed</span>
      </figcaption>
    </figure>
  );
}

export interface TrendSeries {
  name: string;
  color: string;
  values: number[];
}

/** Lines over days (one per series), e.g. a template's sends and opens over 30 days; the totals are in the label. */
export function TrendChart({ title, days, series }: { title: string; days: string[]; series: TrendSeries[] }) {
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const x = (i: number) => left + (days.length > 1 ? (i / (days.length - 1)) * (width - left - 8) : 0);
  const y = (v: number) => height - bottom - (v / max) * (height - top - bottom);
  const totals = series.map((s) => `${s.values.reduce((a, b) => a + b, 0)} ${s.name.toLowerCase()}`).join(', ');
  return (
    <figure style={{ margin: 0 }}>
      <svg className="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${title}: ${totals}`}>
        <Gridlines ticks={[0, max]} left={left} width={width} y={y} />
        {series.map((s) => (
          <polyline key={s.name} fill="none" stroke={s.color} strokeWidth={2} points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')} />
        ))}
        {days.map((d, i) =>
          // A label a week apart, counted back from today's.
          (days.length - 1 - i) % 7 === 0 ? (
            // The last one (today's) ends at the right edge instead of being cut by it.
            <text key={d} x={x(i)} y={height - 6} textAnchor={i === days.length - 1 ? 'end' : 'middle'}>
              {d.slice(5)}
            </text>
          ) : null,
        )}
      </svg>
      <figcaption className="legend">
        {series.map((s) => (
          <span key={s.name} style={{ ['--swatch' as string]: s.color }}>
            {s.name}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** Horizontal lines at the given values, labelled on the left. */
function Gridlines({ ticks, left, width, y }: { ticks: number[]; left: number; width: number; y: (value: number) => number }) {
  return ticks.map((t) => (
    <g key={t}>
      <line x1={left} x2={width} y1={y(t)} y2={y(t)} stroke="#eaecf0" />
      <text x={left - 6} y={y(t) + 4} textAnchor="end">
        {t}
      </text>
    </g>
  ));
}
