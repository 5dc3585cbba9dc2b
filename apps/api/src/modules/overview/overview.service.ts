import type { Db } from '@herald/db';
import type { Overview } from './overview.schema';
import { OVERVIEW_SQL } from './overview.sql';

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
 * A project's activity at a glance: every hour of the last 24 and every UTC day of the last 7 (today
 * included), empty ones as zeros, and the registered devices by platform. Read from roll-ups that
 * Postgres keeps as notifications and devices are written (`OVERVIEW_SQL`), so its cost does not grow
 * with the project's history. `sent`/`failed` are the notifications' own counters (devices, not
 * notifications), by the hour the notification was created; dry runs are left out: they deliver
 * nothing (their validated messages count as `sent` on the notification itself, so that its status
 * reads like a real send's).
 */
export class OverviewService {
  constructor(private readonly db: Db) {}

  async get(projectId: string): Promise<Overview> {
    const [hours, days, platforms, [clock]] = await Promise.all([
      this.db.$queryRawUnsafe<BucketRow[]>(OVERVIEW_SQL.hours, projectId),
      this.db.$queryRawUnsafe<BucketRow[]>(OVERVIEW_SQL.days, projectId),
      this.db.$queryRawUnsafe<{ platform: string; count: number }[]>(OVERVIEW_SQL.platforms, projectId),
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
