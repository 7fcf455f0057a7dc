-- The lease token whose outcome the row holds (complete_jobs writes it as it clears lease_token).
-- A completer whose write committed but whose answer was lost with the connection writes the batch
-- again, which applies nothing: it asks completed_by_lease whether the row holds its own outcome.
-- The claim token cannot tell: it is kept through adoption, so an adopter's outcome would pass for
-- the first worker's. Nullable, no default: adding it rewrites nothing.
ALTER TABLE skiplock_jobs ADD COLUMN finished_token uuid;
