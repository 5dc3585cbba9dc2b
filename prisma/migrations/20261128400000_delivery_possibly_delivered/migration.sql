-- A delivery whose attempt's fate is unknown (a timeout or 5xx, or a worker that died sending it).
-- A constant default: Postgres adds the column without rewriting the table.
ALTER TABLE "Delivery" ADD COLUMN "possiblyDelivered" BOOLEAN NOT NULL DEFAULT false;
