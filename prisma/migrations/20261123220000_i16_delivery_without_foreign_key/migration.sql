-- Delivery rows are inserted by the thousand per second, and the foreign key to "Notification" made
-- Postgres look the notification up (and lock it) once per inserted row: about a quarter of its work
-- per bulk delivery. The worker's plan statement, the only writer of Delivery rows, locks the
-- notifications it plans for, so a notification deleted meanwhile gets no rows; and deleting
-- notifications deletes their deliveries through this trigger, as ON DELETE CASCADE did.
ALTER TABLE "Delivery" DROP CONSTRAINT "Delivery_notificationId_fkey";

CREATE FUNCTION "herald_delete_deliveries"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "Delivery" WHERE "notificationId" IN (SELECT "id" FROM deleted);
  RETURN NULL;
END
$$;

CREATE TRIGGER "Notification_delete_deliveries" AFTER DELETE ON "Notification"
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION "herald_delete_deliveries"();
