/**
 * The overview's statements, as text (the EXPLAIN test of the hot path plans these same ones). They
 * read only the roll-ups that triggers keep as notifications and devices are written (the
 * overview_rollups migration): at most 168 hours × 8 slots and a few platforms per project, however
 * many notifications, deliveries and devices it has.
 */
export const OVERVIEW_SQL = {
  /** $1 projectId: every UTC hour of the last 24, this one included, empty ones as zeros. */
  hours: `SELECT b."start", COALESCE(sum(a."notifications"), 0)::int AS "notifications", COALESCE(sum(a."sent"), 0)::int AS "sent", COALESCE(sum(a."failed"), 0)::int AS "failed"
    FROM generate_series(date_trunc('hour', now(), 'UTC') - interval '23 hours', date_trunc('hour', now(), 'UTC'), interval '1 hour') AS b("start")
    LEFT JOIN "ProjectActivity" a ON a."projectId" = $1::uuid AND a."hour" = b."start"
    GROUP BY b."start" ORDER BY b."start"`,
  /** $1 projectId: every UTC day of the last 7, today included. */
  days: `SELECT b."start", COALESCE(sum(a."notifications"), 0)::int AS "notifications", COALESCE(sum(a."sent"), 0)::int AS "sent", COALESCE(sum(a."failed"), 0)::int AS "failed"
    FROM generate_series(date_trunc('day', now(), 'UTC') - interval '6 days', date_trunc('day', now(), 'UTC'), interval '1 day') AS b("start")
    LEFT JOIN "ProjectActivity" a ON a."projectId" = $1::uuid AND a."hour" >= b."start" AND a."hour" < b."start" + interval '1 day'
    GROUP BY b."start" ORDER BY b."start"`,
  /** $1 projectId: registered devices by platform, most first. */
  platforms: `SELECT "platform", sum("count")::int AS "count" FROM "ProjectDeviceCount" WHERE "projectId" = $1::uuid
    GROUP BY "platform" HAVING sum("count") > 0 ORDER BY 2 DESC, 1`,
} as const;
