-- Every delivery's row is written twice: pending, then with its outcome, which changes "status".
-- With "status" in an index, both writes also maintained that index: a sixth of Postgres' work per
-- bulk delivery. Every query of Delivery rows names their notification, and a notification's rows are
-- already together in the ("notificationId", "deviceId") index, so the status is checked on the rows.
DROP INDEX "Delivery_notificationId_status_idx";
