/**
 * The statements of a notification's read (GET /push/notifications/{id}), as text: the EXPLAIN test
 * of the hot path (test/hot-path.explain.test.ts) plans these same ones. Both read by key whatever
 * the statistics say: the notification by its primary key, its deliveries through the
 * (notificationId, deviceId) index (the only index of Delivery).
 */
export const NOTIFICATION_READ_SQL = {
  /** $1 id, $2 projectId. */
  notification: `SELECT "id", "projectId", "templateId", "status"::text AS "status", "recipients", "devices", "sent", "failed", "invalidTokensRemoved",
      "sendAt", "dryRun", "createdAt", "completedAt", "timing", "defaultZoneDevices",
      "audience", "error", "pendingDeliveries", "fannedOut", "rollout"
    FROM "Notification" WHERE "id" = $1::uuid AND "projectId" = $2::uuid`,
  /** $1 notification id: its settled deliveries and those held for their moment (local time, quiet hours), oldest first. */
  deliveries: `SELECT "userId", "deviceId", "platform", "status"::text AS "status", "providerConfigId", "providerMessageId", "error", "notBefore", "possiblyDelivered"
    FROM "Delivery" WHERE "notificationId" = $1::uuid AND ("status" <> 'pending' OR "notBefore" IS NOT NULL)
    ORDER BY "createdAt", "id"`,
} as const;
