import type { Db } from '@herald/db';
import type { Overview } from './overview.schema';

interface BucketRow {
  start: Date;
  notifications: number;
  sent: number;
  failed: number;
}

const sum = (rows: BucketRow[]) =>
  rows.reduce((t, r) => ({ notifications: t.notifications + r.notifications, sent: t.sent + r.sent, failed: t.failed + r.failed }), { notifications: 0, sent: 0, failed: 0 });

const toBucket = (r: BucketRow) => ({ start: r.start.toISOString(), notifications: r.notifications, sent: r.sent, failed: r.failed });

/**
 * A project's activity at a glance, counted by Postgres: every hour of the last 24 and every UTC
 * day of the last 7 (today included), empty ones as zeros, and the registered devices by platform.
 * The notification's own `sent`/`failed` counters are summed (devices, not notifications), so the
 * query reads the project's notifications of the week through their (projectId, createdAt) index.
 * Dry runs are left out: they deliver nothing (their validated messages count as `sent` on the
 * notification itself, so that its status reads like a real send's).
 */
export class OverviewService {
  constructor(private readonly db: Db) {}

  async get(projectId: string): Promise<Overview> {
    const [hours, days, platforms, [clock]] = await Promise.all([
      this.db.$queryRaw<BucketRow[]>`
        SELECT b.start, COUNT(n."id")::int AS notifications, COALESCE(SUM(n."sent"), 0)::int AS sent, COALESCE(SUM(n."failed"), 0)::int AS failed
        FROM generate_series(date_trunc('hour', now()) - interval '23 hours', date_trunc('hour', now()), interval '1 hour') AS b(start)
        LEFT JOIN "Notification" n ON n."projectId" = ${projectId}::uuid AND NOT n."dryRun" AND n."createdAt" >= b.start AND n."createdAt" < b.start + interval '1 hour'
        GROUP BY b.start ORDER BY b.start`,
      this.db.$queryRaw<BucketRow[]>`
        SELECT b.start, COUNT(n."id")::int AS notifications, COALESCE(SUM(n."sent"), 0)::int AS sent, COALESCE(SUM(n."failed"), 0)::int AS failed
        FROM generate_series(date_trunc('day', now(), 'UTC') - interval '6 days', date_trunc('day', now(), 'UTC'), interval '1 day') AS b(start)
        LEFT JOIN "Notification" n ON n."projectId" = ${projectId}::uuid AND NOT n."dryRun" AND n."createdAt" >= b.start AND n."createdAt" < b.start + interval '1 day'
        GROUP BY b.start ORDER BY b.start`,
      this.db.$queryRaw<{ platform: string; count: number }[]>`
        SELECT "platform", COUNT(*)::int AS count FROM "Device" WHERE "projectId" = ${projectId}::uuid GROUP BY "platform" ORDER BY count DESC, "platform"`,
      this.db.$queryRaw<{ now: Date }[]>`SELECT now() AS now`,
    ]);
    return {
      generatedAt: clock.now.toISOString(),
      last24h: { ...sum(hours), hours: hours.map(toBucket) },
      last7d: { ...sum(days), days: days.map(toBucket) },
      devices: { total: platforms.reduce((t, p) => t + p.count, 0), byPlatform: platforms },
    };
  }
}
