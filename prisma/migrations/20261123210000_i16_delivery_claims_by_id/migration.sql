-- A worker renews the claims of the rows its runs hold by id (it knows them), so the partial index on
-- the claimant of pending rows goes: it cost a write per planned delivery, and Postgres preferred it,
-- from stale statistics, to the primary key when writing outcomes, reading every pending row's entry.
DROP INDEX IF EXISTS "Delivery_claimedBy_pending_idx";
