/** Every status of a notification, as Postgres' `NotificationStatus` enum has them (and in its order). */
export const NOTIFICATION_STATUSES = ['queued', 'processing', 'completed', 'partially_failed', 'failed', 'scheduled', 'canceled', 'halted'] as const;

/**
 * The statuses after which nothing about a notification changes: the three a delivery ends in, and
 * `canceled` (a scheduled send that never started).
 */
export const FINAL_NOTIFICATION_STATUSES = ['completed', 'partially_failed', 'failed', 'canceled'] as const;
export type FinalNotificationStatus = (typeof FINAL_NOTIFICATION_STATUSES)[number];

/** The final statuses a delivery ends in (by the share of devices sent to). */
export type DeliveredStatus = Exclude<FinalNotificationStatus, 'canceled'>;

const FINAL: ReadonlySet<string> = new Set(FINAL_NOTIFICATION_STATUSES);

export const isFinalStatus = (status: string): status is FinalNotificationStatus => FINAL.has(status);

/** The final statuses as a list of SQL literals, `'completed', 'partially_failed', …`, for `IN (…)`. */
export const FINAL_STATUSES_SQL = FINAL_NOTIFICATION_STATUSES.map((s) => `'${s}'`).join(', ');
